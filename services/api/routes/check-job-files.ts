/**
 * The file side of check jobs (DECISIONS §7, §14): the multipart upload of POST /v2/check-jobs
 * (a draft, or a job started at once), POST /v2/check-jobs/{id}/start and GET
 * /v2/check-jobs/{id}/file. HTTP concerns only: the work is services/ingest's.
 */
import { rm } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  AddonRequiredError, ColumnMappingError, FileRefusedError, fileRefusalMessage, JobInputError, JobNotDraftError, ListNotReadyError, RegisterNotReadyError, SpoolFullError,
} from '../../ingest/index.ts';
import type { JobRecord } from '../../platform/store/jobs-port.ts';
import { authOf } from '../auth.ts';
import { renderCheckJob } from '../check-job-json.ts';
import { ApiError, forbidden, listNotReady, registerNotReady, spoolFull, validationFailed, type IssueRef } from '../errors.ts';
import { idempotencyKeyOf, sendOutcome } from '../idempotency.ts';
import { localeFrom } from '../locale.ts';
import { idempotencyBodyOf, readUpload } from '../jobs/read-upload.ts';
import { CheckJobOptionsSchema, ColumnMappingSchema } from '../schemas/check-job.ts';
import { issuesFromZod } from '../zod-issues.ts';
import type { CheckJobsContext, RouteContext } from './route-spec.ts';
import { errorFields } from '../../platform/logger.ts';

/** The body of POST /v2/check-jobs/{id}/start: both optional. */
export const StartCheckJobRequestSchema = z.strictObject({
  column_mapping: ColumnMappingSchema.optional().describe("Replaces the draft's mapping"),
  options: CheckJobOptionsSchema.optional().describe("Merged over the draft's options (retention_days is fixed at upload)"),
});

export const ResultFileQuerySchema = z.strictObject({
  format: z.enum(['csv', 'xlsx']).optional().describe("Default: the input's own (xlsx and xls → xlsx, csv → csv, JSON jobs → csv)"),
});

/** Column-mapping problems by code (services/ingest/files ColumnMappingError); never a value. */
function mappingIssue(path: string, code: string): IssueRef {
  const texts: Record<string, [string, string]> = {
    column_not_found: ['Kolonnen findes ikke i filen.', 'The column does not exist in the file.'],
    no_header_row: [
      'Filen har ingen overskriftsrække; angiv kolonnen med nummer (0 er den første).',
      'The file has no header row; give the column by index (0 is the first).',
    ],
    no_columns_mapped: ['Mindst ét felt skal knyttes til en kolonne.', 'At least one field must be mapped to a column.'],
    header_row_out_of_range: ['Overskriftsrækken findes ikke i filen.', 'The header row does not exist in the file.'],
  };
  const [da, en] = texts[code] ?? ['Kolonnen kan ikke bruges.', 'The column cannot be used.'];
  return { path, describe: (l) => (l === 'da' ? da : en) };
}

/** An ingest error in the contract's terms (DECISIONS §5); anything else passes on (500). */
export function apiErrorOfIngest(error: unknown): unknown {
  if (error instanceof JobInputError) return validationFailed(error.issues);
  if (error instanceof ListNotReadyError) return listNotReady();
  if (error instanceof SpoolFullError) return spoolFull();
  if (error instanceof RegisterNotReadyError) return registerNotReady(error.reason);
  if (error instanceof AddonRequiredError) return forbidden(error.addon);
  if (error instanceof FileRefusedError) {
    const describe = (l: 'da' | 'en') => fileRefusalMessage(error.code, l);
    return new ApiError({
      code: 'invalid_request', messageKey: 'file_refused', describe, issues: [{ path: 'file', describe }],
      details: { reason: error.code, ...(error.line !== null && error.line !== undefined ? { line: error.line } : {}) },
    });
  }
  if (error instanceof ColumnMappingError) {
    return validationFailed(error.issues.map((i) => mappingIssue(i.path, i.code)));
  }
  if (error instanceof JobNotDraftError) {
    return new ApiError({ code: 'conflict', messageKey: 'job_not_draft', details: { reason: 'job_not_draft', status: error.status } });
  }
  return error;
}

