import { describe, expect, it } from 'vitest';
import { createResultFileVerdicts } from '../../../services/ingest/uploads/result-file-lines.ts';

/**
 * A result file's verdict and id texts read (docs/architecture.md "Result files"): each verdict
 * text parsed once, rows with the same text sharing one object (the CSV writer encodes a verdict
 * once per object), ids as JSON.parse reads them.
 */
describe('a result file\'s verdicts and ids', () => {
  it('parses each verdict text once and shares the object between its rows, also after another verdict', () => {
    const read = createResultFileVerdicts();
    const blocked = '{"status":"blocked","reasons":[]}';
    const allowed = '{"status":"allowed","reasons":[]}';
    const first = read.verdict(blocked);
    expect(first).toEqual({ status: 'blocked', reasons: [] });
    expect(read.verdict(`{"status":"blocked",${'"reasons":[]}'}`)).toBe(first);
    expect(read.verdict(allowed)).toEqual({ status: 'allowed', reasons: [] });
    expect(read.verdict(blocked)).toBe(first);
    expect(read.verdict(allowed)).not.toBe(first);
  });

  it('reads ids as JSON.parse does, plain or escaped', () => {
    const read = createResultFileVerdicts();
    for (const id of ['r1', '', 'Søren 😀 \u2028', 'quote " and \\ back\\\\', '\u0000\u001f']) expect(read.id(JSON.stringify(id))).toBe(id);
    expect(read.id('null')).toBeNull();
  });
});
