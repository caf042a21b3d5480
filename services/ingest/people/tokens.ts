/**
 * The small JSON tokenizer under both intake readers. It works on a text buffer that holds only
 * part of the body: every function parses one whole token (a string, a raw value, one person
 * object) starting at an index, and answers INCOMPLETE when the buffer ends first. The reader then
 * keeps the text from the token's start and calls again when more text has arrived, so a token
 * may be split at any position. Tokens are small (a person is capped at MAX_PERSON_CHARS), so the
 * rescans cost little and the buffer never holds more than one chunk plus one token.
 */
import type { PersonInput } from '../../domain/types.ts';
import { IntakeError, safeFieldName } from './errors.ts';

/** Results below zero: the buffer ended inside the token, or the token is bad. */
export const INCOMPLETE = -1;
export const TOO_LONG = -2;
export const INVALID = -3;

/** One person's JSON text: 13 fields of 200 characters, escaped, fits easily. */
const MAX_PERSON_CHARS = 64 * 1024;

/** A job row's fields: PersonInput's, and `cvr` / `company_name` for company checks (job rows only). */
export const PERSON_FIELDS: ReadonlySet<string> = new Set([
  'id', 'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door',
  'postal_code', 'city', 'kvhx', 'phone', 'cvr', 'company_name',
]);

/**
 * The field names by length, for `knownKeyAt`: a key is matched against these constants in place,
 * so a row's keys are neither sliced out of the body nor hashed, and the person's properties are
 * set with the same (internalised) strings every time (docs/performance.md "Measurements").
 */
const FIELDS_BY_LENGTH: ReadonlyArray<ReadonlyArray<{ name: string; bit: number }>> = (() => {
  const byLength: Array<Array<{ name: string; bit: number }>> = [];
  let bit = 1;
  for (const name of PERSON_FIELDS) {
    (byLength[name.length] ??= []).push({ name, bit });
    bit *= 2;
  }
  return byLength;
})();
const LONGEST_FIELD = Math.max(...[...PERSON_FIELDS].map((name) => name.length));

const QUOTE = 34;
const BACKSLASH = 92;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const ESCAPES: Record<number, string> = { 34: '"', 92: '\\', 47: '/', 98: '\b', 102: '\f', 110: '\n', 114: '\r', 116: '\t' };

/** The value of the string scanned last (kept here to spare an object per token). */
export let scannedString = '';
/**
 * Whether that string held no escape: its text in the body was its value, so (the body being
 * well-formed UTF-8 without control characters) JSON.stringify writes it back as its length + 2.
 */
let scannedUnescaped = true;

/**
 * Scans the JSON string whose opening quote is at `start`; returns the index after the closing
 * quote (value in `scannedString`), INCOMPLETE, TOO_LONG (more than `maxLength` UTF-16 units once
 * decoded, found as soon as it is passed) or INVALID (control character, bad escape).
 */
export function scanString(buf: string, start: number, maxLength: number): number {
  const len = buf.length;
  let out = '';
  let segment = start + 1;
  let j = segment;
  while (j < len) {
    const c = buf.charCodeAt(j);
    if (c === QUOTE) {
      if (out === '') {
        scannedString = buf.slice(segment, j);
        scannedUnescaped = true;
        return j + 1;
      }
      scannedString = out + buf.slice(segment, j);
      scannedUnescaped = false;
      // A \u escape of a lone surrogate names no character: no UTF-8 can hold it, and echoed back
      // it makes our own JSON unreadable to strict parsers (docs/api-decisions.md "Unicode").
      return scannedString.isWellFormed() ? j + 1 : INVALID;
    }
    if (c === BACKSLASH) {
      if (j + 1 >= len) return INCOMPLETE;
      const e = buf.charCodeAt(j + 1);
      out += buf.slice(segment, j);
      if (e === 117) {
        if (j + 5 >= len) return INCOMPLETE;
        const hex = buf.slice(j + 2, j + 6);
        if (!HEX4.test(hex)) return INVALID;
        out += String.fromCharCode(parseInt(hex, 16));
        j += 6;
      } else {
        const decoded = ESCAPES[e];
        if (decoded === undefined) return INVALID;
        out += decoded;
        j += 2;
      }
      segment = j;
      if (out.length > maxLength) return TOO_LONG;
      continue;
    }
    if (c < 0x20) return INVALID;
    j += 1;
    if (out.length + (j - segment) > maxLength) return TOO_LONG;
  }
  return INCOMPLETE;
}

