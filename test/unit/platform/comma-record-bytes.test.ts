import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMA_RECORD_FORMAT, recordParts, resultRecords, resultRuns } from '../../../services/platform/store/job-results.ts';
import { createCommaRecordWriter } from '../../../services/platform/store/embedded/comma-record-bytes.ts';
import { resultShapeRows } from '../../fixtures/result-shapes.ts';

/**
 * The embedded store writes format-2 records as bytes (comma-record-bytes.ts); they must be the
 * very bytes of the text format 2 is defined by (job-results.ts recordOf: the lines joined with
 * commas, each line's UTF-8 end), so records stored before and after read the same.
 */
describe('format-2 record bytes', () => {
  it('are the comma-joined lines and their UTF-8 ends, record after record from one writer', () => {
    // Every result shape (addresses with æøå, company and phone names), records of up to 1,000 rows.
    const rows = resultShapeRows(2500);
    const expected = resultRecords(rows, () => false, COMMA_RECORD_FORMAT);
    const write = createCommaRecordWriter();
    const runs = resultRuns(rows, () => false);
    expect(runs.length).toBe(expected.length);
    runs.forEach((run, i) => {
      const bytes = write(recordParts(run).results);
      expect(Buffer.from(bytes.results).toString('utf8')).toBe(expected[i].results);
      expect(Buffer.from(bytes.results).equals(Buffer.from(expected[i].results, 'utf8'))).toBe(true);
      expect(Buffer.from(bytes.line_ends).equals(Buffer.from(expected[i].line_ends!))).toBe(true);
    });
  });

  it('grow past the first buffer and keep lines of any text (multi-byte, surrogate pairs, empty)', () => {
    const write = createCommaRecordWriter();
    fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 400 }), { minLength: 1, maxLength: 40 }), fc.nat(3000), (texts, repeat) => {
      // A long last line now and then makes the writer grow its buffer mid-record.
      const lines = texts.map((t, i) => JSON.stringify(i === texts.length - 1 ? t.repeat(repeat + 1) : t));
      const bytes = write(lines);
      expect(Buffer.from(bytes.results).toString('utf8')).toBe(lines.join(','));
      let end = -1;
      lines.forEach((line, i) => {
        end += 1 + Buffer.byteLength(line, 'utf8');
        expect(Buffer.from(bytes.line_ends).readUInt32LE(i * 4)).toBe(end);
      });
    }), { numRuns: 200 });
  });

  it('grow mid-record and keep what was written before (a record larger than the first buffer)', () => {
    const write = createCommaRecordWriter();
    // 2,000 lines of 1,000 two-byte characters: ~4 MB, so the buffer grows with most of it written.
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify(`${i}${'ø'.repeat(1000)}`));
    const bytes = write(lines);
    expect(Buffer.from(bytes.results).equals(Buffer.from(lines.join(','), 'utf8'))).toBe(true);
    expect(Buffer.from(bytes.line_ends).readUInt32LE(1999 * 4)).toBe(bytes.results.byteLength);
  });
});
