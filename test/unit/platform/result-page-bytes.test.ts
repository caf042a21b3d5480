import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMA_RECORD_FORMAT, pageOfRecords, RESULT_RECORD_FORMAT, resultRecords, UnknownRecordFormatError, type ResultRecord } from '../../../services/platform/store/job-results.ts';
import { pageBytesOfRecords, type ByteRecord } from '../../../services/platform/store/result-page-bytes.ts';
import { RowBinaryReader } from '../../../services/platform/store/clickhouse/row-binary.ts';
import { resultShapeRows } from '../../fixtures/result-shapes.ts';

/**
 * A page cut from the records' bytes (docs/architecture.md "Results pages") is the page cut from
 * their text, joined with commas, byte for byte: same rows, same `more`, on every result shape,
 * for every cursor and limit, records of one row to a thousand, with gaps between rows, in both
 * record formats (format 1, newline-separated; format 2, stored comma-joined with its line ends):
 * the expected page is always format 1's text page, so format 2 must give the very same bytes.
 */
function asBytes(records: readonly ResultRecord[]): ByteRecord[] {
  return records.map((r) => ({
    first_row: r.first_row, last_row: r.last_row, record_format: r.record_format, results: Buffer.from(r.results, 'utf8'), line_ends: r.line_ends,
  }));
}

function textPage(records: readonly ResultRecord[], after: number, limit: number) {
  const page = pageOfRecords(records.filter((r) => r.last_row > after), after, limit);
  return { json: Buffer.from(page.rows.map((r) => r.result).join(','), 'utf8'), count: page.rows.length, last_row: page.rows.at(-1)?.row ?? -1, more: page.more };
}

function bytesPage(records: readonly ResultRecord[], after: number, limit: number) {
  const { pieces, ...cut } = pageBytesOfRecords(asBytes(records.filter((r) => r.last_row > after)), after, limit);
  return { json: Buffer.concat(pieces()), ...cut };
}

describe.each([RESULT_RECORD_FORMAT, COMMA_RECORD_FORMAT])('results pages cut from record bytes (records of format %i)', (format) => {
  // 1,200 rows of every shape in records of up to 1,000 rows (cut where rows have gaps).
  const rows = resultShapeRows(1200);
  const lines = resultRecords(rows, () => false);
  const records = resultRecords(rows, () => false, format);

  // Cursors at and around every record's ends (where a page starts or stops inside a record, at
  // its edge, or in a gap), every 23rd row, before the first and past the last row.
  const cursors = new Set([-1, rows.at(-1)!.row + 5]);
  for (const r of records) for (const at of [r.first_row - 1, r.first_row, r.first_row + 1, r.last_row - 1, r.last_row]) cursors.add(at);
  for (const r of rows) if (r.row % 23 === 0) cursors.add(r.row);

  it('equal the format-1 text page joined with commas at every record edge (limits 1, 2, 37, 1,000, 10,000)', () => {
    expect(records.length).toBeGreaterThan(30);
    expect(records.every((r) => r.record_format === format)).toBe(true);
    for (const limit of [1, 2, 37, 1000, 10_000]) {
      for (const after of cursors) {
        const expected = textPage(lines, after, limit);
        const actual = bytesPage(records, after, limit);
        expect(actual.count).toBe(expected.count);
        expect(actual.more).toBe(expected.more);
        expect(actual.last_row).toBe(expected.last_row);
        if (!actual.json.equals(expected.json)) expect(actual.json.toString('utf8')).toBe(expected.json.toString('utf8'));
        // The text page of these records (readResults, readResultsJson) is the same too.
        const text = textPage(records, after, limit);
        if (!text.json.equals(expected.json)) expect(text.json.toString('utf8')).toBe(expected.json.toString('utf8'));
      }
    }
  });

  it('is valid JSON holding exactly the stored results', () => {
    const page = bytesPage(records, -1, 10_000);
    expect(JSON.parse(`[${page.json.toString('utf8')}]`)).toEqual(rows.map((r) => r.result));
  });

  it('equal the format-1 text page for records of any size and any cursor (property)', () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: -1, max: 200 }), fc.integer({ min: 1, max: 60 }),
      (sizes, after, limit) => {
        // Records of the given sizes, one row missing between consecutive records.
        const asLines: ResultRecord[] = [];
        const cut: ResultRecord[] = [];
        let row = 0;
        for (const size of sizes) {
          const run = resultShapeRows(size).map((r, i) => ({ ...r, row: row + i }));
          asLines.push(...resultRecords(run, () => false));
          cut.push(...resultRecords(run, () => false, format));
          row += size + 1;
        }
        const expected = textPage(asLines, after, limit);
        const actual = bytesPage(cut, after, limit);
        expect({ ...actual, json: actual.json.toString('utf8') }).toEqual({ ...expected, json: expected.json.toString('utf8') });
      },
    ), { numRuns: 300 });
  });

  it('serves the records\' own bytes: pieces are views of them, not copies', () => {
    const [record] = asBytes(resultRecords(resultShapeRows(5), () => false, format));
    const pieces = pageBytesOfRecords([record], 1, 2).pieces();
    expect(pieces).toHaveLength(1);
    expect(pieces[0].buffer).toBe(record.results.buffer);
    expect(JSON.parse(`[${pieces[0].toString('utf8')}]`)).toHaveLength(2);
  });
});

