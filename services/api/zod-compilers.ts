import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import type { z } from 'zod';
import { validationFailed } from './errors.ts';
import { issuesFromZod } from './zod-issues.ts';

/**
 * Route schemas are zod schemas. Requests are parsed with them (422 with `details.issues` on
 * failure); responses are checked against them before they leave, so a response that breaks the
 * contract is a 500 here rather than a surprise for a client.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema }) => (data) => {
  // fastify hands a missing body over as null; treat it as missing ("Is required").
  const input = data === null ? undefined : data;
  const result = schema.safeParse(input);
  if (result.success) return { value: result.data };
  return { error: validationFailed(issuesFromZod(result.error.issues, input)) };
};

export const zodSerializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema }) => (data) =>
  JSON.stringify(schema.parse(data));
