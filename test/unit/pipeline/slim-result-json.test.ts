import { describe, expect, it } from 'vitest';
import type { CompanyCheckResult } from '../../../services/domain/company.ts';
import { createSlimResultWriter, jsonString } from '../../../services/pipeline/slim-result-json.ts';
import { SlimResultRow, slimResultRows } from '../../../services/pipeline/slim-result-row.ts';
import { composeFormatted, fromSlim, type SlimAddress, type SlimResults, type SlimRowResult } from '../../../services/pipeline/slim-results.ts';
import { COMMA_RECORD_FORMAT, recordParts, resultRecords, RESULT_RECORD_FORMAT, WRITTEN_RESULT, type WrittenResult } from '../../../services/platform/store/job-results.ts';
import type { ResultRow } from '../../../services/platform/store/jobs-port.ts';

/**
 * A slim result's stored line written from the slim form (docs/architecture.md "Slim results",
 * "Result JSON from the slim form") is byte for byte `JSON.stringify(fromSlim(...)[i].result)`:
 * seeded results of every shape (nulls, labels, composed and carried addresses, phone look-ups
 * with and without name and address, companies, list versions with and without activation),
 * strings with everything JSON.stringify escapes (quotes, backslashes, control characters, lone
 * and paired surrogates) and what it does not (Danish letters, U+2028, DEL), rows of a chunk that
 * share or almost share a verdict (the writer reuses the last row's). No test double: the writer
 * against the reference it replaces.
 */

/** mulberry32: a small seeded generator, so a failing case is the same case on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['allowed', 'blocked', 'manual'] as const;
const REASONS = ['name_and_address', 'name_and_unit', 'household', 'partial_name', 'previous_address', 'address_unreadable', 'address_not_found', 'no_name', 'company_protected', 'phone_unlisted', 'phone_not_found', 'list_not_ready'] as const;
const LEVELS = ['unit', 'floor', 'building', 'previous', 'none'] as const;
const CODES = ['none', 'household', 'surname', 'given_name', 'name_building', 'name_address'] as const;
const ON = ['first_name', 'last_name', 'address', 'unit'] as const;
const CONFIDENCES = ['exact', 'corrected', 'unresolved'] as const;
const OUTCOMES = ['found', 'unlisted', 'not_found'] as const;
const SOURCES = ['dk-robinson', 'private', 'nix'];

/** Characters JSON.stringify treats each its own way, and plain ones around them. */
const AWKWARD = ['"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\u2029',
  '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00', 'æ', 'ø', 'å', 'Å', 'é', ' ', ',', '.', '{', '}', '[', ']', ':', '€', '\ufeff', '\ufffd'];
const PLAIN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -';

