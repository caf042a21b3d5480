/**
 * The `results` and `line_ends` of a format-2 record (job-results.ts COMMA_RECORD_FORMAT) as
 * UTF-8 bytes, written line by line into one buffer kept for the next record. The same bytes as
 * joining the lines with commas and counting each line's bytes (job-results.ts recordOf), without
 * what that costs per record (docs/performance.md "Measurements", session 17): a ~230 KB joined
 * string (past V8's regular object size, so old-generation garbage at once), a pass of
 * `Buffer.byteLength` over every line, and node:sqlite's conversion of the string to UTF-8 when
 * it is bound. The embedded store binds the bytes as TEXT (`CAST(? AS TEXT)`, the database's
 * encoding is UTF-8), so the stored value is the text it stored before, byte for byte.
 */
export interface CommaRecordBytes {
  /** The lines joined with commas, UTF-8: a view of the writer's buffer, valid until its next call. */
  results: Uint8Array;
  /** Where each line ends (exclusive) in `results`, a uint32 LE each: a buffer of its own. */
  line_ends: Uint8Array;
}

/** A writer of format-2 record bytes; what it gives is overwritten by its next call. */
export type CommaRecordWriter = (lines: readonly string[]) => CommaRecordBytes;

/** Room for a record of the bench's rows (~230 bytes a row, 1,000 rows) before the buffer grows. */
const INITIAL_BYTES = 1024 * 1024;
/** A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4). */
const MAX_UTF8_PER_UNIT = 3;
const COMMA = 0x2c;

export function createCommaRecordWriter(): CommaRecordWriter {
  let buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  return (lines) => {
    const lineEnds = Buffer.allocUnsafe(lines.length * 4);
    let at = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      // Room for the comma and the line at its longest, so `write` never stops short.
      const room = at + 1 + line.length * MAX_UTF8_PER_UNIT;
      if (room > buffer.length) {
        const grown = Buffer.allocUnsafe(Math.max(2 * buffer.length, room));
        buffer.copy(grown, 0, 0, at);
        buffer = grown;
      }
      if (i > 0) buffer[at++] = COMMA;
      at += buffer.write(line, at);
      lineEnds.writeUInt32LE(at, i * 4);
    }
    return { results: buffer.subarray(0, at), line_ends: lineEnds };
  };
}
