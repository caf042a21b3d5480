/**
 * The JSON body parser of every route fastify parses for us (POST /v2/checks and the small
 * bodies): the bytes must be UTF-8 and every string well-formed Unicode, else 400 in the
 * contract's shape, before any handler sees the body (docs/api-decisions.md "Unicode"). fastify's
 * own parser decodes leniently (bad bytes become U+FFFD: a name silently changed) and lets
 * `"\ud800"` through (echoed back, it makes the answer unreadable to strict JSON parsers).
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** True when every string (keys included) of a parsed JSON value is well-formed UTF-16. */
export function wellFormedEverywhere(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormedEverywhere);
  if (value !== null && typeof value === 'object') {
    // for…in, not Object.entries: no array per object (a parsed JSON object inherits nothing enumerable).
    for (const key in value) {
      if (!key.isWellFormed() || !wellFormedEverywhere((value as Record<string, unknown>)[key])) return false;
    }
  }
  return true;
}

/**
 * JSON.parse alone, where fastify's parser could find nothing to refuse; null: let fastify's
 * parser read the text (and word its errors). Text without a `\u` escape spells "__proto__" and
 * "constructor" only as themselves, so when neither word is in it either, the guarded parser's
 * two scans of the whole text have nothing to find (they took a 1,000-person body's parse from
 * 0.38 to 0.64 ms: docs/architecture.md "Synchronous checks").
 */
function plainJson(text: string): { value: unknown } | null {
  if (text.includes('__proto__') || text.includes('constructor')) return null;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

const invalidUtf8 = () => new ApiError({ code: 'invalid_request', messageKey: 'invalid_utf8', status: 400, details: { reason: 'invalid_utf8' } });
const invalidJson = () => new ApiError({ code: 'invalid_request', messageKey: 'invalid_json', status: 400, details: { reason: 'invalid_json' } });

/** Replaces fastify's application/json parser (its prototype-poisoning protection kept). */
export function useStrictJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      done(invalidUtf8(), undefined);
      return;
    }
    // Only a `\u` escape can make a lone surrogate: the text itself was decoded strictly.
    const escaped = text.includes('\\u');
    const plain = escaped ? null : plainJson(text);
    if (plain) {
      done(null, plain.value);
      return;
    }
    // The default parser answers through `done` and returns nothing worth awaiting.
    void parseJson(request, text, (error, value) => {
      if (error) done(error, undefined);
      else if (escaped && !wellFormedEverywhere(value)) done(invalidJson(), undefined);
      else done(null, value);
    });
  });
}