function generator(seed: number) {
  const next = random(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const chance = (p: number) => next() < p;
  const text = (): string => {
    const length = int(chance(0.1) ? 40 : 12);
    let out = '';
    for (let i = 0; i < length; i++) out += chance(0.15) ? pick(AWKWARD) : PLAIN[int(PLAIN.length)];
    // A lone high surrogate at the very end, or a low one at the start.
    if (chance(0.03)) out += '\ud83d';
    if (chance(0.03)) out = '\ude00' + out;
    return out;
  };
  const orNull = (p = 0.3) => (chance(p) ? null : text());
  const list = <T>(items: readonly T[], max: number): T[] => Array.from({ length: int(max + 1) }, () => pick(items));

  const address = (): SlimAddress => {
    const a = {
      input: text(), ok: chance(0.7), street: orNull(0.15), house_number: orNull(0.15), floor: orNull(0.5), door: orNull(0.5),
      postal_code: orNull(0.15), city: orNull(0.2),
    };
    // Composed (formatted left out, composed again on reading, null when the parts cannot compose) or carried.
    const composed = chance(0.6);
    return { ...a, composed, formatted: composed ? null : chance(0.3) ? composeFormatted(a) : orNull(0.3), confidence: pick(CONFIDENCES) };
  };
  const company = (): CompanyCheckResult => ({
    id: orNull(), cvr: orNull(), name: orNull(), status: pick(STATUSES), reasons: list(REASONS, 2), company_form: orNull(), synced_at: orNull(),
  });

  const row = (index: number, labelCount: number): SlimRowResult => ({
    row: index,
    cells: chance(0.5) ? null : Array.from({ length: int(4) }, () => orNull()),
    id: orNull(0.2),
    status: pick(STATUSES),
    reasons: list(REASONS, 3),
    level: chance(0.4) ? null : pick(LEVELS),
    match_level: chance(0.4) ? -1 : int(6),
    match_code: chance(0.3) ? null : pick(CODES),
    label: labelCount === 0 || chance(0.4) ? -1 : int(labelCount),
    on: list(ON, 4),
    previous_address: chance(0.2),
    approximate: chance(0.2),
    stop_level: int(6),
    address: chance(0.15) ? null : address(),
    phone_lookup: chance(0.7) ? null : { outcome: pick(OUTCOMES), name: orNull(0.5), address: orNull(0.5) },
    company: chance(0.8) ? null : company(),
    list_version: chance(0.2) ? null : { id: text(), source: pick(SOURCES), published_on: text(), activated_at: orNull(0.5) },
  });

  /** One member of a row changed to another value of its kind (how rows of a chunk differ from the one before). */
  const vary = (s: SlimRowResult, index: number, labelCount: number): SlimRowResult => {
    const other = row(index, labelCount);
    const keys = Object.keys(s) as Array<keyof SlimRowResult>;
    const key = pick(keys.filter((k) => k !== 'row'));
    return { ...s, row: index, [key]: other[key] };
  };

  /** A chunk: a few labels, rows drawn fresh, repeated or varied from the one before (the writer's reuse). */
  const chunk = (): SlimResults => {
    const labels = Array.from({ length: int(4) }, () => text());
    const rows: SlimRowResult[] = [];
    const size = 1 + int(30);
    for (let i = 0; i < size; i++) {
      const before = rows.at(-1);
      const choice = next();
      if (!before || choice < 0.4) rows.push(row(i, labels.length));
      else if (choice < 0.7) rows.push({ ...before, row: i, id: orNull(0.2), address: chance(0.15) ? null : address() });
      else rows.push(vary(before, i, labels.length));
    }
    return { labels, rows };
  };
  return { chunk, row, text };
}

/** The reference: the full form's CheckResult as JSON.stringify writes it. */
const reference = (slim: SlimResults): string[] => fromSlim(slim).map((r) => JSON.stringify(r.result));

describe('result JSON from the slim form', () => {
  it('writes strings as JSON.stringify does, whatever they hold', () => {
    const { text } = generator(1);
    for (let i = 0; i < 20_000; i++) {
      const s = text();
      expect(jsonString(s)).toBe(JSON.stringify(s));
    }
    for (const s of AWKWARD) expect(jsonString(s)).toBe(JSON.stringify(s));
    for (let c = 0; c < 0x10000; c++) expect(jsonString(String.fromCharCode(c))).toBe(JSON.stringify(String.fromCharCode(c)));
  });

  it('writes every row byte for byte as JSON.stringify of fromSlim does (seeded chunks of every shape)', () => {
    const { chunk } = generator(21);
    let rows = 0;
    for (let c = 0; c < 1_500; c++) {
      const slim = chunk();
      const write = createSlimResultWriter(slim.labels);
      const expected = reference(slim);
      slim.rows.forEach((s, i) => expect(write(s)).toBe(expected[i]));
      rows += slim.rows.length;
    }
    expect(rows).toBeGreaterThan(15_000);
  });

  it('reads every member: a change to any one of them changes the line as it changes the reference', () => {
    const { row } = generator(7);
    const labels = ['Familien "Ø"', 'B'];
    const changed: Array<[keyof SlimRowResult, unknown]> = [
      ['id', 'x"1'], ['id', null], ['status', 'manual'], ['reasons', ['household', 'no_name']], ['level', 'floor'], ['level', null],
      ['match_level', 3], ['match_level', -1], ['match_code', 'surname'], ['match_code', null], ['label', 1], ['label', -1],
      ['on', ['unit']], ['previous_address', true], ['approximate', true], ['stop_level', 4], ['address', null],
      ['phone_lookup', { outcome: 'found', name: 'N\n', address: null }], ['phone_lookup', { outcome: 'unlisted', name: null, address: 'A' }],
      ['company', { id: null, cvr: '1', name: 'Co', status: 'blocked', reasons: ['company_protected'], company_form: null, synced_at: null }],
      ['list_version', { id: 'v2', source: 'private', published_on: '2026-11-01', activated_at: null }], ['list_version', null],
    ];
    const base: SlimRowResult = {
      ...row(0, 2), id: 'a', status: 'allowed', reasons: [], level: 'unit', match_level: 0, match_code: 'none', label: 0, on: [],
      previous_address: false, approximate: false, stop_level: 1, phone_lookup: null, company: null,
      address: {
        input: 'Vej 1', ok: true, street: 'Vej', house_number: '1', floor: null, door: null, postal_code: '1000', city: 'By',
        composed: true, formatted: null, confidence: 'exact',
      },
      list_version: { id: 'v1', source: 'dk-robinson', published_on: '2026-10-01', activated_at: '2026-10-02T00:00:00Z' },
    };
    const addressChanges: Array<[keyof SlimAddress, unknown]> = [
      ['input', 'Vej 2'], ['ok', false], ['street', 'Gade'], ['street', null], ['house_number', '2'], ['floor', '3'], ['door', 'tv'],
      ['postal_code', '2000'], ['city', null], ['composed', false], ['formatted', 'Vej 1, Skee, 1000 By'], ['confidence', 'corrected'],
    ];
    const baseLine = createSlimResultWriter(labels)(base);
    expect(baseLine).toBe(reference({ labels, rows: [base] })[0]);
    const variants: SlimRowResult[] = [
      ...changed.map(([key, value]) => ({ ...base, [key]: value })),
      ...addressChanges.map(([key, value]) => ({ ...base, address: { ...(base.address as SlimAddress), [key]: value, ...(key === 'formatted' ? { composed: false } : {}) } })),
    ];
    // Each variant alone, and after the base (the writer's reuse of the row before must notice the change).
    for (const variant of variants) {
      const alone = createSlimResultWriter(labels)(variant);
      const write = createSlimResultWriter(labels);
      write(base);
      const after = write(variant);
      const expected = reference({ labels, rows: [variant] })[0];
      expect(alone).toBe(expected);
      expect(after).toBe(expected);
      expect(after).not.toBe(baseLine);
    }
  });

  it('refuses a row naming a label the chunk does not hold', () => {
    const { row } = generator(3);
    expect(() => createSlimResultWriter(['a'])({ ...row(0, 1), label: 1 })).toThrow(RangeError);
  });
});

describe('SlimResultRow (the projection\'s rows of a v6 chunk)', () => {
  const written = (r: ResultRow): WrittenResult | null => {
    const into: WrittenResult = { line: '', status: 'allowed', level: null };
    const write = (r as ResultRow & { [WRITTEN_RESULT]?: (into: WrittenResult) => boolean })[WRITTEN_RESULT];
    return write !== undefined && write.call(r, into) ? into : null;
  };

  it('writes its line, status and level from the slim form, and gives the object fromSlim gives when asked', () => {
    const { chunk } = generator(5);
    for (let c = 0; c < 200; c++) {
      const slim = chunk();
      const plain = fromSlim(slim);
      const rows = slimResultRows(slim);
      rows.forEach((r, i) => {
        const w = written(r);
        expect(w).toEqual({ line: JSON.stringify(plain[i].result), status: plain[i].result.status, level: plain[i].result.match.level });
        expect(r.row).toBe(plain[i].row);
        expect(r.cells).toEqual(plain[i].cells);
        expect(JSON.stringify(r.result)).toBe(JSON.stringify(plain[i].result));
      });
    }
  });

  it('writes no line of its own once its result was handed out or replaced, and a copy never carries it', () => {
    const { chunk } = generator(9);
    const slim = chunk();
    const [first, second, third] = slimResultRows({ ...slim, rows: [slim.rows[0], slim.rows[0], slim.rows[0]] });
    expect(written(first)).not.toBeNull();
    (first.result as { status: string }).status = 'changed';
    expect(written(first)).toBeNull();
    second.result = { ...second.result, stop_level: 99 };
    expect(written(second)).toBeNull();
    // As services/ingest/monitors/run-results.ts copies a row with its change.
    const asRow: ResultRow = third;
    const copy: ResultRow = { ...asRow, result: { ...asRow.result, change: 'released' } };
    expect(written(copy)).toBeNull();
    expect(Object.keys(copy).sort()).toEqual(['cells', 'result', 'row']);
    expect(third).toBeInstanceOf(SlimResultRow);
  });

  it('makes the same records as the full form, in both record formats (counts, lines, cells, verdict columns)', () => {
    const { chunk } = generator(11);
    for (let c = 0; c < 100; c++) {
      const slim = chunk();
      // Rows numbered on, across a record boundary now and then.
      const start = c * 13 + 990;
      const numbered = { ...slim, rows: slim.rows.map((s, i) => ({ ...s, row: start + i })) };
      const plain = fromSlim(numbered);
      expect(recordParts(slimResultRows(numbered))).toEqual(recordParts(plain));
      for (const format of [RESULT_RECORD_FORMAT, COMMA_RECORD_FORMAT]) {
        expect(resultRecords(slimResultRows(numbered), () => false, format)).toEqual(resultRecords(plain, () => false, format));
      }
    }
  });
});
