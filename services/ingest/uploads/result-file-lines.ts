import type { CheckResult } from '../../domain/types.ts';

/**
 * A stored result line read for a result file (docs/architecture.md "Result files"): only what the
 * file's columns and row filters read, not the whole CheckResult. The person's `id` (a JSON job's
 * one input column) and the verdict fields (files/result-file.ts verdictCells: status, reasons,
 * match, list_version, change, company, phone_lookup) are cut out of the JSON text; everything else
 * (the resolved address, the stop level, the deprecated level) is stepped over unread.
 *
 * The verdict fields of a million rows take few distinct values, so their text is the key of a
 * small cache of parsed verdicts: a row whose verdict was seen before costs one scan of its line,
 * no JSON.parse. Rows sharing a verdict share one (read-only) result object, which lets the CSV
 * writer reuse its encoded verdict cells too.
 *
 * The scan knows the text JSON.stringify writes (no whitespace; format 1 of job-results.ts);
 * anything else it does not expect (whitespace, an escaped key) falls back to JSON.parse of the
 * whole line, so every valid line reads as it did.
 */
export interface ResultFileLine {
  /** Undefined when the line has no `id` (as JSON.parse leaves a missing field). */
  id: string | null | undefined;
  /** The verdict fields only; shared between rows with the same verdict: never change it. */
  result: CheckResult;
}

/** Top-level fields the result file reads besides `id` (files/result-file.ts verdictCells, the rows and change filters). */
const VERDICT_FIELDS: ReadonlySet<string> = new Set(['status', 'reasons', 'match', 'list_version', 'change', 'company', 'phone_lookup']);
/**
 * Verdicts kept: levels × reasons × changes × list versions stay far below this; company and phone
 * columns carry names that differ per row, so a job with those checks would otherwise grow it
 * without bound.
 */
const MAX_CACHED_VERDICTS = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A reader of stored result lines with its own verdict cache (one per result file). */
export function createResultLineReader(): (line: string) => ResultFileLine {
  const verdicts = new Map<string, CheckResult>();
  return (line) => {
    const picked = pickFields(line);
    if (picked === null) {
      const whole = JSON.parse(line) as CheckResult;
      return { id: whole.id, result: whole };
    }
    let result = verdicts.get(picked.verdict);
    if (result === undefined) {
      result = JSON.parse(`{${picked.verdict}}`) as CheckResult;
      if (verdicts.size >= MAX_CACHED_VERDICTS) verdicts.clear();
      verdicts.set(picked.verdict, result);
    }
    return { id: idOf(picked.id), result };
  };
}

/** The id's JSON text as a value; undefined when the line had none. */
function idOf(raw: string | undefined): string | null | undefined {
  if (raw === undefined) return undefined;
  if (raw.charCodeAt(0) === QUOTE && raw.indexOf('\\') === -1) return raw.slice(1, -1);
  return JSON.parse(raw) as string | null;
}

/**
 * The line's `id` (its JSON text) and its verdict fields as `"name":value` pairs joined by commas
 * (the inside of a JSON object, in the line's order, so a repeated key keeps JSON.parse's last-wins
 * rule); null when the line is not as JSON.stringify writes an object.
 */
function pickFields(line: string): { id: string | undefined; verdict: string } | null {
  if (line.charCodeAt(0) !== OPEN_BRACE) return null;
  if (line.length === 2 && line.charCodeAt(1) === CLOSE_BRACE) return { id: undefined, verdict: '' };
  let id: string | undefined;
  let verdict = '';
  let at = 1;
  for (;;) {
    if (line.charCodeAt(at) !== QUOTE) return null;
    const nameEnd = stringEnd(line, at);
    if (nameEnd === -1 || line.charCodeAt(nameEnd) !== COLON) return null;
    const name = line.slice(at + 1, nameEnd - 1);
    // An escaped key could spell a field another way: leave it to JSON.parse.
    if (name.indexOf('\\') !== -1) return null;
    const valueStart = nameEnd + 1;
    const valueEnd = endOfValue(line, valueStart);
    if (valueEnd === -1) return null;
    if (name === 'id') id = line.slice(valueStart, valueEnd);
    else if (VERDICT_FIELDS.has(name)) verdict += (verdict === '' ? '' : ',') + line.slice(at, valueEnd);
    const next = line.charCodeAt(valueEnd);
    if (next === COMMA) {
      at = valueEnd + 1;
      continue;
    }
    if (next === CLOSE_BRACE && valueEnd === line.length - 1) return { id, verdict };
    return null;
  }
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

/** The index after the JSON value starting at `start` (no whitespace expected); -1 when none ends. */
function endOfValue(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return stringEnd(text, start);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        const end = stringEnd(text, i);
        if (end === -1) return -1;
        i = end - 1;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    return -1;
  }
  // A number, true, false or null: up to the comma or brace after it.
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET) break;
    i++;
  }
  return i > start ? i : -1;
}
