/**
 * CRC-32C (Castagnoli), the checksum of every Kafka record batch, computed eight bytes at a time
 * ("slicing-by-8": eight 256-entry tables, one look-up per byte but no dependency between the
 * eight). kafkajs 2.2.4 computes it a byte at a time, one table look-up after the other; on the
 * intake's appends and the matcher's results that was the largest part of producing
 * (docs/performance.md "Measurements"). kafkajs-crc32c.ts puts this one in its place.
 */
const POLYNOMIAL = 0x82f63b78; // reflected Castagnoli polynomial

const TABLES = (() => {
  const tables = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    tables[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[n];
    for (let t = 1; t < 8; t++) {
      c = tables[c & 0xff] ^ (c >>> 8);
      tables[t * 256 + n] = c;
    }
  }
  return tables;
})();

/** The CRC-32C of `bytes`, an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array): number {
  const t = TABLES;
  let crc = -1;
  let i = 0;
  const whole = bytes.length - (bytes.length % 8);
  for (; i < whole; i += 8) {
    crc ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    crc = t[1792 + (crc & 0xff)] ^ t[1536 + ((crc >>> 8) & 0xff)] ^ t[1280 + ((crc >>> 16) & 0xff)] ^ t[1024 + (crc >>> 24)]
      ^ t[768 + bytes[i + 4]] ^ t[512 + bytes[i + 5]] ^ t[256 + bytes[i + 6]] ^ t[bytes[i + 7]];
  }
  for (; i < bytes.length; i++) crc = t[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
