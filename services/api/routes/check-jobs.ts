import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { apiErrorOfIngest } from './check-job-files.ts';
import { InvalidSealError } from '../../platform/keys/cursor-seal.ts';
import { InvalidCursorError } from '../../platform/store/job-results.ts';
import type { JobRecord } from '../../platform/store/jobs-port.ts';
import { authOf } from '../auth.ts';
import { renderCheckJob } from '../check-job-json.ts';
import { ApiError, notFound, validationFailed } from '../errors.ts';
import { idempotencyKeyHeader, idempotencyKeyOf, sendOutcome } from '../idempotency.ts';
import { localeFrom } from '../locale.ts';
import { fieldsFromQuery, jobMediaTypeOf, JobQuerySchema, readJobBody } from '../jobs/read-body.ts';
import {
  CheckJobResultsPageSchema, CheckJobSchema, CreateCheckJobRequestSchema, type CheckJobFields,
} from '../schemas/check-job.ts';
import type { JobSpec } from '../../ingest/index.ts';
import { JobPersonInputSchema } from '../schemas/person-input.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { issueAt } from '../issue-texts.ts';
import multipart from '@fastify/multipart';
import { UploadFormSchema } from '../jobs/read-upload.ts';
import {
  contentDisposition, createCheckJobFileHandlers, PreviewCheckJobRequestSchema, ResultFileQuerySchema, StartCheckJobRequestSchema,
} from './check-job-files.ts';
import { certificatePdf } from '../certificate-pdf.ts';
import { joinedResults, resultsPageBody } from '../results-page-body.ts';
import { registerRoute } from './register.ts';
import type { CheckJobsContext, RouteContext, RouteSpec } from './route-spec.ts';

const ENDPOINT = 'POST /v2/check-jobs';
/** A 1,000,000-person body is about 150-250 MB; the reader streams it, so the limit only stops abuse. */
export const DEFAULT_JOB_BODY_LIMIT = 512 * 1024 * 1024;

/** A job id's schema, made once: z.uuid() builds a new schema at every call (docs/performance.md "Measurements"). */
const JobIdSchema = z.uuid();
const jobId = { id: { description: 'The job id', schema: JobIdSchema } };

export const createCheckJobSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/check-jobs',
  operationId: 'createCheckJob',
  summary: 'Create an asynchronous check job of up to 1,000,000 people',
  description:
    'The body is read as a stream. `application/json`: `people` plus the job fields. `application/x-ndjson`: one ' +
    'PersonInput per line, job fields in the query string (allowed for JSON too; one field in both places is 422). ' +
    '`multipart/form-data`: a spreadsheet or CSV in `file` ' +
    '(docs/decisions.md §14) becomes a `draft` with `columns`, `column_mapping` (yours, else guessed from the headers) and a ' +
    '20-row `preview`; start it with POST /v2/check-jobs/{id}/start, or at once with `options.start: true`. A file ' +
    'that cannot be used is 422 (`details.reason` says why) and creates nothing; over 100 MB is 413. The whole ' +
    'input is validated before anything is created. A queued job pins the list version active then; results are ' +
    'paged at GET /v2/check-jobs/{id}/results and as a file at GET /v2/check-jobs/{id}/file once it is done.',
  authenticated: true,
  requestHeaders: [idempotencyKeyHeader],
  body: CreateCheckJobRequestSchema,
  otherBodies: [
    { mediaType: 'application/x-ndjson', schema: JobPersonInputSchema, description: 'One JobPersonInput (PersonInput + cvr, company_name) per line' },
    { mediaType: 'multipart/form-data', schema: UploadFormSchema, description: 'A file upload (docs/decisions.md §14); no query parameters' },
  ],
  query: JobQuerySchema,
  success: {
    status: 202, description: 'The job: queued (JSON, NDJSON, or a file with options.start) or draft (a file)', schema: CheckJobSchema,
    headers: ['Request-Id', 'Idempotent-Replayed', 'Location'],
  },
  errors: [400, 401, 402, 403, 409, 413, 422, 429, 500, 503],
};

