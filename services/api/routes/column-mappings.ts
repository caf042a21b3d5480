/**
 * Saved column mappings (docs/web.md "Saved column mappings"): a person saves the mapping of a
 * draft under a name; a later upload whose header row matches (services/domain/saved-mapping.ts)
 * is found with `?job_id=` and previewed with it by the page. Any person or key of the
 * organisation (columns are a member's work, like files); the header row is taken from the job
 * at the server, never from the request, so a saved row is always one a file had.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { appliesToChannel, hasHeaderText, headerKey } from '../../domain/saved-mapping.ts';
import type { ColumnMapping } from '../../domain/check-job.ts';
import type { JobStore } from '../../platform/store/jobs-port.ts';
import type { SavedMapping, SavedMappingStore } from '../../platform/store/saved-mappings-port.ts';
import { authOf } from '../auth.ts';
import { notFound, validationFailed, type IssueRef } from '../errors.ts';
import { issueAt, MAPPING_ISSUE_TEXTS } from '../issue-texts.ts';
import {
  ListColumnMappingsQuerySchema, SaveColumnMappingRequestSchema, SavedColumnMappingListSchema, SavedColumnMappingSchema,
} from '../schemas/column-mappings.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

export interface ColumnMappingsContext {
  store: SavedMappingStore;
  jobs: JobStore;
  now?: () => Date;
}

/** Enough for every export an organisation uses; a bound, so the list stays a list. */
export const MAX_SAVED_MAPPINGS = 200;

const spec = (s: Omit<RouteSpec, 'errors'> & { errors?: number[] }): RouteSpec => ({ errors: [400, 401, 402, 403, 404, 422, 500], ...s });

export const listColumnMappingsSpec = spec({
  method: 'GET', url: '/v2/column-mappings', operationId: 'listColumnMappings', authenticated: true,
  summary: "The organisation's saved column mappings, oldest first; with job_id only the one matching that job's header row",
  query: ListColumnMappingsQuerySchema,
  success: { status: 200, description: 'Saved mappings', schema: SavedColumnMappingListSchema },
});
export const saveColumnMappingSpec = spec({
  method: 'POST', url: '/v2/column-mappings', operationId: 'saveColumnMapping', authenticated: true,
  summary: "Saves a mapping for a job's header row (one per header row: saving again replaces it)",
  body: SaveColumnMappingRequestSchema,
  success: { status: 201, description: 'The saved mapping', schema: SavedColumnMappingSchema },
});
export const removeColumnMappingSpec = spec({
  method: 'DELETE', url: '/v2/column-mappings/{id}', operationId: 'removeColumnMapping', authenticated: true,
  summary: 'Removes a saved mapping',
  pathParams: { id: { description: 'The saved mapping id', schema: z.uuid() } },
  success: { status: 200, description: 'Removed', schema: z.strictObject({ id: z.uuid(), removed: z.literal(true) }) },
});

export const columnMappingSpecs: RouteSpec[] = [listColumnMappingsSpec, saveColumnMappingSpec, removeColumnMappingSpec];

const mappingJson = (m: SavedMapping) => ({
  id: m.id, name: m.name, columns: m.columns, column_mapping: m.column_mapping, channels: m.channels ?? null, created_at: m.created_at,
});

/** The channel a job's file came by, as saved mappings name them (an API upload is an upload). */
function channelOf(source: string): string {
  return source === 'api' ? 'upload' : source;
}

/** The mapping with every column as its index in `columns` (a header name must be one of them). */
function byIndex(mapping: ColumnMapping, columns: readonly string[]): ColumnMapping {
  const issues: IssueRef[] = [];
  const out: Record<string, number> = {};
  for (const [field, value] of Object.entries(mapping)) {
    if (value === undefined) continue;
    if (field === 'header_row') {
      out[field] = value as number;
      continue;
    }
    const index = typeof value === 'number' ? value : columns.indexOf(value);
    if (index < 0 || index >= columns.length) issues.push({ path: `column_mapping.${field}`, describe: (l) => MAPPING_ISSUE_TEXTS.column_not_found[l] });
    else out[field] = index;
  }
  if (issues.length > 0) throw validationFailed(issues);
  if (Object.keys(out).every((field) => field === 'header_row')) throw validationFailed([{ path: 'column_mapping', describe: (l) => MAPPING_ISSUE_TEXTS.no_columns_mapped[l] }]);
  return out;
}

export function registerColumnMappingRoutes(app: FastifyInstance, ctx: RouteContext, mappings: ColumnMappingsContext): void {
  const { store, jobs } = mappings;
  const now = mappings.now ?? (() => new Date());

  async function jobOf(scope: { org_id: string; mode: 'live' | 'test' }, id: string) {
    const job = await jobs.getJob(scope, id);
    if (!job) throw validationFailed([issueAt('job_id', 'unknown_job')]);
    return job;
  }

  registerRoute(app, listColumnMappingsSpec, [ctx.authenticate], async (request, reply) => {
    const parsed = ListColumnMappingsQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.query));
    const { org, mode } = authOf(request);
    const all = await store.listMappings(org.id);
    if (parsed.data.job_id === undefined) return reply.code(200).send({ data: all.map(mappingJson) });
    const job = await jobOf({ org_id: org.id, mode }, parsed.data.job_id);
    const key = headerKey(job.columns);
    return reply.code(200).send({ data: all.filter((m) => m.header_key === key && appliesToChannel(m, channelOf(job.source))).map(mappingJson) });
  });

  registerRoute(app, saveColumnMappingSpec, [ctx.authenticate], async (request, reply) => {
    const body = request.body as z.infer<typeof SaveColumnMappingRequestSchema>;
    const { org, mode } = authOf(request);
    const job = await jobOf({ org_id: org.id, mode }, body.job_id);
    // A file without a header row has nothing a later file could be recognised by.
    if (!hasHeaderText(job.columns) || body.column_mapping.header_row === -1) {
      throw validationFailed([{ path: 'job_id', describe: (l) => MAPPING_ISSUE_TEXTS.no_headers_to_match[l] }]);
    }
    const column_mapping = byIndex(body.column_mapping, job.columns);
    const key = headerKey(job.columns);
    const existing = await store.listMappings(org.id);
    if (existing.length >= MAX_SAVED_MAPPINGS && !existing.some((m) => m.header_key === key)) {
      throw validationFailed([{ path: 'name', describe: (l) => MAPPING_ISSUE_TEXTS.too_many_saved[l].replace('{max}', String(MAX_SAVED_MAPPINGS)) }]);
    }
    const stored = await store.saveMapping({
      id: randomUUID(), org_id: org.id, name: body.name, columns: [...job.columns], header_key: key, column_mapping,
      ...(body.channels ? { channels: [...new Set(body.channels)] } : {}), created_at: now().toISOString(),
    });
    return reply.code(201).send(mappingJson(stored));
  });

  registerRoute(app, removeColumnMappingSpec, [ctx.authenticate], async (request, reply) => {
    const { id } = request.params as { id: string };
    if (!z.uuid().safeParse(id).success || !(await store.removeMapping(authOf(request).org.id, id))) throw notFound();
    return reply.code(200).send({ id, removed: true });
  });
}
