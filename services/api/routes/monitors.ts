/**
 * /v2/monitors (docs/decisions.md §16, docs/monitors.md): an organisation's monitored contact sets. The
 * contacts come as JSON, NDJSON or a file exactly as for check jobs (the same streaming readers
 * and file readers of services/ingest); the whole input is read and validated before anything is
 * created or replaced. The monitor service re-checks each monitor as a `source: monitor` job.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import type { PersonInput } from '../../domain/types.ts';
import { IntakeError, JobInputError, readPeopleFromJson, readPeopleFromNdjson, spoolBytes } from '../../ingest/index.ts';
import { callbackProblem } from '../../ingest/jobs/intake.ts';
import { jobInputIssue } from '../../ingest/jobs/errors.ts';
import {
  createMonitor, deleteMonitor, MAX_MONITOR_CONTACTS, MonitorNotFoundError, NoContactsError, replaceMonitorContacts, TooManyContactsError,
  type ContactSource, type MonitorSpec,
} from '../../ingest/monitors/contacts.ts';
import type { IdempotencyScope, StoredResponse } from '../../platform/store/idempotency-port.ts';
import type { MonitorRecord, MonitorStore } from '../../platform/store/monitors-port.ts';
import { authOf } from '../auth.ts';
import { ApiError, notFound, validationFailed } from '../errors.ts';
import { idempotencyKeyHeader, idempotencyKeyOf, sendOutcome, type IdempotentOutcome } from '../idempotency.ts';
import { localeFrom } from '../locale.ts';
import { apiErrorOfIntake } from '../jobs/intake-issues.ts';
import { jobMediaTypeOf } from '../jobs/read-body.ts';
import { idempotencyBodyOf, readUpload, UploadFormSchema } from '../jobs/read-upload.ts';
import { PersonInputSchema } from '../schemas/person-input.ts';
import {
  CreateMonitorRequestSchema, MonitorFieldsSchema, MonitorListQuerySchema, MonitorListSchema, MonitorQuerySchema, MonitorSchema,
  ReplaceMonitorContactsRequestSchema, type Monitor, type MonitorFields,
} from '../schemas/monitor.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { apiErrorOfIngest } from './check-job-files.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';
import { atMostContacts, issueText } from '../issue-texts.ts';
import type { Quotas } from '../quotas.ts';

/** What the monitor routes need besides the RouteContext. */
export interface MonitorsContext {
  monitors: MonitorStore;
  /** The callback guard of jobs (https, public addresses, allow-list). */
  checkCallbackUrl: (url: string) => Promise<unknown>;
  /** Ends a deleted monitor's check in flight (its job purged). */
  endRun: (jobId: string) => Promise<void>;
  /** The organisation's active private list version (use_private_list), null when none. */
  privateListVersion: (orgId: string) => Promise<string | null>;
  spoolDir: string;
  maxBodyBytes: number;
  maxUploadBytes: number;
  /**
   * The organisation's quotas (docs/api-decisions.md "Quotas"): reading contacts takes an upload
   * slot like an upload, and each create or replacement one monitor upload of the allowance.
   */
  quotas: Pick<Quotas, 'withFileSlot' | 'takeMonitorUpload'>;
  clock: () => Date;
}

const monitorId = { id: { description: 'The monitor id', schema: z.uuid() } };
const bodies = (what: string) => [
  { mediaType: 'application/x-ndjson', schema: PersonInputSchema, description: `One PersonInput per line${what}` },
  { mediaType: 'multipart/form-data', schema: UploadFormSchema, description: 'A spreadsheet or CSV in `file` (as for check jobs); `options` may hold policy, stop_level and retention_days' },
];

