/**
 * The slim form of a results chunk (ResultsChunk v6, docs/architecture.md "Slim results"): what the
 * matcher writes to checks.results and the projection reads back. Pure conversion, no I/O.
 *
 * The same information as the full CheckResult, in fewer and cheaper Avro values: codes, levels,
 * reasons and outcomes are enums (Avro writes an int, not the text), the match label is an index
 * into the chunk's few distinct labels, a null number or index is -1 instead of a union, the match
 * is flattened into the row, and a formatted address that is the plain composition of its own
 * parts is left out and composed again on reading. `fromSlim` gives back exactly what decoding a
 * v5 chunk gave (same values, same key order), so stored results and every answer built from them
 * are unchanged (the results' SHA-256 of `npm run bench`).
 */
import type { CompanyCheckResult } from '../domain/company.ts';
import type { CheckResult, ListVersionRef, ResolvedAddress } from '../domain/types.ts';
import { WireFormatError } from '../platform/schema-registry/port.ts';
import type { RowResult } from './events.ts';

/** The Avro record SlimResults of ResultsChunk v6 (schemas/checks.results/ResultsChunk.v6.avsc). */
export interface SlimResults {
  labels: string[];
  rows: SlimRowResult[];
}

export interface SlimRowResult {
  row: number;
  cells: Array<string | null> | null;
  id: string | null;
  status: CheckResult['status'];
  reasons: CheckResult['reasons'];
  level: CheckResult['level'];
  /** -1: null. */
  match_level: number;
  match_code: CheckResult['match']['code'];
  /** Index into SlimResults.labels; -1: null. */
  label: number;
  on: CheckResult['match']['on'];
  previous_address: boolean;
  approximate: boolean;
  stop_level: number;
  address: SlimAddress | null;
  phone_lookup: { outcome: string; name: string | null; address: string | null } | null;
  company: CompanyCheckResult | null;
  list_version: { id: string; source: string; published_on: string; activated_at: string | null } | null;
}

export interface SlimAddress {
  input: string;
  ok: boolean;
  street: string | null;
  house_number: string | null;
  floor: string | null;
  door: string | null;
  postal_code: string | null;
  city: string | null;
  /** True: `formatted` equals `composeFormatted` of the parts and is not carried. */
  composed: boolean;
  formatted: string | null;
  confidence: ResolvedAddress['confidence'];
}

/**
 * "Gammel Kongevej 12A, 3. tv, 1610 København V" from the parts, as services/domain/resolve.ts
 * writes it (the register's form with a town name differs and is then carried as written).
 */
export function composeFormatted(a: Pick<ResolvedAddress, 'street' | 'house_number' | 'floor' | 'door' | 'postal_code' | 'city'>): string | null {
  if (a.street === null || a.house_number === null || a.postal_code === null) return null;
  let out = a.street + ' ' + a.house_number;
  if (a.floor !== null || a.door !== null) {
    out += ', ';
    if (a.floor !== null) out += a.floor + '.';
    if (a.door !== null) out += (a.floor !== null ? ' ' : '') + a.door;
  }
  out += ', ' + a.postal_code;
  if (a.city !== null) out += ' ' + a.city;
  return out;
}

/**
 * Whether `formatted` is exactly `composeFormatted(a)`, compared part by part in place: no string
 * is built (this runs for every result the matcher writes; building and comparing the composition
 * was a third of `toSlim`, docs/performance.md "Measurements").
 */
export function isComposition(formatted: string, a: Pick<ResolvedAddress, 'street' | 'house_number' | 'floor' | 'door' | 'postal_code' | 'city'>): boolean {
  const { street, house_number, floor, door, postal_code, city } = a;
  if (street === null || house_number === null || postal_code === null) return false;
  // A part left undefined (not the domain's type) reads as composeFormatted would concatenate it.
  if (street === undefined || house_number === undefined || floor === undefined || door === undefined || postal_code === undefined || city === undefined) {
    return composeFormatted(a) === formatted;
  }
  let at = follows(formatted, 0, street);
  at = follows(formatted, at, ' ');
  at = follows(formatted, at, house_number);
  if (floor !== null || door !== null) {
    at = follows(formatted, at, ', ');
    if (floor !== null) {
      at = follows(formatted, at, floor);
      at = follows(formatted, at, '.');
    }
    if (door !== null) {
      if (floor !== null) at = follows(formatted, at, ' ');
      at = follows(formatted, at, door);
    }
  }
  at = follows(formatted, at, ', ');
  at = follows(formatted, at, postal_code);
  if (city !== null) {
    at = follows(formatted, at, ' ');
    at = follows(formatted, at, city);
  }
  return at === formatted.length;
}

