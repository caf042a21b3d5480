import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CompanyCheckResult } from '../../../services/domain/company.ts';
import { SlimResultRow, slimResultRows } from '../../../services/pipeline/slim-result-row.ts';
import { composeFormatted, fromSlim, type SlimAddress, type SlimResults, type SlimRowResult } from '../../../services/pipeline/slim-results.ts';
import { createCommaRecordWriter } from '../../../services/platform/store/embedded/comma-record-bytes.ts';
import { ownRecordWriterOf, recordParts } from '../../../services/platform/store/job-results.ts';
import type { ResultRow } from '../../../services/platform/store/jobs-port.ts';
import { verdictColumnsOf } from '../../../services/platform/store/result-verdicts.ts';

/**
 * A format-2 record written straight from slim rows (services/pipeline/slim-record-bytes.ts;
 * docs/architecture.md "Slim results", "Where a result's stored JSON is made") is byte for byte
 * what the store's own path gives from the CheckResult objects: `results` bytes and `line_ends`
 * as comma-record-bytes.ts writes JSON.stringify of `fromSlim`'s results, the counts of
 * `recordParts`, the verdict columns of `verdictColumnsOf` of those lines. Seeded results of
 * every shape (nulls, labels, composed and carried addresses, phone look-ups with and without
 * name and address, companies, list versions with and without activation), strings with
 * everything JSON.stringify escapes (quotes, backslashes, control characters, lone and paired
 * surrogates) and what it does not (Danish letters, U+2028, DEL), every UTF-16 code unit, rows
 * that share or almost share the row before's head or tail (the writer copies those), runs that
 * span chunks with other labels. No test double: the writer against the path it replaces.
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

/**
 * Bytes as something a failed comparison shows briefly: their length, SHA-256 and text (cut
 * short), so a difference names where the text differs without printing a whole record.
 */
function shown(bytes: Uint8Array): { length: number; sha256: string; text: string } {
  const text = Buffer.from(bytes).toString('latin1');
  return { length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), text: text.length > 2000 ? text.slice(0, 2000) : text };
}

/** Today's path: the lines of recordParts (JSON.stringify of each CheckResult) as the embedded store writes them. */
function reference(rows: readonly ResultRow[]) {
  const parts = recordParts(rows);
  const bytes = createCommaRecordWriter()(parts.results);
  return {
    results: shown(bytes.results),
    line_ends: shown(bytes.line_ends),
    verdicts: verdictColumnsOf(parts.results),
    counts: parts.counts,
  };
}

/** The new path: the run's own record bytes, written from its slim rows. */
function written(rows: readonly ResultRow[]) {
  const own = ownRecordWriterOf(rows)?.(rows);
  if (!own) return null;
  return {
    results: shown(own.results),
    line_ends: shown(own.line_ends),
    verdicts: own.verdicts,
    counts: own.counts,
  };
}

/** A run of rows from a few chunks (each with its own labels), as the projection hands a job's rows to the store. */
function runOf(chunks: SlimResults[]): { slim: SlimResultRow[]; plain: ResultRow[] } {
  const slim: SlimResultRow[] = [];
  const plain: ResultRow[] = [];
  let row = 0;
  for (const c of chunks) {
    const numbered = { ...c, rows: c.rows.map((s) => ({ ...s, row: row++ })) };
    slim.push(...slimResultRows(numbered));
    plain.push(...fromSlim(numbered));
  }
  return { slim, plain };
}

