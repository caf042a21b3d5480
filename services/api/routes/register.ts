import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { ErrorSchema } from '../schemas/error.ts';
import { withPlainBody } from '../zod-compilers.ts';
import type { RouteSpec } from './route-spec.ts';

/** Registers `spec` with fastify: its zod schemas validate the body and check every response. */
export function registerRoute(
  app: FastifyInstance,
  spec: RouteSpec,
  /** Hooks before the body is read; a hook may set response headers on `reply` (the rate limit). */
  onRequest: Array<(request: FastifyRequest, reply?: FastifyReply) => Promise<void>>,
  handler: RouteHandlerMethod,
): void {
  // A file response is a stream: nothing for the serializer to check.
  const response: Record<number, unknown> = spec.success.media ? {} : { [spec.success.status]: spec.success.schema };
  for (const status of spec.errors) response[status] = ErrorSchema;
  if (spec.body && spec.plainBody) withPlainBody(spec.body, spec.plainBody);
  app.route({
    method: spec.method,
    // `{id}` in the documented path is fastify's `:id`.
    url: spec.url.replace(/\{(\w+)\}/g, ':$1'),
    ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
    schema: { ...(spec.body ? { body: spec.body } : {}), response },
    onRequest: onRequest.map((hook) => async (request, reply) => hook(request, reply)),
    handler,
  });
}