/** The index after `part` when `text` holds it at `at`; -1 when not (or `at` is -1 already). */
function follows(text: string, at: number, part: string): number {
  return at !== -1 && text.startsWith(part, at) ? at + part.length : -1;
}

function slimAddress(a: ResolvedAddress): SlimAddress {
  const formatted = a.formatted ?? null;
  // Composing costs a few comparisons; writing the text would cost its UTF-8 bytes on the log.
  const composed = formatted !== null && isComposition(formatted, a);
  return {
    input: a.input, ok: a.ok, street: a.street ?? null, house_number: a.house_number ?? null, floor: a.floor ?? null,
    door: a.door ?? null, postal_code: a.postal_code ?? null, city: a.city ?? null, composed,
    formatted: composed ? null : formatted, confidence: a.confidence,
  };
}

/** The chunk's results in the slim form. */
export function toSlim(results: readonly RowResult[]): SlimResults {
  const labels: string[] = [];
  const labelIndex = new Map<string, number>();
  const rows = new Array<SlimRowResult>(results.length);
  for (let i = 0; i < results.length; i++) {
    const { row, cells, result: r } = results[i];
    const m = r.match;
    let label = -1;
    if (m.label !== null && m.label !== undefined) {
      label = labelIndex.get(m.label) ?? -1;
      if (label === -1) {
        label = labels.length;
        labels.push(m.label);
        labelIndex.set(m.label, label);
      }
    }
    const lookup = r.phone_lookup;
    const lv = r.list_version;
    rows[i] = {
      row, cells: cells ?? null, id: r.id ?? null, status: r.status, reasons: r.reasons, level: r.level ?? null,
      match_level: m.level ?? -1, match_code: m.code ?? null, label, on: m.on,
      previous_address: m.previous_address, approximate: m.approximate ?? false, stop_level: r.stop_level,
      address: r.address ? slimAddress(r.address) : null,
      phone_lookup: lookup ? { outcome: lookup.outcome, name: lookup.name ?? null, address: lookup.address ?? null } : null,
      company: r.company ?? null,
      list_version: lv ? { id: lv.id, source: lv.source, published_on: lv.published_on, activated_at: lv.activated_at ?? null } : null,
    };
  }
  return { labels, rows };
}

/**
 * The chunk's results as decoding a ResultsChunk v5 gave them (services/pipeline/events.ts
 * `fromAvroResult`): nullable fields null, a phone lookup's absent name/address and an absent
 * company or list version left out, keys in the schema's order.
 */
export function fromSlim(slim: SlimResults): RowResult[] {
  const { labels, rows } = slim;
  const out = new Array<RowResult>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const s = rows[i];
    if (s.label >= labels.length) throw new WireFormatError('a slim result names a label the chunk does not hold');
    const a = s.address;
    let phone_lookup: CheckResult['phone_lookup'] = null;
    if (s.phone_lookup) {
      const lookup: Record<string, unknown> = { outcome: s.phone_lookup.outcome };
      if (s.phone_lookup.name !== null) lookup.name = s.phone_lookup.name;
      if (s.phone_lookup.address !== null) lookup.address = s.phone_lookup.address;
      phone_lookup = lookup as unknown as CheckResult['phone_lookup'];
    }
    let list_version: ListVersionRef | undefined;
    if (s.list_version) {
      const { id, source, published_on, activated_at } = s.list_version;
      list_version = { id, source: source as ListVersionRef['source'], published_on };
      if (activated_at !== null) list_version.activated_at = activated_at;
    }
    const result: CheckResult = {
      id: s.id,
      status: s.status,
      reasons: s.reasons,
      level: s.level,
      match: {
        level: s.match_level === -1 ? null : s.match_level,
        code: s.match_code,
        label: s.label === -1 ? null : labels[s.label],
        on: s.on,
        previous_address: s.previous_address,
        approximate: s.approximate,
      },
      stop_level: s.stop_level,
      address: a === null ? null : {
        input: a.input, ok: a.ok, street: a.street, house_number: a.house_number, floor: a.floor, door: a.door,
        postal_code: a.postal_code, city: a.city, formatted: a.composed ? composeFormatted(a) : a.formatted,
        confidence: a.confidence,
      },
      phone_lookup,
      company: s.company === null ? undefined : s.company,
      list_version,
    };
    out[i] = { row: s.row, cells: s.cells, result };
  }
  return out;
}
