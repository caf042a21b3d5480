import { z } from 'zod';
import { apiSchemas, ErrorSchema } from './schemas/index.ts';
import { RATE_LIMIT_HEADERS, type DocumentedHeader, type RouteSpec } from './routes/route-spec.ts';

/** A named schema by reference; an unnamed one (the document's own) inline. */
const ref = (schema: z.ZodType): object => {
  const meta = apiSchemas.get(schema);
  return meta ? { $ref: `#/components/schemas/${meta.id}` } : stripDialect(z.toJSONSchema(schema));
};

/**
 * Largest request head (request line and headers) the HTTP server reads; beyond it Node answers
 * 431 itself. 64 KiB rather than Node's 16 KiB, so that the longest parameter a route accepts,
 * plus one character, percent-encoded as 4-byte UTF-8 (12 bytes a character), still reaches the
 * route and gets its documented 422 (a 2,049-character certificate token is 24.6 KB).
 */
export const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid_request: the body is not valid JSON (or multipart/form-data), or the path could not be read (details.reason bad_request)',
  401: 'unauthorized: missing, malformed, unknown or revoked API key',
  402: "payment_required: the organisation's plan does not cover the call, or it is suspended",
  404: 'not_found',
  409: 'conflict: a request with the same Idempotency-Key is still in progress, the job is not done (results, file), or not a draft (start)',
  410: 'gone: the job\'s personal data has been deleted',
  413: 'invalid_request: the body (or the uploaded file: 100 MB) is over the size limit',
  422: 'invalid_request: schema violation (details.issues), a file that cannot be used (details.reason file_…), or Idempotency-Key reused with another body (details.reason)',
  429: 'rate_limited: over the key\'s rate; see Retry-After',
  500: 'internal_error',
  503: 'list_not_ready: no list version is active yet; or service_unavailable: no room to take the job in right now (details.reason spool_full), nothing was created; see Retry-After',
};

const HEADERS: Record<DocumentedHeader, { description: string; schema: object }> = {
  'Request-Id': { description: 'Unique id of this request; also `error.request_id`', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
  'Idempotent-Replayed': { description: '`true` when this is the replayed first response', schema: { type: 'string', enum: ['true'] } },
  'WWW-Authenticate': { description: 'Bearer', schema: { type: 'string' } },
  Location: { description: 'Path of the created resource', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'The key\'s rate: `<requests per second>;w=1;burst=<burst>` (draft-ietf-httpapi-ratelimit-headers)', schema: { type: 'string' } },
  'RateLimit-Limit': { description: 'Requests the key may make at once (the burst)', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Remaining': { description: 'Requests left right now', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the allowance is full again (on 429: until the next request fits)', schema: { type: 'integer', minimum: 0 } },
};

function headersFor(names: DocumentedHeader[]) {
  return Object.fromEntries(names.map((name) => [name, HEADERS[name]]));
}

function errorHeaders(status: number): DocumentedHeader[] {
  if (status === 429) return ['Request-Id', 'Retry-After', ...RATE_LIMIT_HEADERS];
  if (status === 503) return ['Request-Id', 'Retry-After'];
  if (status === 401) return ['Request-Id', 'WWW-Authenticate'];
  return ['Request-Id'];
}

function operation(spec: RouteSpec) {
  const responses: Record<string, object> = {
    [spec.success.status]: {
      description: spec.success.description,
      headers: headersFor(spec.success.headers ?? ['Request-Id']),
      content: spec.success.media ?? { 'application/json': { schema: ref(spec.success.schema) } },
    },
  };
  for (const status of spec.errors) {
    responses[status] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'error',
      headers: headersFor(errorHeaders(status)),
      content: { 'application/json': { schema: ref(ErrorSchema) } },
    };
  }
  // Any operation: answered by Node before the app sees the request, so without a body.
  responses[431] = { description: `The request line and headers together are over ${MAX_REQUEST_HEAD_BYTES / 1024} KiB (no body)` };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.authenticated ? {} : { security: [] }),
    parameters: [
      {
        name: 'Accept-Language',
        in: 'header',
        required: false,
        description: 'Language of messages and match labels: `da` (default) or `en`',
        schema: { type: 'string' },
      },
      ...(spec.requestHeaders ?? []).map((h) => ({
        name: h.name,
        in: 'header',
        required: h.required,
        description: h.description,
        schema: stripDialect(z.toJSONSchema(h.schema)),
      })),
      ...Object.entries(spec.pathParams ?? {}).map(([name, p]) => ({
        name,
        in: 'path',
        required: true,
        description: p.description,
        schema: stripDialect(z.toJSONSchema(p.schema)),
      })),
      ...Object.entries(spec.query?.shape ?? {}).map(([name, schema]) => ({
        name,
        in: 'query',
        required: false,
        ...((schema as z.ZodType).description ? { description: (schema as z.ZodType).description } : {}),
        schema: stripDialect(z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' })),
      })),
    ],
    ...(spec.body
      ? {
          requestBody: {
            required: spec.bodyOptional !== true,
            content: {
              'application/json': { schema: ref(spec.body) },
              ...Object.fromEntries(
                (spec.otherBodies ?? []).map((b) => [b.mediaType, { description: b.description, schema: ref(b.schema) }]),
              ),
            },
          },
        }
      : {}),
    responses,
  };
}

function stripDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/**
 * The OpenAPI 3.1 document of `specs`, generated from the same zod schemas the routes validate
 * with. Every registered schema appears once under components.schemas; operations refer to them.
 */
export function buildOpenApiDocument(specs: RouteSpec[]): object {
  const { schemas } = z.toJSONSchema(apiSchemas, { uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  const components = Object.fromEntries(Object.entries(schemas).map(([id, s]) => [id, stripDialect(s)]));
  const paths: Record<string, Record<string, object>> = {};
  for (const spec of specs) {
    paths[spec.url] ??= {};
    paths[spec.url][spec.method.toLowerCase()] = operation(spec);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Do-Not-Contact Check API',
      version: '2.0.0',
      description: 'Checks people against the Danish Robinson list. See docs/contract.md and docs/api-decisions.md.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: rl_live_… or rl_test_…' },
      },
    },
  };
}
