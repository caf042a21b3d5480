import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coveredBy, pageOfRecords, recordParts, RESULT_RECORD_ROWS, resultRecords, sumCounts, type ResultRecord } from '../../../services/platform/store/job-results.ts';
import type { ResultRow } from '../../../services/platform/store/jobs-port.ts';

/**
 * Result records (docs/platform-clickhouse-registry.md "Result records"): whatever mix of new and
 * redelivered rows is put, in whatever batches, the records hold every row exactly once, never
 * cross a RESULT_RECORD_ROWS block, their counts add up to the rows, and pages cut from them give
 * the rows in order.
 */
const statuses = ['allowed', 'blocked', 'manual'] as const;

function rowOf(row: number): ResultRow {
  return {
    row,
    cells: row % 2 === 0 ? [`c${row}`, null] : null,
    result: { id: `r${row}`, status: statuses[row % 3], match: { level: row % 7 === 6 ? null : row % 6 } } as unknown as ResultRow['result'],
  };
}

describe('result records', () => {
  it("take a row's line made with its result, and write the line again for a result replaced since (a monitor's change)", () => {
    const made = rowOf(1);
    const text = JSON.stringify(made.result);
    const kept: ResultRow = { ...made, line: { text, of: made.result } };
    // What a monitor run does: the row copied, its result replaced by one with `change`.
    const replaced: ResultRow = { ...kept, row: 2, result: { ...made.result, change: 'newly_blocked' } };
    const parts = recordParts([kept, replaced]);
    expect(parts.results[0]).toBe(text);
    expect(parts.results[1]).toBe(JSON.stringify(replaced.result));
    expect(JSON.parse(parts.results[1]).change).toBe('newly_blocked');
  });

  it('store every row once, within blocks, with exact counts, for any batches of new and repeated rows', () => {
    fc.assert(fc.property(
      fc.array(fc.array(fc.integer({ min: 0, max: 3 * RESULT_RECORD_ROWS }), { maxLength: 300 }), { minLength: 1, maxLength: 8 }),
      (batches) => {
        const stored: ResultRecord[] = [];
        const expected = new Set<number>();
        for (const batch of batches) {
          stored.push(...resultRecords(batch.map(rowOf), coveredBy(stored)));
          for (const row of batch) expected.add(row);
        }
        const rows = stored.flatMap((r) => Array.from({ length: r.last_row - r.first_row + 1 }, (_, i) => r.first_row + i));
        expect(rows.length).toBe(expected.size);
        expect(new Set(rows)).toEqual(expected);
        for (const r of stored) {
          expect(Math.floor(r.first_row / RESULT_RECORD_ROWS)).toBe(Math.floor(r.last_row / RESULT_RECORD_ROWS));
          expect(r.results.split('\n')).toHaveLength(r.last_row - r.first_row + 1);
        }
        const counts = sumCounts(stored.map((r) => r.counts));
        expect(counts.processed).toBe(expected.size);
        expect(counts.blocked).toBe([...expected].filter((row) => row % 3 === 1).length);
        expect(counts.level_counts.unread).toBe([...expected].filter((row) => row % 7 === 6).length);

        // Paged with a small limit, in record order: every row once, in order, with its cells.
        const ordered = [...stored].sort((a, b) => a.first_row - b.first_row);
        const seen: number[] = [];
        let after = -1;
        for (;;) {
          const page = pageOfRecords(ordered, after, 97);
          for (const r of page.rows) {
            expect(JSON.parse(r.result).id).toBe(`r${r.row}`);
            expect(JSON.parse(r.cells)).toEqual(rowOf(r.row).cells);
            seen.push(r.row);
          }
          if (!page.more) break;
          after = page.rows.at(-1)!.row;
        }
        expect(seen).toEqual([...expected].sort((a, b) => a - b));
      },
    ), { numRuns: 200 });
  });
  it('rows given in order (the projection\'s case, no sort) make the same records as the same rows shuffled, counts by status and level exact', () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 2 * RESULT_RECORD_ROWS }), fc.integer({ min: 1, max: 2500 }), fc.integer(),
      (start, length, seed) => {
        const inOrder = Array.from({ length }, (_, i) => rowOf(start + i));
        const shuffled = [...inOrder];
        let state = seed >>> 0;
        for (let i = shuffled.length - 1; i > 0; i--) {
          state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
          const j = state % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
        }
        const records = resultRecords(inOrder, () => false);
        expect(resultRecords(shuffled, () => false)).toEqual(records);
        const counts = sumCounts(records.map((r) => r.counts));
        for (const status of statuses) expect(counts[status]).toBe(inOrder.filter((r) => r.result.status === status).length);
        for (const level of [0, 1, 2, 3, 4, 5] as const) {
          expect(counts.level_counts[level]).toBe(inOrder.filter((r) => r.result.match.level === level).length);
        }
        // A record whose first rows have no cells and later ones do: one line per row all the same.
        for (const r of records) {
          const lines = r.cells === null ? null : r.cells.split('\n');
          for (let row = r.first_row; row <= r.last_row; row++) {
            expect(lines === null ? null : JSON.parse(lines[row - r.first_row])).toEqual(lines === null ? null : rowOf(row).cells);
          }
        }
      },
    ), { numRuns: 100 });
  });
});
