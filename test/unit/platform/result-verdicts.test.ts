import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verdictColumnsOf, verdictRowsOf } from '../../../services/platform/store/result-verdicts.ts';
import { resultShapeRows } from '../../fixtures/result-shapes.ts';

/**
 * The verdicts stored beside a record's lines (services/platform/store/result-verdicts.ts;
 * docs/architecture.md "Result files") give, for every line, what JSON.parse of the whole line
 * gives for what a result file reads: the id, and everything but the id and the address. On every
 * stored shape, in any key order, with repeated keys, and through the JSON.parse fallback for text
 * JSON.stringify does not write (whitespace, escaped keys). Rows with one verdict share one.
 */
function expected(line: string) {
  const { id = null, address: _address, ...verdict } = JSON.parse(line) as Record<string, unknown>;
  return { id, verdict };
}

function read(lines: string[]) {
  const rows = verdictRowsOf(verdictColumnsOf(lines));
  expect(rows.ids).toHaveLength(lines.length);
  expect(rows.verdicts).toHaveLength(lines.length);
  return rows.ids.map((id, i) => ({ id: JSON.parse(id) as unknown, verdict: JSON.parse(rows.verdicts[i]) as unknown }));
}

describe('verdicts stored beside result lines', () => {
  const results = resultShapeRows(60).map((r) => r.result);

  it('give the id and the verdict JSON.parse gives, on every shape', () => {
    const lines = results.map((r) => JSON.stringify(r));
    expect(read(lines)).toEqual(lines.map(expected));
  });

  it('keep one verdict for rows that differ only in id and address, and number rows by it', () => {
    const [a] = results;
    const rows = [a, { ...a, id: 'another', address: null }, { ...a, status: 'manual' as const }, { ...a, id: null, address: { ...a.address, formatted: 'elsewhere' } }];
    const columns = verdictColumnsOf(rows.map((r) => JSON.stringify(r)));
    expect(columns.verdicts.split('\n')).toHaveLength(2);
    expect(columns.verdict_rows).toBe('0,0,1,0');
    expect(columns.ids.split('\n')).toEqual([JSON.stringify(a.id), '"another"', JSON.stringify(a.id), 'null']);
    // The same text for a line whether it was cut or parsed whole (a record's first sighting decides nothing).
    const alone = verdictColumnsOf([JSON.stringify(rows[3])]);
    expect(alone.verdicts).toBe(columns.verdicts.split('\n')[0]);
  });

  it('read text JSON.stringify does not write through JSON.parse: whitespace, escaped keys, repeated keys, no id', () => {
    const [result] = results;
    const lines = [
      JSON.stringify(result, null, 2).replaceAll('\n', ' '),
      ` ${JSON.stringify(result)}`,
      JSON.stringify(result).replace('"status"', '"st\\u0061tus"'),
      JSON.stringify(result).replace('{', '{"status":"allowed","id":"first",'),
      JSON.stringify({ ...result, id: undefined }),
      JSON.stringify({ ...result, id: 'quote " and \\ back\\\\' }),
      JSON.stringify({ ...result, id: 'Søren Åbø 😀 \u2028' }),
      JSON.stringify({ ...result, id: null }),
      '{}',
      // Members between the address and the phone look-up, nested values in the address, braces in its text.
      '{"id":"x","status":"allowed","address":{"a":1},"status":"blocked","phone_lookup":null}',
      '{"id":"x","status":"allowed","address":null,"change":"released","phone_lookup":null}',
      '{"id":"x","status":"allowed","address":{"a":{"status":"blocked"}},"phone_lookup":null}',
      '{"id":"x","status":"allowed","address":{"a":["x"]},"phone_lookup":null}',
      '{"id":"x","status":"allowed","address":{"input":"Vej 1},\\"status\\":\\"blocked"},"phone_lookup":null}',
      '{"id":"x","address":null,"phone_lookup":null,"status":"manual"}',
      '{"id":"x","phone_lookup":{"outcome":"found","address":null},"address":null,"status":"manual"}',
      // An id or address repeated after the cut: JSON.parse keeps the last.
      '{"id":"x","status":"manual","address":null,"phone_lookup":null,"id":"y"}',
      '{"id":"x","status":"manual","address":null,"phone_lookup":null,"address":{"a":1}}',
    ];
    expect(read(lines)).toEqual(lines.map(expected));
    for (const line of lines) expect(read([line]), line).toEqual([expected(line)]);
  });

  it('give what JSON.parse gives for any object in any key order (property)', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.dictionary(fc.oneof(fc.constantFrom('status', 'reasons', 'match', 'change', 'phone_lookup', 'id', 'address'), fc.string()), value), fc.constantFrom(...results)), { minLength: 1, maxLength: 8 }),
      (rows) => {
        const lines = rows.map(([extra, base]) => JSON.stringify({ ...extra, ...base, ...extra }));
        expect(read(lines)).toEqual(lines.map(expected));
      },
    ), { numRuns: 500 });
  });
});