/** `attachment` with an ASCII fallback and the exact name per RFC 6266 / 5987. */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function createCheckJobFileHandlers(ctx: RouteContext, jobsCtx: CheckJobsContext) {
  const { ingest } = jobsCtx;

  /** Multipart POST /v2/check-jobs: the file is spooled, then a draft (or started job) made of it. */
  async function createFromUpload(request: FastifyRequest, reply: FastifyReply) {
    const { org, mode, key } = authOf(request);
    const idempotencyKey = idempotencyKeyOf(request.headers);
    const query = (request.query ?? {}) as Record<string, unknown>;
    if (Object.keys(query).length > 0) {
      throw validationFailed(Object.keys(query).map((name) => ({
        path: /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? name : '',
        describe: (l) => (l === 'da' ? 'Ukendt felt (felterne står i formularen).' : 'Unknown field (fields go in the form).'),
      })));
    }
    const locale = localeFrom(request.headers['accept-language']);
    const upload = await readUpload(request, jobsCtx.spoolDir, jobsCtx.maxUploadBytes);
    let outcome;
    try {
      outcome = await ctx.idempotency.run({ orgId: org.id, mode, endpoint: 'POST /v2/check-jobs' }, idempotencyKey, idempotencyBodyOf(upload), async () => {
        const { start, ...options } = upload.options ?? {};
        try {
          const job = await ingest.createJobFromFile({
            source: 'upload', org, mode, keyHash: key.key_hash, filename: upload.filename, path: upload.path, takeFile: true,
            column_mapping: upload.column_mapping, ...(upload.options ? { options } : {}),
            callback_url: upload.callback_url, external_ref: upload.external_ref, locale, start: start === true,
          });
          return { status: 202, body: renderCheckJob(job) };
        } catch (error) {
          throw apiErrorOfIngest(error);
        }
      });
    } finally {
      // Moved into the draft store, or no longer needed: no copy of the file stays in the spool.
      await rm(upload.path, { force: true });
    }
    reply.header('Location', `/v2/check-jobs/${(JSON.parse(outcome.body) as { id: string }).id}`);
    return sendOutcome(reply, outcome);
  }

  async function start(request: FastifyRequest, reply: FastifyReply, job: JobRecord) {
    const parsed = StartCheckJobRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.body));
    const { org, mode } = authOf(request);
    const outcome = await ctx.idempotency.run(
      { orgId: org.id, mode, endpoint: 'POST /v2/check-jobs/{id}/start' },
      idempotencyKeyOf(request.headers),
      { id: job.id, body: parsed.data },
      async () => {
        try {
          const started = await ingest.startDraft(job.id, {
            ...(parsed.data.column_mapping ? { column_mapping: parsed.data.column_mapping } : {}),
            ...(parsed.data.options ? { options: parsed.data.options } : {}),
            locale: localeFrom(request.headers['accept-language']),
            plan: org.plan,
            addons: org.addons,
          });
          return { status: 202, body: renderCheckJob(started) };
        } catch (error) {
          throw apiErrorOfIngest(error);
        }
      },
    );
    return sendOutcome(reply, outcome);
  }

  async function file(request: FastifyRequest, reply: FastifyReply, job: JobRecord) {
    const parsed = ResultFileQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.query));
    if (job.status === 'deleted') throw new ApiError({ code: 'gone', messageKey: 'job_gone' });
    if (job.status !== 'done') {
      throw new ApiError({ code: 'conflict', messageKey: 'job_not_done', details: { reason: 'job_not_done', status: job.status } });
    }
    const locale = localeFrom(request.headers['accept-language']);
    const spec = ingest.resultFileSpec(job, parsed.data.format);
    const body = new PassThrough();
    // Written while sent: pages of 10,000 results go out as the client reads (backpressure).
    ingest.streamResultFile(job, { ...(parsed.data.format ? { format: parsed.data.format } : {}), locale }, body)
      .then(() => {
        if (!body.writableEnded) body.end();
      })
      .catch((error: unknown) => {
        // Headers are out: the only honest signal left is a cut-off body.
        ctx.logger.error({ job_id: job.id, request_id: request.id, ...errorFields(error) }, 'api.result_file_failed');
        body.destroy(error as Error);
      });
    return reply
      .code(200)
      .header('Content-Type', spec.contentType)
      .header('Content-Disposition', contentDisposition(spec.filename))
      .send(body);
  }

  return { createFromUpload, start, file };
}
