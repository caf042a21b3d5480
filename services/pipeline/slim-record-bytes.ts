/**
 * A format-2 result record's bytes written straight from slim rows (docs/architecture.md "Slim
 * results", "Where a result's stored JSON is made"): the `results` (each row's line, joined with
 * commas, as UTF-8), the `line_ends`, the verdict columns and the counts, with no CheckResult
 * object and no line string per row. Byte for byte what the store's own path gives from
 * `JSON.stringify(fromSlim(...)[i].result)` (services/platform/store/job-results.ts
 * `recordParts`, services/platform/store/embedded/comma-record-bytes.ts and result-verdicts.ts
 * `verdictColumnsOf`): the same keys in the same order, members left out where that object has
 * them undefined, strings escaped as JSON.stringify escapes them (a string with a quote,
 * backslash, control character or any surrogate is written by JSON.stringify itself), numbers as
 * it writes an Avro int. test/unit/pipeline/slim-record-bytes.test.ts holds it to that.
 *
 * A row's line is `{"id":…` + head + `,"address":…` + tail, where the head (status to stop_level)
 * and the tail (phone look-up to the closing brace) are the row's verdict (result-verdicts.ts):
 * a record of 1,000 rows has a handful of distinct ones, so a head or tail equal to the last
 * row's (compared by value: every decoded row has objects of its own) is copied rather than
 * written again, and a row whose head and tail were both copied has
 * the last row's verdict number without its text being made.
 */
import type { ResultCounts } from '../platform/store/jobs-port.ts';
import { createCountTally, type OwnRecordBytes } from '../platform/store/job-results.ts';
import { composeFormatted, type SlimRowResult } from './slim-results.ts';

/** A slim row and the labels of the chunk it came from. */
export interface SlimRowRef {
  slim: SlimRowResult;
  labels: readonly string[];
}

/** Room for a record of the bench's rows (~230 bytes a row, 1,000 rows) before the buffer grows. */
const INITIAL_BYTES = 1024 * 1024;
/** JSON.stringify writes a UTF-16 unit as at most 6 bytes (`\u001f`); its UTF-8 is at most 3. */
const MAX_BYTES_PER_UNIT = 6;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A writer of record bytes; what it gives is overwritten by its next call. */
export type SlimRecordWriter = (rows: readonly SlimRowRef[]) => OwnRecordBytes;

