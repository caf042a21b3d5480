import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
// The adapter first: it puts the checksum in kafkajs's place before kafkajs loads.
import '../../../services/platform/log/kafka.ts';
import { crc32c } from '../../../services/platform/log/crc32c.ts';

/** CRC-32C bit by bit, straight from the definition (reflected polynomial 0x82F63B78): the reference. */
function reference(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('CRC-32C of Kafka record batches (services/platform/log/crc32c.ts, kafkajs-crc32c.ts)', () => {
  it('is the Castagnoli checksum: the standard check value and the bitwise definition on every length around the 8-byte steps', () => {
    expect(crc32c(Buffer.from('123456789')).toString(16)).toBe('e3069283');
    expect(crc32c(new Uint8Array(0))).toBe(0);
    const bytes = randomBytes(4096);
    for (let length = 0; length <= 70; length++) expect(crc32c(bytes.subarray(0, length)), `length ${length}`).toBe(reference(bytes.subarray(0, length)));
    for (const offset of [1, 3, 7]) expect(crc32c(bytes.subarray(offset))).toBe(reference(bytes.subarray(offset)));
    expect(crc32c(bytes)).toBe(reference(bytes));
    expect(crc32c(new Uint8Array(1000).fill(0xff))).toBe(reference(new Uint8Array(1000).fill(0xff)));
  });

  it('is the function kafkajs checksums its record batches with', () => {
    const require = createRequire(import.meta.url);
    const used = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as unknown;
    expect(used).toBe(crc32c);
  });
});