export const getCheckJobSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/check-jobs/{id}',
  operationId: 'getCheckJob',
  summary: 'A check job: status, counts, list version',
  authenticated: true,
  pathParams: jobId,
  success: { status: 200, description: 'The job', schema: CheckJobSchema },
  errors: [400, 401, 402, 404, 500],
};

const ResultsQuerySchema = z.strictObject({
  cursor: z.string().max(200).optional().describe('next_cursor of the page before; opaque'),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000).describe('Results per page, at most 10,000 (default 1,000)'),
  change: z.enum(['newly_blocked', 'released', 'changed_level', 'any']).optional()
    .describe("A monitor re-check's change report: only results with this `change` (`any`: with a change). A page then " +
      'holds those of its `limit` rows (it may be shorter, even empty); follow `next_cursor` to the end'),
});

export const getCheckJobResultsSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/check-jobs/{id}/results',
  operationId: 'getCheckJobResults',
  summary: "A page of a done job's results, in input order",
  authenticated: true,
  pathParams: jobId,
  query: ResultsQuerySchema,
  success: { status: 200, description: 'One page', schema: CheckJobResultsPageSchema },
  errors: [400, 401, 402, 404, 409, 410, 422, 500],
};

export const deleteCheckJobSpec: RouteSpec = {
  method: 'DELETE',
  url: '/v2/check-jobs/{id}',
  operationId: 'deleteCheckJob',
  summary: "Delete a job's personal data now",
  description: 'Names, addresses and results are removed at once; the job stays with status `deleted`, its counts and list version.',
  authenticated: true,
  pathParams: jobId,
  success: { status: 200, description: 'The job, deleted', schema: CheckJobSchema },
  errors: [400, 401, 402, 404, 500],
};

export const startCheckJobSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/check-jobs/{id}/start',
  operationId: 'startCheckJob',
  summary: 'Start a draft: check its file with the mapping and options given (or the draft\'s)',
  description:
    'Reads the draft\'s file again with the mapping, validates every row (a value over 200 characters is 422 with ' +
    'the row in the path) and moves the job to `queued` (pinning the list version active now). A job that is not a ' +
    'draft (started already, deleted) is 409 `details.reason: job_not_draft`. A draft whose mapping has `warnings` ' +
    '(no name or address column, most of the first rows unreadable) is 409 `details.reason: warnings_unconfirmed` ' +
    'unless `confirm_warnings` is true; a new mapping given here is judged on its own first rows.',
  authenticated: true,
  requestHeaders: [idempotencyKeyHeader],
  pathParams: jobId,
  body: StartCheckJobRequestSchema,
  bodyOptional: true,
  success: { status: 202, description: 'The job, queued', schema: CheckJobSchema, headers: ['Request-Id', 'Idempotent-Replayed'] },
  errors: [400, 401, 402, 403, 404, 409, 422, 429, 500, 503],
};

export const previewCheckJobSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/check-jobs/{id}/preview',
  operationId: 'previewCheckJob',
  summary: 'Check a draft\'s first rows again with another mapping or options, without starting it',
  description:
    'The same draft (same id, same file) with the mapping and options given: `columns`, `preview` and `warnings` made ' +
    'anew and kept, so a later /start uses them. Nothing is published. 409 `job_not_draft` when it is not a draft; a ' +
    'mapping naming a missing column is 422.',
  authenticated: true,
  pathParams: jobId,
  body: PreviewCheckJobRequestSchema,
  bodyOptional: true,
  success: { status: 200, description: 'The draft with its new preview', schema: CheckJobSchema },
  errors: [400, 401, 402, 404, 409, 422, 429, 500, 503],
};

export const getCheckJobFileSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/check-jobs/{id}/file',
  operationId: 'getCheckJobFile',
  summary: "A done job's results as a file: your own columns with the verdict appended",
  description:
    'docs/decisions.md §14: xlsx and xls input → xlsx, csv → csv in the input\'s encoding and delimiter, JSON jobs → csv ' +
    'UTF-8 (column `id`). Appended columns, in words in the Accept-Language: status (Blokeret / Tilladt / Manuel ' +
    'vurdering), match level, match, reason, list version (its publication date). xlsx has a formatted, filtered ' +
    'header and a legend sheet with the counts. `rows` gives only the blocked, allowed or manual rows. Cells that ' +
    'could run as a formula are written as text; plain numbers and phone numbers stay as they were. Streamed.',
  authenticated: true,
  pathParams: jobId,
  query: ResultFileQuerySchema,
  success: {
    status: 200, description: 'The result file (Content-Disposition: attachment)', schema: z.string(),
    media: {
      'text/csv': { schema: { type: 'string' } },
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
    },
  },
  errors: [400, 401, 402, 404, 409, 410, 422, 500],
};

export const getCheckJobCertificatePdfSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/check-jobs/{id}/certificate.pdf',
  operationId: 'getCheckJobCertificatePdf',
  summary: "A done job's certificate as a PDF people read",
  description:
    'Organisation, file, row counts, list version and its publication date, time of the check, and how to verify it, ' +
    'with the signed token (`certificate_token`, a compact JWS) printed in full; every figure is the token\'s own. In ' +
    'the Accept-Language. Kept after the job is deleted, like the token. 409 `certificate_not_ready` while the job has ' +
    'no certificate (not done yet, or failed).',
  authenticated: true,
  pathParams: jobId,
  success: {
    status: 200, description: 'The certificate (Content-Disposition: attachment)', schema: z.string(),
    media: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } },
  },
  errors: [400, 401, 402, 404, 409, 500],
};

export const checkJobSpecs = [
  createCheckJobSpec, getCheckJobSpec, getCheckJobResultsSpec, startCheckJobSpec, previewCheckJobSpec, getCheckJobFileSpec, getCheckJobCertificatePdfSpec,
  deleteCheckJobSpec,
];


function sendJob(reply: FastifyReply, status: number, job: JobRecord) {
  return reply.code(status).type('application/json; charset=utf-8').send(renderCheckJob(job));
}

export function registerCheckJobRoutes(app: FastifyInstance, ctx: RouteContext, jobsCtx: CheckJobsContext): void {
  const { jobs, ingest } = jobsCtx;
  const intake = ingest.intake;
  const clock = jobsCtx.clock;
  const files = createCheckJobFileHandlers(ctx, jobsCtx);

  async function scopedJob(request: FastifyRequest): Promise<JobRecord> {
    const { org, mode } = authOf(request);
    const id = (request.params as { id: string }).id;
    // A malformed id names no job: 404 like any other unknown id.
    if (!JobIdSchema.safeParse(id).success) throw notFound();
    const job = await jobs.getJob({ org_id: org.id, mode }, id);
    if (!job) throw notFound();
    return job;
  }

  // The body is read by the handler as a stream: in this scope the JSON and NDJSON parsers hand on
  // the raw request instead of parsing (and holding) it whole.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(['application/json', 'application/x-ndjson'], (_request, payload, done) => done(null, payload));
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, null));
    // multipart/form-data: @fastify/multipart's parser, read by the handler part by part (request.parts()).
    await scope.register(multipart, { throwFileSizeLimit: true });
    registerRoute(scope, { ...createCheckJobSpec, body: undefined }, [ctx.authenticate], async (request, reply) => {
      const { org, mode, key } = authOf(request);
      const mediaType = jobMediaTypeOf(request);
      if (mediaType === 'multipart') return files.createFromUpload(request, reply);
      const idempotencyKey = idempotencyKeyOf(request.headers);
      const query = (request.query ?? {}) as Record<string, unknown>;
      const queryFields = fieldsFromQuery(query);
      if (request.body === null || request.body === undefined) {
        throw validationFailed([issueAt('people', 'required')]);
      }
      const locale = localeFrom(request.headers['accept-language']);
      const scope = { org_id: org.id, mode };
      // docs/api-decisions.md "Quotas": no room for a single row, no body is read; the exact count
      // is checked once the rows are known, before the job is committed.
      await jobsCtx.quotas.requireRowRoom(scope, 1);
      const specOf = (fields: CheckJobFields, inputSha256?: string): JobSpec => ({
        source: 'api',
        org,
        mode,
        keyHash: key.key_hash,
        ...(fields.options ? { options: fields.options } : {}),
        ...(fields.policy ? { policy: fields.policy } : {}),
        callback_url: fields.callback_url ?? null,
        external_ref: fields.external_ref ?? null,
        locale,
        ...(inputSha256 ? { inputSha256 } : {}),
      });
      const body = await readJobBody({
        body: request.body as AsyncIterable<Uint8Array>,
        mediaType,
        queryFields,
        intake,
        maxBytes: jobsCtx.maxBodyBytes,
        ...(jobsCtx.overlapIntake ? { early: (fields: CheckJobFields) => specOf(fields) } : {}),
      });
      let outcome;
      try {
        // Same key + same bytes (and the same query) is the same request.
        outcome = await ctx.idempotency.run(
          { orgId: org.id, mode, endpoint: ENDPOINT },
          idempotencyKey,
          { media_type: mediaType, query, body_sha256: body.bodySha256 },
          async () => {
            const job = await commit();
            return { status: 202, body: renderCheckJob(job) };
          },
        );
      } finally {
        // A replay, a key still in flight or a failure: the job published early is given up.
        await intake.abandon(body.spooled);
        // Before answering: once the client has its answer, no copy of its people is left here.
        await body.spooled.discard();
      }
      reply.header('Location', `/v2/check-jobs/${(JSON.parse(outcome.body) as { id: string }).id}`);
      return sendOutcome(reply, outcome);

      async function commit(): Promise<JobRecord> {
        await jobsCtx.quotas.requireRowRoom(scope, body.spooled.rowCount);
        try {
          return await intake.seal(body.spooled, specOf(body.fields, body.bodySha256));
        } catch (error) {
          throw apiErrorOfIngest(error);
        }
      }
    });
  });

  registerRoute(app, getCheckJobSpec, [ctx.authenticate], async (request, reply) => sendJob(reply, 200, await scopedJob(request)));

  registerRoute(app, getCheckJobResultsSpec, [ctx.authenticate], async (request, reply) => {
    const parsed = ResultsQuerySchema.safeParse(request.query ?? {});
    const id = (request.params as { id: string }).id;
    // The common page (no `change` filter, a valid query and cursor) reads the job and its page
    // together (JobStore readDoneResultsBytes: one round trip on ClickHouse, docs/architecture.md
    // "Results pages"); anything else reads the job first, so its errors come in the same order.
    if (parsed.success && !parsed.data.change && JobIdSchema.safeParse(id).success) {
      const cursor = parsed.data.cursor ? await openedCursor(id, parsed.data.cursor) : null;
      if (cursor !== undefined) {
        const { org, mode } = authOf(request);
        const read = await readStorePage(() => jobs.readDoneResultsBytes({ org_id: org.id, mode }, id, { cursor, limit: parsed.data.limit }));
        if (!read.job) throw notFound();
        return sendResultsPage(reply, doneJob(read.job), read.page);
      }
    }
    const found = await scopedJob(request);
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.query));
    const job = doneJob(found);
    // docs/monitors.md "Change reports": the filter applies to each page's rows, so the cursor
    // (a position in the job's rows) stays the same with or without it. Only a filtered page
    // parses its results (to read `change`); an unfiltered one is served as the stored bytes
    // (docs/architecture.md "Results pages").
    const wanted = parsed.data.change;
    const page = await readStorePage(async () => {
      // The seal (HMAC) proves the cursor was made here for this job; the store checks its shape.
      const cursor = parsed.data.cursor ? await jobsCtx.cursors.open(job.id, parsed.data.cursor) : null;
      return wanted ? filteredPage(job.id, cursor, parsed.data.limit, wanted) : jobs.readResultsBytes(job.id, { cursor, limit: parsed.data.limit });
    });
    return sendResultsPage(reply, job, page);
  });

  /** The job when its results can be paged: 410 when deleted, 409 until done. */
  function doneJob(job: JobRecord): JobRecord {
    if (job.status === 'deleted') throw new ApiError({ code: 'gone', messageKey: 'job_gone' });
    if (job.status !== 'done') {
      throw new ApiError({ code: 'conflict', messageKey: 'job_not_done', details: { reason: 'job_not_done', status: job.status } });
    }
    return job;
  }

  /** The store cursor of a sealed one; undefined when the seal does not hold (answered by the other path). */
  async function openedCursor(id: string, sealed: string): Promise<string | undefined> {
    try {
      return await jobsCtx.cursors.open(id, sealed);
    } catch (error) {
      if (error instanceof InvalidSealError) return undefined;
      throw error;
    }
  }

  /** A store read of a page, with a cursor the store refuses answered as a bad cursor. */
  async function readStorePage<P>(read: () => Promise<P>): Promise<P> {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof InvalidCursorError) && !(error instanceof InvalidSealError)) throw error;
      throw validationFailed([issueAt('cursor', 'invalid_job_cursor')]);
    }
  }

  async function sendResultsPage(reply: FastifyReply, job: JobRecord, page: { pieces: Buffer[]; next_cursor: string | null } | null) {
    if (!page) throw new Error('a done job read without its page');
    if (!job.list_version) throw new Error('a done job without a list version');
    const nextCursor = page.next_cursor === null ? null : await jobsCtx.cursors.seal(job.id, page.next_cursor);
    const body = resultsPageBody(job.list_version, page.pieces, nextCursor);
    // The pieces as a stream with their length: written one after the other, never joined.
    return reply.code(200).type('application/json; charset=utf-8').header('Content-Length', body.length)
      .send(Readable.from(body.pieces, { objectMode: false }));
  }

  async function filteredPage(jobId: string, cursor: string | null, limit: number, wanted: string) {
    const page = await jobs.readResultsJson(jobId, { cursor, limit });
    const results = page.results.filter((json) => {
      const change = (JSON.parse(json) as { change?: string | null }).change ?? null;
      return wanted === 'any' ? change !== null : change === wanted;
    });
    return { pieces: joinedResults(results), next_cursor: page.next_cursor };
  }

  registerRoute(app, { ...startCheckJobSpec, body: undefined }, [ctx.authenticate], async (request, reply) =>
    files.start(request, reply, await scopedJob(request)));

  registerRoute(app, { ...previewCheckJobSpec, body: undefined }, [ctx.authenticate], async (request, reply) => files.preview(request, reply, await scopedJob(request)));

  registerRoute(app, getCheckJobFileSpec, [ctx.authenticate], async (request, reply) => files.file(request, reply, await scopedJob(request)));

  registerRoute(app, getCheckJobCertificatePdfSpec, [ctx.authenticate], async (request, reply) => {
    const job = await scopedJob(request);
    if (job.certificate_token === null) {
      throw new ApiError({ code: 'conflict', messageKey: 'certificate_not_ready', details: { reason: 'certificate_not_ready', status: job.status } });
    }
    const locale = localeFrom(request.headers['accept-language']);
    const pdf = await certificatePdf({
      token: job.certificate_token, organisation: authOf(request).org.name, filename: job.filename, source: job.source,
      baseUrl: `${request.protocol}://${request.host}`, locale,
    });
    const name = `${(job.filename ?? `check-job-${job.id}`).replace(/\.[A-Za-z0-9]{1,5}$/, '')}.certificate.pdf`;
    return reply.code(200).type('application/pdf').header('Content-Disposition', contentDisposition(name)).send(pdf);
  });

  registerRoute(app, deleteCheckJobSpec, [ctx.authenticate], async (request, reply) => {
    const job = await scopedJob(request);
    // A draft's file is personal data like its preview: it goes with the DELETE, not at the next sweep.
    if (job.status === 'draft') await ingest.discardDraftFile(job.id);
    if (job.status === 'deleted') return sendJob(reply, 200, job);
    const at = clock().toISOString();
    const deleted = await jobs.purgeJob(job.id, at);
    if (!deleted) throw notFound();
    if (jobsCtx.events) {
      await jobsCtx.events.publish({
        type: 'JobStateChanged',
        value: {
          job_id: job.id, org_id: job.org_id, status: 'deleted', error: null, changed_at: at,
          processed_count: deleted.processed_count, finished_at: deleted.finished_at,
        },
      });
    }
    ctx.logger.info({ job_id: job.id, org_id: job.org_id, request_id: request.id }, 'job.deleted');
    return sendJob(reply, 200, deleted);
  });
}
