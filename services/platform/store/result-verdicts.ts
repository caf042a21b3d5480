/**
 * Verdicts stored beside a result record's lines (docs/architecture.md "Result files",
 * docs/platform-clickhouse-registry.md "Result records"): a result file shows each row's id and
 * verdict (status, reasons, match, list version, change, company, phone look-up), never the
 * resolved address that is most of a stored line, and a record of 1,000 rows holds a few dozen
 * distinct verdicts. So the writer keeps, beside the lines:
 *
 * - `ids`: each row's `id` as JSON text (`"…"` or `null`), one per line;
 * - `verdicts`: the record's distinct verdicts, one per line, each the row's result without its
 *   `id` and `address` as one JSON object;
 * - `verdict_rows`: each row's verdict as its line number in `verdicts`, comma-separated.
 *
 * A result file then reads those three (a few KB a record) instead of the lines (~230 KB). Records
 * stored before the columns existed have them NULL and get them from their lines at read time, by
 * the same function (`verdictColumnsOf`), so both give the same text for the same line.
 *
 * The cut takes a line (JSON.stringify of a CheckResult: `{"id":…,"status":…,…,"address":{…},
 * "phone_lookup":…,…}`) apart with substring searches, no pass over its characters: the id, the
 * address member, the rest. It is safe because inside a JSON string every `"` is escaped, so
 * `,"address":` and `,"phone_lookup":` (a quote right after a comma) only ever appear as keys; it
 * is taken only when the id is the first member and the address value right before the phone key
 * is `null` or an object with no `{`, `[` or `}` inside (one whole value, nothing nested, nothing
 * hidden behind it). Once per distinct verdict it is checked that the members before the address
 * close all they open (so the address is the line's own member, not a nested one) and that the
 * rest parses as one object without an `id` or `address` of its own (a repeat JSON.parse would
 * keep). Any other line (whitespace, another key order, a brace in an address) is parsed whole
 * and its verdict written by JSON.stringify, so every valid line reads as JSON.parse reads it.
 */
/** The verdict columns of one record (all three NULL in records stored before them). */
export interface VerdictColumns {
  ids: string;
  verdicts: string;
  verdict_rows: string;
}

/** A row as a result file reads it: its id's JSON text and its verdict's (shared by rows of one record). */
export interface VerdictRows {
  ids: string[];
  verdicts: string[];
}

const ID_START = '{"id":';
const ADDRESS_KEY = ',"address":';
const PHONE_KEY = ',"phone_lookup":';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const DIGIT_0 = 0x30;

/**
 * Verdicts compared one by one before a record's verdicts are looked up by their text: a record
 * has a handful of distinct ones (4 in the bench job's), and comparing equal text costs less
 * than hashing it; company and phone names make one per row, hence the bound.
 */
const COMPARED_VERDICTS = 8;

/** The columns for a record's lines (job-results.ts recordOf), verdicts numbered in order of first use. */
export function verdictColumnsOf(lines: readonly string[]): VerdictColumns {
  const ids: string[] = new Array(lines.length);
  const numbers: number[] = new Array(lines.length);
  const verdicts: string[] = [];
  // The cut's two slices of each verdict seen first (n -1: the cut gave no verdict, read whole).
  const cuts: Array<{ before: string; after: string; n: number }> = [];
  // Past COMPARED_VERDICTS: keyed by the members before the address, then by those after it
  // (two look-ups of slices of the line cost less than joining them into one key).
  const byText = new Map<string, Map<string, number>>();
  const whole = new Map<string, number>();
  const number = (verdict: string) => {
    let n = whole.get(verdict);
    if (n === undefined) whole.set(verdict, (n = verdicts.push(verdict) - 1));
    return n;
  };
  const numberOfCut = (line: string, cut: Cut): number => {
    const before = line.slice(cut.idEnd + 1, cut.address);
    const after = line.slice(cut.phone);
    for (let c = 0; c < cuts.length; c++) {
      if (cuts[c].before === before && cuts[c].after === after) return cuts[c].n;
    }
    let known = cuts.length >= COMPARED_VERDICTS ? byText.get(before)?.get(after) : undefined;
    if (known !== undefined) return known;
    const verdict = `{${before}${after}`;
    known = isVerdict(before, verdict) ? number(verdict) : -1;
    if (cuts.length < COMPARED_VERDICTS) cuts.push({ before, after, n: known });
    else {
      let afters = byText.get(before);
      if (afters === undefined) byText.set(before, (afters = new Map()));
      afters.set(after, known);
    }
    return known;
  };
  const cut: Cut = { idEnd: 0, address: 0, phone: 0 };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const n = cutLine(line, cut) ? numberOfCut(line, cut) : -1;
    if (n !== -1) {
      ids[i] = line.slice(ID_START.length, cut.idEnd);
      numbers[i] = n;
    } else {
      const parsed = wholeVerdict(line);
      ids[i] = parsed.id;
      numbers[i] = number(parsed.verdict);
    }
  }
  return { ids: ids.join('\n'), verdicts: verdicts.join('\n'), verdict_rows: numbers.join(',') };
}

