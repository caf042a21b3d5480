/**
 * What can be wrong with a streamed check-job body. Every error names where (a path such as
 * `people[12345].name`, and for NDJSON the 1-based line) and never what: no value from the body
 * ever reaches a message, since the values are names and addresses.
 */
import type { Locale } from '../../domain/types.ts';

export type IntakeErrorCode =
  | 'invalid_utf8'
  | 'invalid_json'
  | 'not_an_object'
  | 'not_an_array'
  | 'not_a_string'
  | 'string_too_long'
  | 'unknown_field'
  | 'duplicate_field'
  | 'value_too_large'
  | 'too_many_people'
  | 'too_few_people'
  | 'missing_people';

const MESSAGES: Record<IntakeErrorCode, Record<Locale, string>> = {
  invalid_utf8: { en: 'the body is not valid UTF-8', da: 'indholdet er ikke gyldig UTF-8' },
  invalid_json: { en: 'the body is not valid JSON', da: 'indholdet er ikke gyldig JSON' },
  not_an_object: { en: 'expected a JSON object', da: 'forventede et JSON-objekt' },
  not_an_array: { en: 'expected a JSON array', da: 'forventede et JSON-array' },
  not_a_string: { en: 'expected a string', da: 'forventede en tekst' },
  string_too_long: { en: 'text is too long', da: 'teksten er for lang' },
  unknown_field: { en: 'unknown field', da: 'ukendt felt' },
  duplicate_field: { en: 'field given twice', da: 'feltet er angivet to gange' },
  value_too_large: { en: 'value is too large', da: 'værdien er for stor' },
  too_many_people: { en: 'too many people', da: 'for mange personer' },
  too_few_people: { en: 'too few people', da: 'for få personer' },
  missing_people: { en: '`people` is required', da: '`people` skal angives' },
};

/** Malformed bytes or JSON are 400; well-formed JSON that breaks the schema or a limit is 422 (§5). */
const BAD_SYNTAX: readonly IntakeErrorCode[] = ['invalid_utf8', 'invalid_json'];

export class IntakeError extends Error {
  override name = 'IntakeError';
  readonly code: IntakeErrorCode;
  /** Where in the body: '' for the body itself, `people[3]`, `people[3].name`, `callback_url`. */
  readonly path: string;
  /** NDJSON only: the 1-based line. */
  readonly line: number | undefined;
  /** The limit that was exceeded, when one was. */
  readonly limit: number | undefined;

  constructor(code: IntakeErrorCode, path: string, extra: { line?: number; limit?: number } = {}) {
    super(describe(code, path, extra.line, extra.limit, 'en'));
    this.code = code;
    this.path = path;
    this.line = extra.line;
    this.limit = extra.limit;
  }

  get httpStatus(): 400 | 422 {
    return BAD_SYNTAX.includes(this.code) ? 400 : 422;
  }

  localizedMessage(locale: Locale): string {
    return describe(this.code, this.path, this.line, this.limit, locale);
  }
}

function describe(code: IntakeErrorCode, path: string, line: number | undefined, limit: number | undefined, locale: Locale): string {
  const where: string[] = [];
  if (line !== undefined) where.push(locale === 'da' ? `linje ${line}` : `line ${line}`);
  if (path !== '') where.push(path);
  const limitText = limit === undefined ? '' : locale === 'da' ? ` (højst ${limit})` : ` (at most ${limit})`;
  const prefix = where.length > 0 ? `${where.join(', ')}: ` : '';
  return `${prefix}${MESSAGES[code][locale]}${limitText}`;
}

/**
 * A field name from the body is echoed in a path only when it looks like a field name (so a name
 * or an address sent as a key by mistake is never repeated back or logged).
 */
export function safeFieldName(name: string): string | null {
  return /^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(name) ? name : null;
}
