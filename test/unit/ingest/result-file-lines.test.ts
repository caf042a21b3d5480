import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createResultLineReader } from '../../../services/ingest/uploads/result-file-lines.ts';
import { resultShapeRows } from '../../fixtures/result-shapes.ts';

/**
 * A stored result line read for a result file (docs/architecture.md "Result files") gives what
 * JSON.parse of the whole line gives for the fields the file reads: the id and the verdict fields,
 * on every stored shape, in any key order, with repeated keys, and through the JSON.parse fallback
 * for text JSON.stringify does not write (whitespace, escaped keys).
 */
const VERDICT_FIELDS = ['status', 'reasons', 'match', 'list_version', 'change', 'company', 'phone_lookup'] as const;

function expected(line: string) {
  const whole = JSON.parse(line) as Record<string, unknown>;
  return { id: whole.id, verdict: Object.fromEntries(VERDICT_FIELDS.filter((f) => f in whole).map((f) => [f, whole[f]])) };
}

/** A line as JobStore.readResultsBinary gives it: its UTF-8 bytes, one character each. */
const binaryOf = (line: string) => Buffer.from(line, 'utf8').toString('latin1');

function actual(read: ReturnType<typeof createResultLineReader>, line: string, binary: boolean) {
  const { id, result } = read(binary ? binaryOf(line) : line);
  const picked = result as unknown as Record<string, unknown>;
  return { id, verdict: Object.fromEntries(VERDICT_FIELDS.filter((f) => f in picked).map((f) => [f, picked[f]])) };
}

describe.each([false, true])('stored result lines read for a result file (binary strings: %s)', (binary) => {
  const results = resultShapeRows(60).map((r) => r.result);

  it('gives the id and verdict fields JSON.parse gives, on every shape, cached or not', () => {
    const read = createResultLineReader({ binary });
    for (const pass of [1, 2]) {
      for (const result of results) {
        const line = JSON.stringify(result);
        expect(actual(read, line, binary), `pass ${pass}: ${line}`).toEqual(expected(line));
      }
    }
  });

  it('shares one result object between rows with the same verdict, on every stored shape', () => {
    const read = createResultLineReader({ binary });
    for (const result of results) {
      const other = { ...result, id: `${result.id ?? ''}-other`, address: result.address === null ? null : { ...result.address, formatted: 'elsewhere' } };
      const as = (r: unknown) => (binary ? binaryOf(JSON.stringify(r)) : JSON.stringify(r));
      expect(read(as(other)).result, JSON.stringify(result)).toBe(read(as(result)).result);
    }
    const [a, b] = [results[0], { ...results[0], id: 'another', address: null }];
    const line = (r: unknown) => (binary ? binaryOf(JSON.stringify(r)) : JSON.stringify(r));
    expect(read(line(a)).result).toBe(read(line(b)).result);
    expect(read(line({ ...a, status: 'manual' })).result).not.toBe(read(line(a)).result);
    // Right after a row with the same members before the address, one that differs after it.
    expect(read(line({ ...a, change: 'released' })).result.change).toBe('released');
    expect(read(line({ ...a, change: 'released' })).result.change).toBe('released');
    expect(read(line(a)).result.change).toBeUndefined();
  });

  it('reads text JSON.stringify does not write through JSON.parse: whitespace, escaped keys, repeated keys, no id', () => {
    const read = createResultLineReader({ binary });
    const [result] = results;
    const lines = [
      JSON.stringify(result, null, 2),
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
    ];
    for (const line of lines) expect(actual(read, line, binary), line).toEqual(expected(line));
  });

  it('gives what JSON.parse gives for any object in any key order (property)', () => {
    const read = createResultLineReader({ binary });
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(fc.property(
      fc.dictionary(fc.oneof(fc.constantFrom(...VERDICT_FIELDS, 'id', 'address'), fc.string()), value),
      fc.shuffledSubarray(results, { minLength: 1, maxLength: 1 }),
      (extra, [base]) => {
        const line = JSON.stringify({ ...extra, ...base, ...extra });
        expect(actual(read, line, binary)).toEqual(expected(line));
      },
    ), { numRuns: 500 });
  });
});