export function createSlimRecordWriter(): SlimRecordWriter {
  let buf = Buffer.allocUnsafe(INITIAL_BYTES);
  let at = 0;

  const room = (bytes: number) => {
    if (at + bytes <= buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * buf.length, at + bytes));
    buf.copy(grown, 0, 0, at);
    buf = grown;
  };
  /** Text of printable ASCII only (keys, booleans, numbers). */
  const ascii = (s: string) => {
    room(s.length);
    for (let i = 0; i < s.length; i++) buf[at++] = s.charCodeAt(i);
  };
  const str = (s: string) => {
    room(s.length * MAX_BYTES_PER_UNIT + 2);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c === QUOTE || c === BACKSLASH || c > 0x7e) {
        // Escapes (and JSON.stringify's \uXXXX for a lone surrogate) are JSON.stringify's own;
        // other text (æ, ø, å) is written as it is, which is what JSON.stringify gives for it.
        if (needsEscape(s, i)) at += buf.write(JSON.stringify(s), at);
        else {
          buf[at++] = QUOTE;
          at += buf.write(s, at);
          buf[at++] = QUOTE;
        }
        return;
      }
    }
    buf[at++] = QUOTE;
    for (let i = 0; i < s.length; i++) buf[at++] = s.charCodeAt(i);
    buf[at++] = QUOTE;
  };
  const nullableStr = (s: string | null) => (s === null ? ascii('null') : str(s));
  const strings = (xs: readonly string[]) => {
    room(2 + xs.length);
    buf[at++] = OPEN_BRACKET;
    for (let i = 0; i < xs.length; i++) {
      if (i > 0) buf[at++] = COMMA;
      str(xs[i]);
      room(2);
    }
    buf[at++] = CLOSE_BRACKET;
  };
  const bool = (b: boolean) => ascii(b ? 'true' : 'false');
  /** What JSON.stringify writes for a value it is given whole (a company result). */
  const json = (value: unknown) => {
    const text = JSON.stringify(value);
    room(text.length * 3);
    at += buf.write(text, at);
  };

  const head = (s: SlimRowResult, label: string | null) => {
    ascii(',"status":'); str(s.status);
    ascii(',"reasons":'); strings(s.reasons);
    ascii(',"level":'); nullableStr(s.level);
    ascii(',"match":{"level":'); ascii(s.match_level === -1 ? 'null' : String(s.match_level));
    ascii(',"code":'); nullableStr(s.match_code);
    ascii(',"label":'); nullableStr(label);
    ascii(',"on":'); strings(s.on);
    ascii(',"previous_address":'); bool(s.previous_address);
    ascii(',"approximate":'); bool(s.approximate);
    ascii('},"stop_level":'); ascii(String(s.stop_level));
  };
  const address = (s: SlimRowResult) => {
    const a = s.address;
    ascii(',"address":');
    if (a === null) return ascii('null');
    ascii('{"input":'); str(a.input);
    ascii(',"ok":'); bool(a.ok);
    ascii(',"street":'); nullableStr(a.street);
    ascii(',"house_number":'); nullableStr(a.house_number);
    ascii(',"floor":'); nullableStr(a.floor);
    ascii(',"door":'); nullableStr(a.door);
    ascii(',"postal_code":'); nullableStr(a.postal_code);
    ascii(',"city":'); nullableStr(a.city);
    ascii(',"formatted":'); nullableStr(a.composed ? composeFormatted(a) : a.formatted);
    ascii(',"confidence":'); str(a.confidence);
    ascii('}');
  };
  const tail = (s: SlimRowResult) => {
    ascii(',"phone_lookup":');
    const lookup = s.phone_lookup;
    if (lookup === null) ascii('null');
    else {
      ascii('{"outcome":'); str(lookup.outcome);
      if (lookup.name !== null) { ascii(',"name":'); str(lookup.name); }
      if (lookup.address !== null) { ascii(',"address":'); str(lookup.address); }
      ascii('}');
    }
    if (s.company !== null) { ascii(',"company":'); json(s.company); }
    const v = s.list_version;
    if (v !== null) {
      ascii(',"list_version":{"id":'); str(v.id);
      ascii(',"source":'); str(v.source);
      ascii(',"published_on":'); str(v.published_on);
      if (v.activated_at !== null) { ascii(',"activated_at":'); str(v.activated_at); }
      ascii('}');
    }
    room(1);
    buf[at++] = CLOSE_BRACE;
  };

  return (rows) => {
    at = 0;
    const lineEnds = Buffer.allocUnsafe(rows.length * 4);
    const tally = createCountTally();
    const ids: string[] = new Array(rows.length);
    const numbers: number[] = new Array(rows.length);
    const verdicts: string[] = [];
    const verdictNumbers = new Map<string, number>();
    // The last head and tail written, by the values they were written from and where they lie.
    let lastHead: SlimRowResult | null = null;
    let lastLabel: string | null = null;
    let headStart = 0;
    let headEnd = 0;
    let tailVersion: SlimRowResult['list_version'] | undefined = undefined;
    let tailStart = 0;
    let tailEnd = 0;
    for (let i = 0; i < rows.length; i++) {
      const { slim: s, labels } = rows[i];
      const label = s.label === -1 ? null : labels[s.label];
      room(1);
      if (i > 0) buf[at++] = COMMA;
      ascii('{"id":');
      nullableStr(s.id);
      const headCopied = lastHead !== null && sameHead(lastHead, lastLabel, s, label);
      if (headCopied) {
        const length = headEnd - headStart;
        room(length);
        buf.copy(buf, at, headStart, headEnd);
        headStart = at;
        at += length;
        headEnd = at;
      } else {
        headStart = at;
        head(s, label);
        headEnd = at;
        lastHead = s;
        lastLabel = label;
      }
      address(s);
      // A tail is copied only when it holds nothing of its own row (no phone look-up, no company).
      const plainTail = s.phone_lookup === null && s.company === null;
      const tailCopied = plainTail && tailVersion !== undefined && sameVersion(tailVersion, s.list_version);
      if (tailCopied) {
        const length = tailEnd - tailStart;
        room(length);
        buf.copy(buf, at, tailStart, tailEnd);
        tailStart = at;
        at += length;
        tailEnd = at;
      } else {
        tailStart = at;
        tail(s);
        tailEnd = at;
        tailVersion = plainTail ? s.list_version : undefined;
      }
      lineEnds.writeUInt32LE(at, i * 4);
      tally.add(s.status, s.match_level === -1 ? null : s.match_level);
      ids[i] = JSON.stringify(s.id);
      if (headCopied && tailCopied) numbers[i] = numbers[i - 1];
      else {
        // The verdict as result-verdicts.ts cuts it from the line: `{` + the head without its comma + the tail.
        const verdict = '{' + buf.toString('utf8', headStart + 1, headEnd) + buf.toString('utf8', tailStart, tailEnd);
        let n = verdictNumbers.get(verdict);
        if (n === undefined) verdictNumbers.set(verdict, (n = verdicts.push(verdict) - 1));
        numbers[i] = n;
      }
    }
    const counts: ResultCounts = tally.counts();
    return {
      results: buf.subarray(0, at),
      line_ends: lineEnds,
      verdicts: { ids: ids.join('\n'), verdicts: verdicts.join('\n'), verdict_rows: numbers.join(',') },
      counts,
    };
  };
}

/** Whether JSON.stringify escapes a unit of `s` from `from` on (a quote, backslash, control character, surrogate). */
function needsEscape(s: string, from: number): boolean {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === QUOTE || c === BACKSLASH || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

/** Whether two rows' heads (status to stop_level) are the same text. */
function sameHead(a: SlimRowResult, aLabel: string | null, b: SlimRowResult, bLabel: string | null): boolean {
  return a.status === b.status && a.level === b.level && a.match_level === b.match_level && a.match_code === b.match_code
    && aLabel === bLabel && a.previous_address === b.previous_address && a.approximate === b.approximate
    && a.stop_level === b.stop_level && sameStrings(a.reasons, b.reasons) && sameStrings(a.on, b.on);
}

/** Whether two rows' list versions are the same (each decoded row has its own object). */
function sameVersion(a: SlimRowResult['list_version'], b: SlimRowResult['list_version']): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return a.id === b.id && a.source === b.source && a.published_on === b.published_on && a.activated_at === b.activated_at;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