/**
 * Each row's id and verdict text from a record's verdict columns; the verdict texts of rows with
 * one verdict are one string (a reader caching parsed verdicts by text hashes it once).
 */
export function verdictRowsOf(columns: VerdictColumns): VerdictRows {
  const table = columns.verdicts.split('\n');
  const text = columns.verdict_rows;
  const verdicts: string[] = [];
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      verdicts.push(table[n]);
      n = 0;
    } else n = n * 10 + (c - DIGIT_0);
  }
  verdicts.push(table[n]);
  return { ids: columns.ids.split('\n'), verdicts };
}

/**
 * Whether a cut's verdict is the line's: the members before the address are the line's own and
 * the rest is one object that names no id or address of its own (a later repeat of either would
 * be the one JSON.parse keeps).
 */
function isVerdict(before: string, text: string): boolean {
  if (!closedMembers(before)) return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !Object.hasOwn(parsed, 'id') && !Object.hasOwn(parsed, 'address');
  } catch {
    return false;
  }
}

/** The id and verdict of a line parsed whole (a missing id reads as null: a file writes both as an empty cell). */
function wholeVerdict(line: string): { id: string; verdict: string } {
  const { id, address: _address, ...rest } = JSON.parse(line) as { id?: unknown; address?: unknown };
  return { id: id === undefined ? 'null' : JSON.stringify(id), verdict: JSON.stringify(rest) };
}

/**
 * Where a line is cut: the end of the id's JSON text, the `,"address":` key, the `,"phone_lookup":`
 * key. The verdict is the members between the id and the address (without their first comma)
 * and those from the phone look-up on: `{` + line[idEnd + 1, address) + line[phone, end).
 */
interface Cut {
  idEnd: number;
  address: number;
  phone: number;
}

/**
 * Finds where `line` is cut, into `cut`; false when it is not cut as the top of this file says.
 * The phone key is searched from the end (the members after it are few and short) and the
 * address value back from it.
 */
function cutLine(line: string, cut: Cut): boolean {
  if (!line.startsWith(ID_START)) return false;
  const idStart = ID_START.length;
  const idEnd = line.charCodeAt(idStart) === QUOTE ? stringEnd(line, idStart) : line.startsWith('null', idStart) ? idStart + 4 : -1;
  if (idEnd === -1 || line.charCodeAt(idEnd) !== COMMA) return false;
  const phone = line.lastIndexOf(PHONE_KEY);
  if (phone <= idEnd) return false;
  let value = phone - 4;
  if (line.charCodeAt(phone - 1) === CLOSE_BRACE) {
    // One flat object: no `{` or `[` inside, its first `}` the one right before the phone key.
    value = line.lastIndexOf('{', phone);
    if (value <= idEnd || line.indexOf('}', value) !== phone - 1) return false;
    const bracket = line.indexOf('[', value);
    if (bracket !== -1 && bracket < phone) return false;
  } else if (!line.startsWith('null', value)) return false;
  const address = value - ADDRESS_KEY.length;
  if (address <= idEnd || !line.startsWith(ADDRESS_KEY, address)) return false;
  cut.idEnd = idEnd;
  cut.address = address;
  cut.phone = phone;
  return true;
}

/**
 * Whether the members before the address close every object, array and string they open: then
 * the address key after them is a member of the line itself, not of a value nested in it.
 * A pass over the characters, made once per distinct verdict of a record.
 */
function closedMembers(before: string): boolean {
  let depth = 0;
  for (let i = 0; i < before.length; i++) {
    const c = before.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(before, i) - 1;
      if (i < 0) return false;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    if (depth < 0) return false;
  }
  return depth === 0;
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
