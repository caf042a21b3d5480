import type { Locale } from '../../domain/types.ts';
import type { IntakeError, IntakeErrorCode } from '../../ingest/people/index.ts';
import { ApiError } from '../errors.ts';

/** Issue texts for a streamed body, in the same voice as zod-issues.ts; never a value. */
export const TEXTS: Record<IntakeErrorCode, Record<Locale, (limit?: number) => string>> = {
  invalid_utf8: { da: () => 'Indholdet er ikke gyldig UTF-8.', en: () => 'The body is not valid UTF-8.' },
  invalid_json: { da: () => 'Ikke gyldig JSON.', en: () => 'Not valid JSON.' },
  not_an_object: { da: () => 'Skal være et objekt.', en: () => 'Must be an object.' },
  not_an_array: { da: () => 'Skal være en liste.', en: () => 'Must be an array.' },
  not_a_string: { da: () => 'Skal være tekst.', en: () => 'Must be a string.' },
  string_too_long: { da: (n) => `Må højst være ${n} tegn.`, en: (n) => `Must be at most ${n} characters.` },
  unknown_field: { da: () => 'Ukendt felt.', en: () => 'Unknown field.' },
  duplicate_field: { da: () => 'Feltet er angivet to gange.', en: () => 'The field is given twice.' },
  value_too_large: { da: (n) => `Værdien er for stor (højst ${n} tegn).`, en: (n) => `The value is too large (at most ${n} characters).` },
  too_many_people: { da: (n) => `Skal have højst ${n} elementer.`, en: (n) => `Must have at most ${n} items.` },
  too_few_people: { da: (n) => `Skal have mindst ${n} elementer.`, en: (n) => `Must have at least ${n} items.` },
  missing_people: { da: () => 'Skal udfyldes.', en: () => 'Is required.' },
};

/**
 * A streamed-body error in the contract's terms (docs/decisions.md §5): bytes that are not UTF-8 or not
 * JSON are 400 `invalid_json`; everything else 422 with `details.issues` = [{path, message}].
 * NDJSON errors also name the 1-based `line`.
 */
/**
 * Bytes that are not UTF-8 or not JSON are the request's syntax (400); well-formed JSON that
 * breaks the schema or a limit is its content (422). Chosen here, at the HTTP edge: ingest only
 * names what is wrong.
 */
const BAD_SYNTAX: ReadonlySet<IntakeErrorCode> = new Set(['invalid_utf8', 'invalid_json']);

export function apiErrorOfIntake(error: IntakeError): ApiError {
  const describe = (locale: Locale) => TEXTS[error.code][locale](error.limit);
  const where = { ...(error.path !== '' ? { path: error.path } : {}), ...(error.line !== undefined ? { line: error.line } : {}) };
  if (BAD_SYNTAX.has(error.code)) {
    return new ApiError({
      code: 'invalid_request',
      messageKey: 'invalid_json',
      status: 400,
      details: { reason: error.code === 'invalid_utf8' ? 'invalid_utf8' : 'invalid_json', ...where },
    });
  }
  return new ApiError({
    code: 'invalid_request',
    messageKey: 'validation',
    issues: [{ path: error.path, describe }],
    ...(error.line !== undefined ? { details: { line: error.line } } : {}),
  });
}
