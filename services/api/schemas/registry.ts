import { z } from 'zod';

/**
 * The registry of named API schemas. Every schema added here becomes one entry of
 * `components.schemas` in the OpenAPI document, and routes refer to it by that name, so the
 * document, the validation and the TypeScript types all come from the same zod values.
 */
export interface SchemaMeta {
  id: string;
  description?: string;
  deprecated?: boolean;
}

export const apiSchemas = z.registry<SchemaMeta>();

/** Registers `schema` under `id` and returns it unchanged, so modules can export it directly. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  apiSchemas.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

/** docs/decisions.md §11: every string field of a request is at most 200 characters. */
const MAX_STRING_LENGTH = 200;

export const boundedString = () => z.string().max(MAX_STRING_LENGTH);
