/**
 * A slim result's stored JSON line written straight from the slim form (docs/architecture.md
 * "Slim results", "Result JSON from the slim form"): the text `JSON.stringify` gives for the
 * CheckResult `fromSlim` reads from the same row, byte for byte, without that object. Pure, no I/O.
 *
 * Byte-identical by construction: members in the order `fromSlim` builds them (which is the v5
 * decode's), members `fromSlim` leaves out (an absent company or list version, a phone look-up's
 * absent name or address) left out here, numbers as JSON.stringify writes them, and every string
 * either wrapped in quotes as it is, when it holds nothing JSON.stringify escapes (no `"`, `\`,
 * control character or surrogate), or written by JSON.stringify itself. The company result is
 * one record of the codec's, written by JSON.stringify as `fromSlim` hands it on.
 * test/unit/pipeline/slim-result-json.test.ts compares both over seeded results of every shape.
 */
import type { SlimAddress, SlimRowResult } from './slim-results.ts';
import { composeFormatted } from './slim-results.ts';

/** A string as JSON.stringify writes it. */
export function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // JSON.stringify escapes `"`, `\` and control characters, and writes a lone surrogate as
    // \udxxx (well-formed JSON.stringify): those, and any surrogate, take its own path.
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return '"' + text + '"';
}

function nullableString(text: string | null): string {
  return text === null ? 'null' : jsonString(text);
}

/** A number as JSON.stringify writes it (a non-finite one as null). */
function jsonNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

function stringArray(items: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : ',') + jsonString(items[i]);
  return out + ']';
}

function addressJson(a: SlimAddress): string {
  const formatted = a.composed ? composeFormatted(a) : a.formatted;
  return '{"input":' + jsonString(a.input) + ',"ok":' + a.ok + ',"street":' + nullableString(a.street)
    + ',"house_number":' + nullableString(a.house_number) + ',"floor":' + nullableString(a.floor)
    + ',"door":' + nullableString(a.door) + ',"postal_code":' + nullableString(a.postal_code)
    + ',"city":' + nullableString(a.city) + ',"formatted":' + nullableString(formatted)
    + ',"confidence":' + jsonString(a.confidence) + '}';
}

/** The members after the address: phone look-up, company (left out when null), list version (likewise). */
function tailJson(s: SlimRowResult): string {
  let out = ',"phone_lookup":';
  const lookup = s.phone_lookup;
  if (lookup === null) out += 'null';
  else {
    out += '{"outcome":' + jsonString(lookup.outcome);
    if (lookup.name !== null) out += ',"name":' + jsonString(lookup.name);
    if (lookup.address !== null) out += ',"address":' + jsonString(lookup.address);
    out += '}';
  }
  if (s.company !== null) out += ',"company":' + JSON.stringify(s.company);
  const lv = s.list_version;
  if (lv !== null) {
    out += ',"list_version":{"id":' + jsonString(lv.id) + ',"source":' + jsonString(lv.source)
      + ',"published_on":' + jsonString(lv.published_on);
    if (lv.activated_at !== null) out += ',"activated_at":' + jsonString(lv.activated_at);
    out += '}';
  }
  return out + '}';
}

/** The members between the id and the address: status to stop_level (the verdict's head). */
function headJson(s: SlimRowResult, labels: readonly string[]): string {
  return ',"status":' + jsonString(s.status) + ',"reasons":' + stringArray(s.reasons)
    + ',"level":' + nullableString(s.level)
    + ',"match":{"level":' + (s.match_level === -1 ? 'null' : jsonNumber(s.match_level))
    + ',"code":' + nullableString(s.match_code)
    + ',"label":' + (s.label === -1 ? 'null' : jsonString(labels[s.label]))
    + ',"on":' + stringArray(s.on) + ',"previous_address":' + s.previous_address
    + ',"approximate":' + s.approximate + '},"stop_level":' + jsonNumber(s.stop_level);
}

/**
 * A writer of one chunk's rows (its labels): `JSON.stringify(fromSlim({ labels, rows })[i].result)`
 * for each row. The head and tail of the last row are kept and reused when the next row has the
 * same (rows of a chunk share a handful of verdicts and one list version): compared field by
 * field, which costs less than writing them again.
 */
export function createSlimResultWriter(labels: readonly string[]): (s: SlimRowResult) => string {
  let last: SlimRowResult | null = null;
  let head = '';
  let tail = '';
  return (s) => {
    if (s.label >= labels.length) throw new RangeError('a slim result names a label the chunk does not hold');
    if (last === null || !sameHead(last, s)) head = headJson(s, labels);
    if (last === null || !sameTail(last, s)) tail = tailJson(s);
    last = s;
    return '{"id":' + nullableString(s.id) + head + ',"address":' + (s.address === null ? 'null' : addressJson(s.address)) + tail;
  };
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameHead(a: SlimRowResult, b: SlimRowResult): boolean {
  return a.status === b.status && a.level === b.level && a.match_level === b.match_level && a.match_code === b.match_code
    && a.label === b.label && a.previous_address === b.previous_address && a.approximate === b.approximate
    && a.stop_level === b.stop_level && sameStrings(a.reasons, b.reasons) && sameStrings(a.on, b.on);
}

function sameTail(a: SlimRowResult, b: SlimRowResult): boolean {
  // A company result is written whole each time it is there (company checks only).
  if (a.company !== null || b.company !== null) return false;
  const pa = a.phone_lookup;
  const pb = b.phone_lookup;
  if (pa !== pb && (pa === null || pb === null || pa.outcome !== pb.outcome || pa.name !== pb.name || pa.address !== pb.address)) return false;
  const la = a.list_version;
  const lb = b.list_version;
  return la === lb || (la !== null && lb !== null && la.id === lb.id && la.source === lb.source
    && la.published_on === lb.published_on && la.activated_at === lb.activated_at);
}
