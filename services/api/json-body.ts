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
    for (const [key, inner] of Object.entries(value)) {
      if (!key.isWellFormed() || !wellFormedEverywhere(inner)) return false;
    }
  }
  return true;
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
    // The default parser answers through `done` and returns nothing worth awaiting.
    void parseJson(request, text, (error, value) => {
      if (error) done(error, undefined);
      else if (!wellFormedEverywhere(value)) done(invalidJson(), undefined);
      else done(null, value);
    });
  });
}
