import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { buildOpenApiDocument } from '../openapi.ts';
import type { RouteSpec } from './route-spec.ts';

const openApiSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI 3.1 document (no key needed)',
  authenticated: false,
  success: { status: 200, description: 'The OpenAPI document', schema: z.looseObject({ openapi: z.literal('3.1.0') }) },
  errors: [500],
};

/** Serves the document of `specs` (this route included), built once on first request. */
export function registerOpenApiRoute(app: FastifyInstance, specs: RouteSpec[]): void {
  let document: string | null = null;
  app.get(openApiSpec.url, async (_request, reply) => {
    document ??= JSON.stringify(buildOpenApiDocument([...specs, openApiSpec]));
    return reply.type('application/json; charset=utf-8').send(document);
  });
}
