import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import type { z } from 'zod';
import { validationFailed } from './errors.ts';
import { issuesFromZod } from './zod-issues.ts';

/** Body schemas with a shortcut (RouteSpec `plainBody`), consulted before zod parses a body. */
const plainBodies = new WeakMap<z.ZodType, (data: unknown) => unknown>();

/**
 * Gives the body schema `schema` a shortcut: what `plain` returns is taken as the body; when it
 * returns null, zod parses the body as usual.
 */
export function withPlainBody(schema: z.ZodType, plain: (data: unknown) => unknown): void {
  plainBodies.set(schema, plain);
}

/**
 * Route schemas are zod schemas. Requests are parsed with them (422 with `details.issues` on
 * failure); responses are checked against them before they leave, so a response that breaks the
 * contract is a 500 here rather than a surprise for a client.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  // Routes are registered (and their shortcuts given) before fastify compiles their schemas.
  const shortcut = httpPart === 'body' ? plainBodies.get(schema) : undefined;
  return (data) => {
    // fastify hands a missing body over as null; treat it as missing ("Is required").
    const input = data === null ? undefined : data;
    const plain = shortcut?.(input) ?? null;
    if (plain !== null) return { value: plain };
    const result = schema.safeParse(input);
    if (result.success) return { value: result.data };
    return { error: validationFailed(issuesFromZod(result.error.issues, input)) };
  };
};

export const zodSerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema }) => (data) =>
  JSON.stringify(schema.parse(data));
