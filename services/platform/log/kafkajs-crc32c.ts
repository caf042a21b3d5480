import { createRequire, Module } from 'node:module';
import { crc32c } from './crc32c.ts';

/**
 * kafkajs 2.2.4 (its last release) checksums every record batch it produces with a CRC-32C
 * computed a byte at a time (`src/protocol/recordBatch/crc32C/crc32C.js`), about 200 MB/s: the
 * largest part of producing the intake's row appends and the matcher's results. This puts
 * crc32c.ts (slicing-by-8, the same checksums) in that module's place. kafkajs takes the function
 * when it loads its record batch module, so this must run before kafkajs is first loaded:
 * kafka.ts imports it first; a process that loaded kafkajs before keeps kafkajs's own (the same
 * checksums, slower). Only for 2.2.4: another version keeps its own.
 * Tested: test/unit/platform/kafka-crc32c.test.ts (equal to kafkajs's on every length), and the
 * event-log contract against the broker, which refuses a batch whose checksum is wrong.
 */
const require = createRequire(import.meta.url);
if ((require('kafkajs/package.json') as { version: string }).version === '2.2.4') {
  const path = require.resolve('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js');
  if (!require.cache[path]) {
    const replacement = new Module(path);
    replacement.filename = path;
    replacement.loaded = true;
    replacement.exports = crc32c;
    require.cache[path] = replacement;
  }
}