describe('record bytes from the slim form', () => {
  it('writes results, line ends, counts and verdict columns as the store does from the objects (seeded runs of every shape)', () => {
    const { chunk } = generator(21);
    let rows = 0;
    for (let c = 0; c < 1_000; c++) {
      const chunks = Array.from({ length: 1 + (c % 3) }, () => chunk());
      const { slim, plain } = runOf(chunks);
      expect(written(slim)).toEqual(reference(plain));
      rows += slim.length;
    }
    expect(rows).toBeGreaterThan(25_000);
  });

  it('writes every UTF-16 code unit as JSON.stringify does, in every string member', () => {
    const { row } = generator(4);
    const base = row(0, 1);
    const rows: SlimRowResult[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      const s: SlimRowResult = { ...base, row: c, id: `i${ch}` };
      // Each unit also in the members the writer copies from the row before (head, tail) and in the address.
      if (c % 4 === 1) s.address = { input: ch, ok: true, street: ch, house_number: '1', floor: null, door: ch, postal_code: '1000', city: ch, composed: c % 8 === 1, formatted: ch, confidence: 'exact' };
      if (c % 4 === 2) s.phone_lookup = { outcome: 'found', name: ch, address: `${ch}x` };
      if (c % 4 === 3) s.list_version = { id: ch, source: 'private', published_on: '2026-01-01', activated_at: ch };
      rows.push(s);
    }
    for (let start = 0; start < rows.length; start += 1000) {
      const { slim, plain } = runOf([{ labels: ['L\u0000"', 'ø'], rows: rows.slice(start, start + 1000) }]);
      expect(written(slim)).toEqual(reference(plain));
    }
  });

  it('notices a change in any one member after a row it copies from (and across chunks whose label index is the same)', () => {
    const { row } = generator(7);
    const labels = ['Familien "Ø"', 'B'];
    const changed: Array<[keyof SlimRowResult, unknown]> = [
      ['id', 'x"1'], ['id', null], ['status', 'manual'], ['reasons', ['household', 'no_name']], ['reasons', ['household,no_name']], ['level', 'floor'], ['level', null],
      ['match_level', 3], ['match_level', -1], ['match_code', 'surname'], ['match_code', null], ['label', 1], ['label', -1],
      ['on', ['unit']], ['previous_address', true], ['approximate', true], ['stop_level', 4], ['address', null],
      ['phone_lookup', { outcome: 'found', name: 'N\n', address: null }], ['phone_lookup', { outcome: 'unlisted', name: null, address: 'A' }],
      ['company', { id: null, cvr: '1', name: 'Co', status: 'blocked', reasons: ['company_protected'], company_form: null, synced_at: null }],
      ['list_version', { id: 'v2', source: 'private', published_on: '2026-11-01', activated_at: null }], ['list_version', null],
    ];
    const base: SlimRowResult = {
      ...row(0, 2), id: 'a', status: 'allowed', reasons: ['household', 'no_name'], level: 'unit', match_level: 0, match_code: 'none', label: 0, on: [],
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
    const variants: SlimRowResult[] = [
      ...changed.map(([key, value]) => ({ ...base, [key]: value })),
      ...addressChanges.map(([key, value]) => ({ ...base, address: { ...(base.address as SlimAddress), [key]: value, ...(key === 'formatted' ? { composed: false } : {}) } })),
    ];
    const baseBytes = written(runOf([{ labels, rows: [base] }]).slim)!.results;
    for (const variant of variants) {
      for (const chunks of [[{ labels, rows: [base, base, variant, base] }], [{ labels, rows: [base] }, { labels: ['other', 'B'], rows: [base, variant] }]]) {
        const { slim, plain } = runOf(chunks);
        expect(written(slim)).toEqual(reference(plain));
      }
      const { slim, plain } = runOf([{ labels, rows: [variant] }]);
      expect(written(slim)).toEqual(reference(plain));
      if (variant.id === base.id) expect(written(slim)!.results).not.toBe(baseBytes);
    }
  });

  it('grows its buffer for a record larger than it holds', () => {
    const { row } = generator(13);
    const long = '\u0001'.repeat(300_000);
    const rows = [{ ...row(0, 0), id: long }, { ...row(1, 0), address: null, company: null, phone_lookup: { outcome: 'found', name: long, address: null } }];
    const { slim, plain } = runOf([{ labels: [], rows }]);
    expect(written(slim)).toEqual(reference(plain));
  });
});

describe('SlimResultRow (the projection\'s rows of a v6 chunk)', () => {
  it('gives the object fromSlim gives when asked, and then its run has no bytes of its own', () => {
    const { chunk } = generator(5);
    for (let c = 0; c < 100; c++) {
      const slim = chunk();
      const plain = fromSlim(slim);
      const rows = slimResultRows(slim);
      expect(written(rows)).not.toBeNull();
      rows.forEach((r, i) => {
        expect(r.row).toBe(plain[i].row);
        expect(r.cells).toEqual(plain[i].cells);
        expect(JSON.stringify(r.result)).toBe(JSON.stringify(plain[i].result));
      });
      expect(written(rows)).toBeNull();
    }
  });

  it('has no bytes once a result was replaced, and a copy (or a plain row in the run) never carries them', () => {
    const { chunk } = generator(9);
    const slim = chunk();
    const [first, second, third] = slimResultRows({ ...slim, rows: [slim.rows[0], slim.rows[0], slim.rows[0]] });
    expect(written([first, second, third])).not.toBeNull();
    second.result = { ...fromSlim(slim)[0].result, stop_level: 99 };
    expect(written([first, second])).toBeNull();
    expect(written([first])).not.toBeNull();
    // As services/ingest/monitors/run-results.ts copies a row with its change.
    const asRow: ResultRow = third;
    const copy: ResultRow = { ...asRow, result: { ...asRow.result, change: 'released' } };
    expect(written([copy])).toBeNull();
    expect(Object.keys(copy).sort()).toEqual(['cells', 'result', 'row']);
    expect(written([first, copy])).toBeNull();
  });
});