/** The index of the first character at or after `j` that is not JSON whitespace. */
export function skipWhitespace(buf: string, j: number, allowNewline: boolean): number {
  const len = buf.length;
  while (j < len) {
    const c = buf.charCodeAt(j);
    if (c === 32 || c === 9 || c === 13 || (c === 10 && allowNewline)) j += 1;
    else break;
  }
  return j;
}

function isValueEnd(c: number): boolean {
  return c === 44 || c === 125 || c === 93 || c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Finds the end of any JSON value starting at `start` (for the job's fields other than `people`,
 * which are small and parsed afterwards with JSON.parse). Returns the end index, INCOMPLETE,
 * TOO_LONG (over `maxChars`) or INVALID (a string inside is bad).
 */
export function scanRawValue(buf: string, start: number, maxChars: number): number {
  const len = buf.length;
  const first = buf.charCodeAt(start);
  if (first === QUOTE) return scanString(buf, start, maxChars);
  if (first !== 123 && first !== 91) {
    let j = start;
    while (j < len && !isValueEnd(buf.charCodeAt(j))) {
      j += 1;
      if (j - start > maxChars) return TOO_LONG;
    }
    return j < len ? j : INCOMPLETE;
  }
  let depth = 0;
  let j = start;
  while (j < len) {
    if (j - start > maxChars) return TOO_LONG;
    const c = buf.charCodeAt(j);
    if (c === QUOTE) {
      const end = scanString(buf, j, maxChars);
      if (end === TOO_LONG) return TOO_LONG;
      if (end < 0) return end;
      j = end;
      continue;
    }
    if (c === 123 || c === 91) depth += 1;
    else if (c === 125 || c === 93) {
      depth -= 1;
      if (depth === 0) return j + 1;
    }
    j += 1;
  }
  return INCOMPLETE;
}

export interface PersonRules {
  maxStringLength: number;
  unknownFields: 'reject' | 'ignore';
  /** NDJSON: an object must not span lines. */
  allowNewlines: boolean;
}

/** Where the person being read sits, for error paths. */
export interface PersonPlace {
  index: number;
  line?: number;
}

/**
 * The known field name whose key starts with the quote at `start`, written plainly (no escape):
 * the constant from PERSON_FIELDS, with the index after the closing quote in `knownKeyEnd`. Null
 * for anything else (an escape, an unknown or over-long key, the buffer ending first): the caller
 * then reads the key with scanString, which decides every such case as before.
 */
function knownKeyAt(buf: string, start: number): string | null {
  const first = start + 1;
  const limit = Math.min(buf.length, first + LONGEST_FIELD + 1);
  let end = first;
  while (end < limit && buf.charCodeAt(end) !== QUOTE) end += 1;
  if (end >= limit) return null;
  const candidates = FIELDS_BY_LENGTH[end - first];
  if (candidates === undefined) return null;
  for (const { name, bit } of candidates) {
    let k = 0;
    while (k < name.length && buf.charCodeAt(first + k) === name.charCodeAt(k)) k += 1;
    if (k === name.length) {
      knownKeyEnd = end + 1;
      knownKeyBit = bit;
      return name;
    }
  }
  return null;
}
let knownKeyEnd = 0;
/** The field's own bit, for telling a repeated field (its person's JSON is then measured again). */
let knownKeyBit = 0;

/**
 * `person[key] = value` with a named store per field: one keyed store site seeing fifteen names
 * and every object shape on the way goes megamorphic, and the person is built once per row.
 */
function setField(person: PersonInput, key: string, value: string): void {
  switch (key) {
    case 'id': person.id = value; break;
    case 'name': person.name = value; break;
    case 'first_name': person.first_name = value; break;
    case 'last_name': person.last_name = value; break;
    case 'address': person.address = value; break;
    case 'street': person.street = value; break;
    case 'house_number': person.house_number = value; break;
    case 'floor': person.floor = value; break;
    case 'door': person.door = value; break;
    case 'postal_code': person.postal_code = value; break;
    case 'city': person.city = value; break;
    case 'kvhx': person.kvhx = value; break;
    case 'phone': person.phone = value; break;
    default: (person as Record<string, string>)[key] = value;
  }
}

/** The person read last by `parsePerson`. */
export let parsedPerson: PersonInput = {};
/**
 * `JSON.stringify(parsedPerson).length`, counted while it was read (the chunk publisher's size of
 * a row, docs/architecture.md "Job intake"), or -1 when it was not (a key written with an escape,
 * a field given twice): the caller then measures the person itself.
 */
export let parsedPersonJsonLength = -1;

function fail(code: ConstructorParameters<typeof IntakeError>[0], place: PersonPlace, field?: string | null, limit?: number): never {
  const path = field ? `people[${place.index}].${field}` : `people[${place.index}]`;
  throw new IntakeError(code, path, { line: place.line, limit });
}

/**
 * Parses one flat person object whose `{` is at `start`; returns the index after its `}` (the
 * person in `parsedPerson`) or INCOMPLETE. Throws IntakeError for everything that is wrong.
 */
export function parsePerson(buf: string, start: number, rules: PersonRules, place: PersonPlace): number {
  const len = buf.length;
  const person: PersonInput = {};
  let j = start + 1;
  let first = true;
  // The person's JSON as JSON.stringify writes it: `{`, then `"key":"value"` and `,` or `}` per field.
  let jsonLength = 1;
  let measured = true;
  let fieldsSeen = 0;
  for (;;) {
    j = skipWhitespace(buf, j, rules.allowNewlines);
    if (j - start > MAX_PERSON_CHARS) fail('value_too_large', place, null, MAX_PERSON_CHARS);
    if (j >= len) return INCOMPLETE;
    let c = buf.charCodeAt(j);
    if (c === 125 && first) break;
    if (c !== QUOTE) fail('invalid_json', place);
    let key = knownKeyAt(buf, j);
    let keyEnd = knownKeyEnd;
    let keyBit = knownKeyBit;
    if (key === null) {
      keyBit = 0;
      keyEnd = scanString(buf, j, rules.maxStringLength);
      if (keyEnd === INCOMPLETE) return INCOMPLETE;
      if (keyEnd === TOO_LONG) fail('unknown_field', place);
      if (keyEnd === INVALID) fail('invalid_json', place);
      key = scannedString;
    }
    const known = PERSON_FIELDS.has(key);
    if (!known && rules.unknownFields === 'reject') fail('unknown_field', place, safeFieldName(key));
    const field = known ? key : safeFieldName(key);

    j = skipWhitespace(buf, keyEnd, rules.allowNewlines);
    if (j >= len) return INCOMPLETE;
    if (buf.charCodeAt(j) !== 58) fail('invalid_json', place, field);
    j = skipWhitespace(buf, j + 1, rules.allowNewlines);
    if (j >= len) return INCOMPLETE;
    c = buf.charCodeAt(j);
    if (c !== QUOTE) {
      // A number, literal, array or object is well-formed JSON of the wrong type; anything else is
      // not JSON at all.
      if (c === 123 || c === 91 || c === 116 || c === 102 || c === 110 || c === 45 || (c >= 48 && c <= 57)) {
        fail('not_a_string', place, field);
      }
      fail('invalid_json', place, field);
    }
    const valueEnd = scanString(buf, j, rules.maxStringLength);
    if (valueEnd === INCOMPLETE) return INCOMPLETE;
    if (valueEnd === TOO_LONG) fail('string_too_long', place, field, rules.maxStringLength);
    if (valueEnd === INVALID) fail('invalid_json', place, field);
    if (known) {
      setField(person, key, scannedString);
      if (keyBit === 0 || (fieldsSeen & keyBit) !== 0) measured = false;
      fieldsSeen |= keyBit;
      jsonLength += key.length + 4 + (scannedUnescaped ? scannedString.length + 2 : JSON.stringify(scannedString).length);
    }

    j = skipWhitespace(buf, valueEnd, rules.allowNewlines);
    if (j - start > MAX_PERSON_CHARS) fail('value_too_large', place, null, MAX_PERSON_CHARS);
    if (j >= len) return INCOMPLETE;
    c = buf.charCodeAt(j);
    if (c === 125) break;
    if (c !== 44) fail('invalid_json', place, field);
    j += 1;
    first = false;
  }
  parsedPerson = person;
  parsedPersonJsonLength = !measured ? -1 : jsonLength === 1 ? 2 : jsonLength;
  return j + 1;
}

/** `[`, `"`, a digit, `-`, or the first letter of true/false/null: JSON, but not an object. */
export function looksLikeJsonValue(c: number): boolean {
  return c === 91 || c === 34 || c === 45 || (c >= 48 && c <= 57) || c === 116 || c === 102 || c === 110;
}