export const createMonitorSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/monitors',
  operationId: 'createMonitor',
  summary: 'Create a monitor: contacts re-checked at every new list version',
  description:
    'The contacts are read as a stream and validated whole before the monitor exists (a bad person is 400/422 and ' +
    'creates nothing). The monitor is checked against the active list version within seconds (a job with source ' +
    '`monitor`), and again whenever a new version is activated; each check\'s results carry `change` ' +
    '(`newly_blocked`, `released`, `changed_level`) and its callback the counts.',
  authenticated: true,
  body: CreateMonitorRequestSchema,
  otherBodies: bodies('; the other fields in the query string'),
  query: MonitorQuerySchema,
  requestHeaders: [idempotencyKeyHeader],
  success: { status: 201, description: 'The monitor', schema: MonitorSchema, headers: ['Request-Id', 'Idempotent-Replayed', 'Location'] },
  errors: [400, 401, 402, 409, 413, 422, 429, 500, 503],
};

export const listMonitorsSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/monitors',
  operationId: 'listMonitors',
  summary: "The organisation's monitors, oldest first",
  authenticated: true,
  query: MonitorListQuerySchema,
  success: { status: 200, description: 'One page', schema: MonitorListSchema },
  errors: [400, 401, 402, 422, 500],
};

export const getMonitorSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/monitors/{id}',
  operationId: 'getMonitor',
  summary: 'A monitor: its contacts count, last and pending check',
  authenticated: true,
  pathParams: monitorId,
  success: { status: 200, description: 'The monitor', schema: MonitorSchema },
  errors: [400, 401, 402, 404, 500],
};

export const replaceMonitorContactsSpec: RouteSpec = {
  method: 'PUT',
  url: '/v2/monitors/{id}/contacts',
  operationId: 'replaceMonitorContacts',
  summary: "Replace all of a monitor's contacts",
  description:
    'Read and validated whole first: a bad person changes nothing. A contact sent before (the same fields) keeps its ' +
    'last verdict, so the re-check of the new set (started within seconds) reports only real changes.',
  authenticated: true,
  pathParams: monitorId,
  body: ReplaceMonitorContactsRequestSchema,
  otherBodies: bodies(''),
  requestHeaders: [idempotencyKeyHeader],
  success: { status: 200, description: 'The monitor', schema: MonitorSchema, headers: ['Request-Id', 'Idempotent-Replayed'] },
  errors: [400, 401, 402, 404, 409, 413, 422, 429, 500, 503],
};

export const deleteMonitorSpec: RouteSpec = {
  method: 'DELETE',
  url: '/v2/monitors/{id}',
  operationId: 'deleteMonitor',
  summary: "Delete a monitor and its contacts now",
  description: 'Contacts and verdicts are removed at once; a check running is ended (its job deleted, no callback). Its finished jobs stay until their own retention.',
  authenticated: true,
  pathParams: monitorId,
  success: { status: 200, description: 'The monitor, deleted', schema: MonitorSchema },
  errors: [400, 401, 402, 404, 500],
};

export const monitorSpecs = [createMonitorSpec, listMonitorsSpec, getMonitorSpec, replaceMonitorContactsSpec, deleteMonitorSpec];


/** The Monitor JSON of a record: the one place that decides what a monitor looks like outside. */
export function toMonitorJson(m: MonitorRecord): Monitor {
  return {
    id: m.id,
    status: m.deleted_at === null ? 'active' : 'deleted',
    contact_count: m.contact_count,
    external_ref: m.external_ref,
    callback_url: m.callback_url,
    policy: m.options.policy,
    stop_level: m.options.stop_level,
    use_private_list: m.options.use_private_list === true,
    retention_days: m.retention_days,
    delete_after: m.delete_after,
    last_check: m.checked ? { job_id: m.checked.job_id, list_version_id: m.checked.list_version_id, checked_at: m.checked.checked_at } : null,
    pending_check: m.run ? { job_id: m.run.job_id, list_version_id: m.run.list_version_id, checked_at: null } : null,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}

const required = (path: string) => validationFailed([{ path, describe: issueText('required') }]);

function parseOrThrow<T>(schema: z.ZodType<T>, data: unknown, prefix: string[] = []): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] }));
  throw validationFailed(issuesFromZod(issues, prefix.length > 0 ? { [prefix[0]]: data } : data));
}

