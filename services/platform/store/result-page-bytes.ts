import { COMMA_RECORD_FORMAT, commaLineEnd, commaLineStart, linesOfRecord, type StoredRecord } from './job-results.ts';

/**
 * A results page cut from stored records as bytes (docs/architecture.md "Results pages"): the
 * records' `results` arrive as UTF-8 bytes (a SQLite BLOB cast, ClickHouse RowBinary), and the
 * page is those very bytes, not even copied, with the newline between two results made a comma.
 * No text is decoded to a JavaScript string and encoded back, nothing is parsed: a page is the stored JSON,
 * so its answers cannot drift from what readResultsJson serves (a test compares the two byte for
 * byte on every result shape).
 *
 * Formats 1 and 2 (job-results.ts RESULT_RECORD_FORMAT, COMMA_RECORD_FORMAT) are cut here.
 * Format 1 holds one CheckResult JSON per line, and JSON.stringify never writes a raw newline, nor
 * does UTF-8 use the byte 0x0A inside a character, so every 0x0A is a line end, made a comma when
 * served. Format 2 is stored as served, joined with commas, with each row's end beside it: its
 * bytes go out untouched and a cut inside it is two offsets (docs/embedded-and-admin.md "Result
 * record formats"). Any other format a reader knows is read as its text (linesOfRecord), so a
 * format added later serves pages too, at the old cost; an unknown one throws
 * UnknownRecordFormatError as it does for readResults.
 */
export type ByteRecord = {
  first_row: number;
  /** The record's last row: its rows are first_row..last_row, one line each (job-results.ts resultRecords). */
  last_row: number;
  record_format: number;
  /** The record's `results` column, UTF-8. */
  results: Uint8Array;
  /** Format 2's row ends (job-results.ts ResultRecord); absent or null in format 1. */
  line_ends?: Uint8Array | null;
};

export interface ResultBytesCut {
  count: number;
  /** The last row on the page (-1: none). */
  last_row: number;
  /** Whether a row follows the page. */
  more: boolean;
  /**
   * The page's results as JSON separated by commas (the inside of a JSON array), UTF-8, in
   * pieces to be written one after the other: views of the records' own bytes, whose newlines
   * (format 1) are made commas in place. Call once, on the cut that is served: it changes the records'
   * bytes (they are the reader's own copy, read for this page only), so they cannot be cut again.
   */
  pieces(): Buffer[];
}

const NEWLINE = 0x0a;
const COMMA = Buffer.from(',');

/**
 * Rows after `after`, at most `limit`, from records in row order (the rule of job-results.ts
 * pageOfRecords, on bytes). `records` may be lazy: it is read only as far as the page needs.
 */
export function pageBytesOfRecords(records: Iterable<ByteRecord>, after: number, limit: number): ResultBytesCut {
  const slices: Slice[] = [];
  let count = 0;
  let lastRow = -1;
  const cut = (more: boolean): ResultBytesCut => ({ count, last_row: lastRow, more, pieces: () => piecesOf(slices) });
  for (const record of records) {
    if (count === limit) return cut(true);
    const skip = Math.max(0, after + 1 - record.first_row);
    const lines = cutRecord(record, skip, limit - count);
    if (lines.taken > 0) {
      slices.push({ bytes: lines.slice, newlines: record.record_format === 1 });
      count += lines.taken;
      lastRow = record.first_row + skip + lines.taken - 1;
    }
    if (lines.rest) return cut(true);
  }
  return cut(false);
}

/** A record's part on the page; `newlines`: its rows are still separated by newlines (format 1). */
type Slice = { bytes: Buffer; newlines: boolean };

type Lines = { slice: Buffer; taken: number; rest: boolean };

function cutRecord(record: ByteRecord, skip: number, wanted: number): Lines {
  if (record.record_format === 1) return cutLines(record, skip, wanted);
  if (record.record_format === COMMA_RECORD_FORMAT) return cutCommaRecord(record, skip, wanted);
  return cutOtherFormat(record, skip, wanted);
}

/**
 * Rows skip..skip+wanted-1 of a format-2 record, by its line ends: a record the page takes whole
 * is its bytes as they are.
 */
function cutCommaRecord(record: ByteRecord, skip: number, wanted: number): Lines {
  const bytes = record.results;
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ends = record.line_ends;
  const rows = record.last_row - record.first_row + 1;
  if (!ends || ends.byteLength !== rows * 4) throw new Error(`result record ${record.first_row} has ${ends ? ends.byteLength / 4 : 'no'} line ends for ${rows} rows`);
  if (skip === 0 && rows <= wanted) return { slice: all, taken: rows, rest: false };
  if (skip >= rows) return { slice: all.subarray(0, 0), taken: 0, rest: false };
  const taken = Math.min(wanted, rows - skip);
  const slice = all.subarray(commaLineStart(ends, skip), commaLineEnd(ends, skip + taken - 1));
  return { slice, taken, rest: skip + taken < rows };
}

/**
 * Lines skip..skip+wanted-1 of a format-1 record; `rest` when lines are left after them. A record
 * the page takes whole (most of a page's) is not searched for its lines: it has one per row.
 */
function cutLines(record: ByteRecord, skip: number, wanted: number): Lines {
  const bytes = record.results;
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rows = record.last_row - record.first_row + 1;
  if (skip === 0 && rows <= wanted) return { slice: all, taken: rows, rest: false };
  const none = { slice: all.subarray(0, 0), taken: 0, rest: false };
  let start = 0;
  for (let i = 0; i < skip; i++) {
    const end = all.indexOf(NEWLINE, start);
    if (end === -1) return none;
    start = end + 1;
  }
  let end = start;
  for (let taken = 1; taken <= wanted; taken++) {
    const next = all.indexOf(NEWLINE, end);
    if (next === -1) return { slice: all.subarray(start), taken, rest: false };
    if (taken === wanted) return { slice: all.subarray(start, next), taken, rest: true };
    end = next + 1;
  }
  return none;
}

/** A record of another format, through its text (job-results.ts linesOfRecord), joined as served. */
function cutOtherFormat(record: ByteRecord, skip: number, wanted: number): Lines {
  const stored: StoredRecord = {
    first_row: record.first_row, record_format: record.record_format, results: Buffer.from(record.results).toString('utf8'), cells: null,
  };
  const lines = linesOfRecord(stored).results.slice(skip);
  const taken = Math.min(lines.length, wanted);
  return { slice: Buffer.from(lines.slice(0, taken).join(','), 'utf8'), taken, rest: lines.length > taken };
}

/** The slices with a comma between them and in place of every newline inside format-1 ones. */
function piecesOf(slices: readonly Slice[]): Buffer[] {
  const pieces: Buffer[] = [];
  for (const { bytes, newlines } of slices) {
    if (newlines) for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) bytes[i] = COMMA[0];
    if (pieces.length > 0) pieces.push(COMMA);
    pieces.push(bytes);
  }
  return pieces;
}
