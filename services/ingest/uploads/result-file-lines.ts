import type { CheckResult } from '../../domain/types.ts';

/**
 * A stored result line read for a result file (docs/architecture.md "Result files"): only what the
 * file's columns and row filters read, not the whole CheckResult. A line is JSON.stringify of a
 * CheckResult (job-results.ts, record format 1): `{"id":…,"status":…,…,"address":{…},
 * "phone_lookup":…,…}`. The resolved address is most of the line and the file never shows it, and
 * what the file does show (status, reasons, match, list version, change, company, phone look-up)
 * takes few distinct values over a million rows. So a line is cut, with the engine's own substring
 * search and no pass over its characters, into the person's id, the address member, and the rest;
 * the rest's text is the key of a small cache of parsed verdicts, and a row whose verdict was seen
 * before costs no JSON.parse. Rows sharing a verdict share one (read-only) result object, which
 * lets the CSV writer reuse its encoded verdict cells too.
 *
 * Why the cut is safe: inside a JSON string every `"` is escaped, so `,"address":` and
 * `,"phone_lookup":` (a quote right after a letter, then a colon) only ever appear as keys. The cut
 * is taken only when the id is the first member, the address value between the two keys is `null`
 * or an object with no `{`, `[` or `}` inside (one whole value, nothing nested, no member hidden
 * behind it), and the members without the id and address parse as one object. Any other line (a
 * format written by other code, whitespace, another key order, a brace in an address) is read by
 * JSON.parse whole, as before, so every valid line reads as JSON.parse reads it.
 */
export interface ResultFileLine {
  /** Undefined when the line has no `id` (as JSON.parse leaves a missing field). */
  id: string | null | undefined;
  /** The verdict fields (and the rest but the address); shared between rows with the same verdict: never change it. */
  result: CheckResult;
}

/**
 * Verdicts kept: levels × reasons × changes × list versions stay far below this; company and phone
 * columns carry names that differ per row, so a job with those checks would otherwise grow it
 * without bound.
 */
const MAX_CACHED_VERDICTS = 4096;
const ID_START = '{"id":';
const ADDRESS_KEY = ',"address":';
const PHONE_KEY = ',"phone_lookup":';
/** A quoted id that is its own value: no escape, nothing but ASCII (a binary string's other bytes need decoding). */
const PLAIN_ID = /^"[^\\\u0080-\uffff]*"$/;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;

/**
 * A reader of stored result lines with its own verdict cache (one per result file). `binary`: the
 * lines are their UTF-8 bytes as binary strings (JobStore.readResultsBinary); every character the
 * cut looks for is ASCII, and UTF-8 writes no ASCII byte inside a longer character, so the cut is
 * the same, and only what is parsed is decoded.
 */
export function createResultLineReader(options: { binary?: boolean } = {}): (line: string) => ResultFileLine {
  const decode = options.binary === true ? (text: string) => Buffer.from(text, 'latin1').toString('utf8') : (text: string) => text;
  const idOf = (raw: string): string | null => (raw.charCodeAt(0) === QUOTE && PLAIN_ID.test(raw) ? raw.slice(1, -1) : (JSON.parse(decode(raw)) as string | null));
  // Keyed by the members before the address, then by those after it: two look-ups of slices of
  // the line cost less than joining them into one key. null: they did not parse as an object,
  // so lines with them are read whole.
  const verdicts = new Map<string, Map<string, CheckResult | null>>();
  let cached = 0;
  // The previous row's verdict: rows in a run often share it, and comparing text is cheaper than
  // hashing it for a look-up.
  let last: { before: string; after: string; result: CheckResult } | null = null;
  return (line) => {
    const cut = cutLine(line);
    if (cut !== null && last !== null && cut.before === last.before && cut.after === last.after) return { id: idOf(cut.id), result: last.result };
    if (cut !== null) {
      let after = verdicts.get(cut.before);
      if (after === undefined) {
        if (cached >= MAX_CACHED_VERDICTS) {
          verdicts.clear();
          cached = 0;
        }
        after = new Map();
        verdicts.set(cut.before, after);
      }
      let result = after.get(cut.after);
      if (result === undefined) {
        result = restOf(decode(cut.before + cut.after));
        after.set(cut.after, result);
        cached++;
      }
      if (result !== null) {
        last = { before: cut.before, after: cut.after, result };
        return { id: idOf(cut.id), result };
      }
    }
    const whole = JSON.parse(decode(line)) as CheckResult;
    return { id: whole.id, result: whole };
  };
}

/** The members after id and address as one object; null when they are not one. */
function restOf(rest: string): CheckResult | null {
  try {
    const parsed: unknown = JSON.parse(`{${rest}`);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as CheckResult) : null;
  } catch {
    return null;
  }
}

/**
 * The id's JSON text and the members after it but the address, those before the address and
 * those from the phone look-up on (together `"status":…,"phone_lookup":…}`, without the opening
 * brace); null when the line is not cut as the top of this file says.
 */
function cutLine(line: string): { id: string; before: string; after: string } | null {
  if (!line.startsWith(ID_START)) return null;
  const idStart = ID_START.length;
  const idEnd = line.charCodeAt(idStart) === QUOTE ? stringEnd(line, idStart) : line.startsWith('null', idStart) ? idStart + 4 : -1;
  if (idEnd === -1 || line.charCodeAt(idEnd) !== COMMA) return null;
  const address = line.indexOf(ADDRESS_KEY, idEnd);
  if (address === -1) return null;
  const phone = line.indexOf(PHONE_KEY, address);
  if (phone === -1) return null;
  const value = address + ADDRESS_KEY.length;
  if (line.charCodeAt(value) === OPEN_BRACE) {
    // One flat object: its only `}` closes it right before the phone key.
    if (line.indexOf('}', value) !== phone - 1) return null;
    const open = line.indexOf('{', value + 1);
    const bracket = line.indexOf('[', value);
    if ((open !== -1 && open < phone) || (bracket !== -1 && bracket < phone)) return null;
  } else if (phone !== value + 4 || !line.startsWith('null', value)) return null;
  return { id: line.slice(idStart, idEnd), before: line.slice(idEnd + 1, address), after: line.slice(phone) };
}

/** The index after the closing quote of the JSON string opening at `start`; -1 when unclosed. */
function stringEnd(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at === -1) return -1;
    let slashes = 0;
    for (let i = at - 1; text.charCodeAt(i) === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) return at + 1;
  }
}