/** An error of reading or storing contacts in the contract's terms (docs/decisions.md §5); others pass on (500). */
function apiErrorOfContacts(error: unknown): unknown {
  if (error instanceof IntakeError) return apiErrorOfIntake(error);
  if (error instanceof MonitorNotFoundError) return notFound();
  if (error instanceof TooManyContactsError) {
    return validationFailed([atMostContacts('people', error.limit)]);
  }
  if (error instanceof NoContactsError) {
    return validationFailed([{ path: 'people', describe: issueText('at_least_one_contact') }]);
  }
  return apiErrorOfIngest(error);
}

export function registerMonitorRoutes(app: FastifyInstance, ctx: RouteContext, mctx: MonitorsContext): void {
  const deps = { monitors: mctx.monitors, clock: mctx.clock };

  async function scoped(request: FastifyRequest): Promise<MonitorRecord> {
    const { org, mode } = authOf(request);
    const id = (request.params as { id: string }).id;
    if (!z.uuid().safeParse(id).success) throw notFound();
    const m = await mctx.monitors.getMonitor({ org_id: org.id, mode }, id);
    if (!m) throw notFound();
    return m;
  }

  /** The request body's bytes, counted against the limit (413 beyond). */
  async function* counted(request: FastifyRequest): AsyncGenerator<Uint8Array> {
    let bytes = 0;
    for await (const chunk of request.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      if (bytes > mctx.maxBodyBytes) {
        throw new ApiError({ code: 'invalid_request', messageKey: 'body_too_large', status: 413, details: { reason: 'body_too_large' } });
      }
      yield chunk;
    }
  }

  /**
   * Reads the contacts of a request and runs `use` with them while the source is open; the
   * fields of the monitor (JSON body fields, NDJSON query, multipart options) are given to
   * `use` once read. Upload files are removed afterwards, whatever happened.
   *
   * With an Idempotency-Key (docs/decisions.md §6) `use` runs at most once per (scope, key, body): the
   * fingerprint must be known before anything is written, so a JSON/NDJSON body is first spooled
   * to a file and hashed (a multipart file is spooled anyway), and read from there.
   */
  async function withContacts(
    request: FastifyRequest,
    allowFields: boolean,
    scope: IdempotencyScope,
    use: (source: ContactSource, fields: () => MonitorFields) => Promise<StoredResponse>,
  ): Promise<IdempotentOutcome> {
    const idempotencyKey = idempotencyKeyOf(request.headers);
    const mediaType = jobMediaTypeOf(request);
    const query = (request.query ?? {}) as Record<string, unknown>;
    if (mediaType === 'multipart') {
      if (Object.keys(query).length > 0) throw validationFailed([{ path: '', describe: issueText('no_query_parameters') }]);
      const upload = await readUpload(request, mctx.spoolDir, mctx.maxUploadBytes);
      try {
        const options = upload.options ?? {};
        const fields: MonitorFields = {
          ...(upload.callback_url !== null ? { callback_url: upload.callback_url } : {}),
          ...(upload.external_ref !== null ? { external_ref: upload.external_ref } : {}),
          ...(options.policy ? { policy: options.policy } : {}),
          ...(options.stop_level !== undefined ? { stop_level: options.stop_level } : {}),
          ...(options.use_private_list !== undefined ? { use_private_list: options.use_private_list } : {}),
          ...(options.retention_days !== undefined ? { retention_days: options.retention_days } : {}),
        };
        if (!allowFields && Object.keys(fields).length > 0) throw validationFailed([{ path: 'options', describe: issueText('only_contacts_replaceable') }]);
        return await ctx.idempotency.run(scope, idempotencyKey, idempotencyBodyOf(upload), () =>
          use({ kind: 'file', path: upload.path, filename: upload.filename, column_mapping: upload.column_mapping }, () => fields));
      } finally {
        await rm(upload.path, { force: true });
      }
    }
    const q = allowFields ? parseOrThrow(MonitorQuerySchema, query) : parseOrThrow(z.strictObject({}), query);
    if (request.body === null || request.body === undefined) throw required('people');
    const spooled = idempotencyKey === undefined ? null : await spoolBytes(counted(request), mctx.spoolDir);
    try {
      const bytes = spooled === null ? counted(request) : createReadStream(spooled.path);
      // Same key + same bytes (and the same query) is the same request.
      return await ctx.idempotency.run(scope, idempotencyKey, { media_type: mediaType, query, body_sha256: spooled?.sha256 }, () => usePeople(bytes));
    } finally {
      if (spooled !== null) await rm(spooled.path, { force: true });
    }

    function usePeople(bytes: AsyncIterable<Uint8Array>): Promise<StoredResponse> {
      let jsonFields: Record<string, unknown> = {};
      const allowed = (allowFields ? MonitorFieldsSchema.shape : {}) as Record<string, z.ZodType>;
      async function* people(): AsyncGenerator<PersonInput[]> {
        let read = false;
        try {
          if (mediaType === 'json') {
            const onField = (name: string, value: unknown) => {
              if (!Object.hasOwn(allowed, name)) {
                throw validationFailed([{ path: /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? name : '', describe: issueText('unknown_field') }]);
              }
              parseOrThrow(allowed[name], value, [name]);
            };
            const summary = yield* readPeopleFromJson(markRead(bytes), { maxPeople: MAX_MONITOR_CONTACTS, onField });
            jsonFields = summary.fields;
          } else {
            yield* readPeopleFromNdjson(markRead(bytes), { maxPeople: MAX_MONITOR_CONTACTS });
          }
        } catch (error) {
          if (error instanceof IntakeError && !read) throw required('people');
          throw error;
        }
        async function* markRead(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
          for await (const chunk of source) {
            if (chunk.length > 0) read = true;
            yield chunk;
          }
        }
      }
      return use({ kind: 'people', people: people() }, () => {
        const body = parseOrThrow(MonitorFieldsSchema, jsonFields);
        const both = Object.keys(body).filter((k) => (q as Record<string, unknown>)[k] !== undefined);
        if (both.length > 0) {
          throw validationFailed(both.map((path) => ({ path, describe: issueText('given_twice') })));
        }
        return { ...body, ...(q as MonitorFields) };
      });
    }
  }

  /**
   * Runs a create or a replacement of contacts within the organisation's quotas, checked before
   * the body is read, so a refused request stores nothing: one upload slot while the contacts are
   * read and stored, one monitor upload of the allowance (each is a full re-check at the next
   * walk, docs/api-decisions.md "Quotas").
   */
  function withQuota<T>(orgId: string, work: () => Promise<T>): Promise<T> {
    return mctx.quotas.withFileSlot(orgId, async () => {
      mctx.quotas.takeMonitorUpload(orgId);
      return work();
    });
  }

  /** The stored answer of a monitor call (what an Idempotency-Key replays byte for byte). */
  const answer = (status: number, m: MonitorRecord): StoredResponse => ({ status, body: JSON.stringify(MonitorSchema.parse(toMonitorJson(m))) });

  function send(reply: FastifyReply, status: number, m: MonitorRecord) {
    return reply.code(status).type('application/json; charset=utf-8').send(answer(status, m).body);
  }

  // Bodies are read by the handlers as streams (as POST /v2/check-jobs does).
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(['application/json', 'application/x-ndjson'], (_request, payload, done) => done(null, payload));
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, null));
    await scope.register(multipart, { throwFileSizeLimit: true });

    registerRoute(scope, { ...createMonitorSpec, body: undefined }, [ctx.authenticate], async (request, reply) => {
      const { org, mode, key } = authOf(request);
      const locale = localeFrom(request.headers['accept-language']);
      const outcome = await withQuota(org.id, () => withContacts(request, true, { orgId: org.id, mode, endpoint: 'POST /v2/monitors' }, async (source, fieldsOf) => {
        const monitor = await createMonitor(deps, async (): Promise<MonitorSpec> => {
          const fields = fieldsOf();
          // A live monitor that asks for the private list needs one now (a test key has none: §3).
          if (fields.use_private_list === true && mode === 'live' && (await mctx.privateListVersion(org.id)) === null) {
            throw new JobInputError([jobInputIssue('use_private_list', 'private_list_missing')]);
          }
          if (fields.callback_url !== undefined) {
            try {
              await mctx.checkCallbackUrl(fields.callback_url);
            } catch (error) {
              throw new JobInputError([jobInputIssue('callback_url', callbackProblem(error))]);
            }
          }
          return {
            org, mode, keyHash: key.key_hash, locale,
            callback_url: fields.callback_url ?? null, external_ref: fields.external_ref ?? null,
            ...(fields.policy ? { policy: fields.policy } : {}),
            ...(fields.stop_level !== undefined ? { stop_level: fields.stop_level } : {}),
            ...(fields.retention_days !== undefined ? { retention_days: fields.retention_days } : {}),
            ...(fields.use_private_list !== undefined ? { use_private_list: fields.use_private_list } : {}),
          };
        }, source);
        ctx.logger.info({ monitor_id: monitor.id, org_id: org.id, contacts: monitor.contact_count, request_id: request.id }, 'monitor.created');
        return answer(201, monitor);
      }).catch((error: unknown) => {
        throw apiErrorOfContacts(error);
      }));
      reply.header('Location', `/v2/monitors/${(JSON.parse(outcome.body) as { id: string }).id}`);
      return sendOutcome(reply, outcome);
    });

    registerRoute(scope, { ...replaceMonitorContactsSpec, body: undefined }, [ctx.authenticate], async (request, reply) => {
      const { org, mode } = authOf(request);
      const current = await scoped(request);
      // The key is scoped to this monitor: the same key on another monitor is another call.
      const outcome = await withQuota(org.id, () => withContacts(request, false, { orgId: org.id, mode, endpoint: `PUT /v2/monitors/${current.id}/contacts` }, async (source, fieldsOf) => {
        if (Object.keys(fieldsOf()).length > 0) throw validationFailed([{ path: '', describe: issueText('only_contacts_replaceable') }]);
        const monitor = await replaceMonitorContacts(deps, { organisationId: org.id, mode, monitorId: current.id, source });
        ctx.logger.info({ monitor_id: monitor.id, org_id: org.id, contacts: monitor.contact_count, request_id: request.id }, 'monitor.contacts_replaced');
        return answer(200, monitor);
      }).catch((error: unknown) => {
        throw apiErrorOfContacts(error);
      }));
      return sendOutcome(reply, outcome);
    });
  });

  registerRoute(app, listMonitorsSpec, [ctx.authenticate], async (request, reply) => {
    const { org, mode } = authOf(request);
    const parsed = MonitorListQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.query));
    const after = parsed.data.cursor ?? null;
    if (after !== null && !z.uuid().safeParse(after).success) {
      throw validationFailed([{ path: 'cursor', describe: issueText('invalid_cursor') }]);
    }
    const page = await mctx.monitors.listMonitors({ org_id: org.id, mode }, { after, limit: parsed.data.limit + 1 > 1000 ? 1000 : parsed.data.limit + 1 });
    const shown = page.slice(0, parsed.data.limit);
    const more = page.length > parsed.data.limit || (parsed.data.limit === 1000 && page.length === 1000);
    return reply.code(200).send({ monitors: shown.map(toMonitorJson), next_cursor: more ? shown[shown.length - 1].id : null });
  });

  registerRoute(app, getMonitorSpec, [ctx.authenticate], async (request, reply) => send(reply, 200, await scoped(request)));

  registerRoute(app, deleteMonitorSpec, [ctx.authenticate], async (request, reply) => {
    const { org, mode } = authOf(request);
    const current = await scoped(request);
    const deleted = await deleteMonitor({ ...deps, endRun: mctx.endRun }, { org_id: org.id, mode }, current.id).catch((error: unknown) => {
      throw apiErrorOfContacts(error);
    });
    ctx.logger.info({ monitor_id: current.id, org_id: org.id, request_id: request.id }, 'monitor.deleted');
    return send(reply, 200, deleted);
  });
}
