import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 (its last release) writes every request into an Encoder whose buffer grows by
 * `Buffer.alloc`: zero-filled, then overwritten by the copy that follows. A produce request passes
 * through about seven such encoders (record, record batch, batch, request, size prefix), so a
 * 768 KB append zero-fills several MB that are never read as zeros: the encoder reads and sends
 * only the bytes it wrote (`buffer` is `buf.slice(0, offset)`, every write is at `offset`).
 * This grows the buffer with `Buffer.allocUnsafe` instead; the same bytes go on the wire
 * (test/integration/event-log.kafka.test.ts, the whole contract). Measured in
 * docs/performance.md "Measurements". Only for 2.2.4: another version keeps its own method.
 */
interface Encoder {
  buf: Buffer;
  offset: number;
  ensureAvailable(length: number): void;
}

const require = createRequire(import.meta.url);
if ((require('kafkajs/package.json') as { version: string }).version === '2.2.4') {
  const EncoderClass = require('kafkajs/src/protocol/encoder.js') as { prototype: Encoder; nextPowerOfTwo(value: number): number };
  EncoderClass.prototype.ensureAvailable = function ensureAvailable(this: Encoder, length: number) {
    if (this.offset + length <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(EncoderClass.nextPowerOfTwo(this.offset + length));
    this.buf.copy(grown, 0, 0, this.offset);
    this.buf = grown;
  };
}
