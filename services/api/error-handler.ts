import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorFields, type Logger } from '../platform/logger.ts';
import { ApiError } from './errors.ts';
import { localeFrom } from './locale.ts';
import { message } from './messages.ts';
import type { ErrorBody } from './schemas/error.ts';
import { isPermanent } from '../platform/errors.ts';

/** fastify's own errors (body parsing, limits) in the contract's terms (docs/decisions.md §5). */
function fromFastify(error: FastifyError): ApiError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError({ code: 'invalid_request', messageKey: 'invalid_json', status: 400, details: { reason: 'invalid_json' } });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // §5 has no 415: a body that is not JSON is answered like invalid JSON.
      return new ApiError({
        code: 'invalid_request',
        messageKey: 'unsupported_media_type',
        status: 400,
        details: { reason: 'unsupported_media_type' },
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError({ code: 'invalid_request', messageKey: 'body_too_large', status: 413, details: { reason: 'body_too_large' } });
  }
  // fastify's JSON parser reports a syntax error as a plain SyntaxError with statusCode 400.
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new ApiError({ code: 'invalid_request', messageKey: 'invalid_json', status: 400, details: { reason: 'invalid_json' } });
  }
  // Any other client error fastify raises (a malformed URL, a bad header): the caller's fault,
  // so a 400 rather than a 500.
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError({ code: 'invalid_request', messageKey: 'bad_request', status: 400, details: { reason: 'bad_request' } });
  }
  return null;
}

/** Drops the first line of a stack (`Name: message`), which may quote input; frames stay. */
function framesOnly(stack: string | undefined): string | undefined {
  return stack?.split('\n').slice(1).join('\n');
}

/**
 * The one error handler: every error becomes the contract's body with `request_id`, a message in
 * the request's language, and for 5xx nothing of the cause. The log gets ids and codes only.
 */
export function createErrorHandler(logger: Logger) {
  return function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const apiError = error instanceof ApiError ? error : fromFastify(error);
    const locale = localeFrom(request.headers['accept-language']);
    const known =
      apiError ?? new ApiError({ code: 'internal_error', messageKey: 'internal_error' });
    if (!apiError) {
      logger.error(
        // permanent: the same request fails the same way (a mapping the edge lacks), not a
        // passing failure of a store or the event log (docs/architecture.md "Conventions").
        { request_id: request.id, ...errorFields(error), permanent: isPermanent(error), stack: framesOnly(error.stack) },
        'api.unhandled_error',
      );
    }
    const details: Record<string, unknown> = { ...known.details };
    if (known.issues) details.issues = known.issues.map((i) => ({ path: i.path, message: i.describe(locale) }));
    const body: ErrorBody = {
      error: {
        code: known.code,
        message: known.describe?.(locale) ?? message(known.messageKey, locale),
        ...(Object.keys(details).length > 0 ? { details } : {}),
        request_id: request.id,
      },
    };
    // Set here as well as in onRequest: errors found before routing never reach onRequest.
    reply.header('Request-Id', request.id);
    // Answered before the body was read whole (fail fast, 413, a full spool): the rest of the
    // body may still be on its way and the request stream may be gone, so this connection cannot
    // carry another request. Saying so keeps a client from reusing it (it would see a reset).
    if (!request.raw.complete) reply.header('Connection', 'close');
    reply.headers(known.headers).code(known.status).type('application/json; charset=utf-8').send(body);
  };
}
