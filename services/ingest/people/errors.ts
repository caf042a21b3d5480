import { PermanentError } from '../../platform/errors.ts';

/**
 * What can be wrong with a streamed check-job body. Every error names where (a path such as
 * `people[12345].name`, and for NDJSON the 1-based line) and never what: no value from the body
 * ever reaches a message, since the values are names and addresses.
 */
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

export class IntakeError extends PermanentError {
  override name = 'IntakeError';
  readonly code: IntakeErrorCode;
  /** Where in the body: '' for the body itself, `people[3]`, `people[3].name`, `callback_url`. */
  readonly path: string;
  /** NDJSON only: the 1-based line. */
  readonly line: number | undefined;
  /** The limit that was exceeded, when one was. */
  readonly limit: number | undefined;

  constructor(code: IntakeErrorCode, path: string, extra: { line?: number; limit?: number } = {}) {
    super(describe(code, path, extra.line, extra.limit));
    this.code = code;
    this.path = path;
    this.line = extra.line;
    this.limit = extra.limit;
  }
}

/** For logs and stack traces only: the API turns the code into da/en text (api/jobs/intake-issues.ts). */
function describe(code: IntakeErrorCode, path: string, line: number | undefined, limit: number | undefined): string {
  const where = [line === undefined ? '' : `line ${line}`, path].filter((part) => part !== '').join(', ');
  return `${code}${where === '' ? '' : ` at ${where}`}${limit === undefined ? '' : ` (limit ${limit})`}`;
}

/**
 * A field name from the body is echoed in a path only when it looks like a field name (so a name
 * or an address sent as a key by mistake is never repeated back or logged).
 */
export function safeFieldName(name: string): string | null {
  return /^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(name) ? name : null;
}