describe('results pages cut from record bytes', () => {
  it('serve a format-2 record taken whole as its bytes, unchanged', () => {
    const [record] = asBytes(resultRecords(resultShapeRows(5), () => false, COMMA_RECORD_FORMAT));
    const before = Buffer.from(record.results);
    const pieces = pageBytesOfRecords([record], -1, 10).pieces();
    expect(pieces).toHaveLength(1);
    expect(pieces[0].equals(before)).toBe(true);
  });

  it('refuse a format-2 record whose line ends do not match its rows, rather than cut it wrong', () => {
    const [record] = asBytes(resultRecords(resultShapeRows(5), () => false, COMMA_RECORD_FORMAT));
    expect(() => pageBytesOfRecords([{ ...record, line_ends: record.line_ends!.subarray(4) }], 1, 2)).toThrow(/line ends/);
    expect(() => pageBytesOfRecords([{ ...record, line_ends: null }], 1, 2)).toThrow(/line ends/);
  });

  it('refuses a record format it does not know, as the text page does', () => {
    const [record] = resultRecords(resultShapeRows(3), () => false);
    const later = { ...record, record_format: RESULT_RECORD_FORMAT + 98 };
    expect(() => pageOfRecords([later], -1, 10)).toThrow(UnknownRecordFormatError);
    expect(() => pageBytesOfRecords(asBytes([later]), -1, 10)).toThrow(UnknownRecordFormatError);
  });

});

describe('RowBinary reader', () => {
  it('reads UInt32, UInt8 and strings of every length class (1- to 3-byte LEB128 lengths)', () => {
    const values = ['', 'a', 'x'.repeat(127), 'y'.repeat(128), 'ø'.repeat(9000), 'z'.repeat(300_000)];
    const parts: Buffer[] = [];
    for (const [i, value] of values.entries()) {
      const head = Buffer.alloc(5);
      head.writeUInt32LE(0xfffffff0 + i);
      head[4] = i;
      const bytes = Buffer.from(value, 'utf8');
      const length: number[] = [];
      for (let n = bytes.length; ; n = Math.floor(n / 128)) {
        length.push(n >= 128 ? (n % 128) | 0x80 : n);
        if (n < 128) break;
      }
      parts.push(head, Buffer.from(length), bytes);
    }
    const reader = new RowBinaryReader(Buffer.concat(parts));
    for (const [i, value] of values.entries()) {
      expect(reader.uint32()).toBe(0xfffffff0 + i);
      expect(reader.uint8()).toBe(i);
      expect(reader.string().toString('utf8')).toBe(value);
    }
    expect(reader.done).toBe(true);
  });

  it('throws on an answer cut inside a value instead of reading past it', () => {
    expect(() => new RowBinaryReader(Buffer.from([1, 2, 3])).uint32()).toThrow(RangeError);
    expect(() => new RowBinaryReader(Buffer.from([5, 0x61, 0x62])).string()).toThrow(RangeError);
  });
});
