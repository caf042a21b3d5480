/**
 * The file side of check jobs (docs/decisions.md §7, §14): the multipart upload of POST /v2/check-jobs
 * (a draft, or a job started at once), POST /v2/check-jobs/{id}/start and GET
 * /v2/check-jobs/{id}/file. HTTP concerns only: the work is services/ingest's.
 */
import { rm } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  AddonRequiredError, ColumnMappingError, FileRefusedError, fileRefusalMessage, JobInputError, JobNotDraftError, ListNotReadyError, MappingWarningsError,
  mappingWarningText, RegisterNotReadyError, SpoolFullError,
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
import { issueAt, issueText, MAPPING_ISSUE_TEXTS } from '../issue-texts.ts';
import { message } from '../messages.ts';
import { fillText } from '../../domain/text-template.ts';
import type { CheckJobsContext, RouteContext } from './route-spec.ts';
import { errorFields } from '../../platform/logger.ts';

/** The body of POST /v2/check-jobs/{id}/start: both optional. */
export const StartCheckJobRequestSchema = z.strictObject({
  column_mapping: ColumnMappingSchema.optional().describe("Replaces the draft's mapping"),
  options: CheckJobOptionsSchema.optional().describe("Merged over the draft's options (retention_days is fixed at upload)"),
  confirm_warnings: z.boolean().optional()
    .describe("true: start although the mapping has warnings (the draft's `warnings`). Without it such a start is 409 `warnings_unconfirmed`"),
});

/** The body of POST /v2/check-jobs/{id}/preview: what the draft would be started with. */
export const PreviewCheckJobRequestSchema = z.strictObject({
  column_mapping: ColumnMappingSchema.optional().describe("Replaces the draft's mapping"),
  options: CheckJobOptionsSchema.optional().describe("Merged over the draft's options (retention_days is fixed at upload)"),
});

export const ResultFileQuerySchema = z.strictObject({
  format: z.enum(['csv', 'xlsx']).optional().describe("Default: the input's own (xlsx and xls → xlsx, csv → csv, JSON jobs → csv)"),
  rows: z.enum(['all', 'blocked', 'allowed', 'manual']).optional()
    .describe('Which rows: all (default), or only those blocked, allowed or for manual review; the file name says which'),
  change: z.enum(['newly_blocked', 'released', 'changed_level', 'any']).optional()
    .describe("A monitor re-check's change report as a file: only the rows with this change (`any`: with a change). Files of " +
      'monitor re-checks always carry the column Ændring / Change. Only for jobs with source monitor (else 422)'),
});

/** A column mapping's issue in words; a code added later reads as "cannot be used" until it has its own text. */
function mappingIssue(path: string, code: string): IssueRef {
  const texts = MAPPING_ISSUE_TEXTS[code as keyof typeof MAPPING_ISSUE_TEXTS] ?? MAPPING_ISSUE_TEXTS.column_unusable;
  return { path, describe: (l) => texts[l] };
}

/** An ingest error in the contract's terms (docs/decisions.md §5); anything else passes on (500). */
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
  if (error instanceof MappingWarningsError) {
    const warnings = error.warnings;
    return new ApiError({
      code: 'conflict', messageKey: 'warnings_unconfirmed',
      describe: (l) => fillText(message('warnings_unconfirmed_listed', l), { warnings: warnings.map((w) => mappingWarningText(w, l)).join(' ') }),
      details: { reason: 'warnings_unconfirmed', warnings: warnings.map((w) => w.code) },
    });
  }
  if (error instanceof JobNotDraftError) {
    return new ApiError({ code: 'conflict', messageKey: 'job_not_draft', details: { reason: 'job_not_draft', status: error.status } });
  }
  return error;
}

/** `attachment` with an ASCII fallback and the exact name per RFC 6266 / 5987. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function createCheckJobFileHandlers(ctx: RouteContext, jobsCtx: CheckJobsContext) {
  const { ingest } = jobsCtx;

  /**
   * A refused upload (or a draft's file refused when read again at /start or /preview) is the client's (422), but its underlying cause (name and code only) is
   * logged: "file_corrupt" from a reader error of our own making looks the same to the client.
   * So is the refusal's own English message, which names the check that failed ("an empty zip",
   * "zip entry checksum differs") and never a cell (FileRefusedError).
   */
  function logRefusal(request: FastifyRequest, error: FileRefusedError) {
    ctx.logger.info({
      request_id: request.id, code: error.code, detail: error.message, ...(error.underlying ? { cause: error.underlying } : {}),
    }, 'api.file_refused');
  }

  /** Multipart POST /v2/check-jobs: the file is spooled, then a draft (or started job) made of it. */
  async function createFromUpload(request: FastifyRequest, reply: FastifyReply) {
    const { org, mode, key } = authOf(request);
    const idempotencyKey = idempotencyKeyOf(request.headers);
    const query = (request.query ?? {}) as Record<string, unknown>;
    if (Object.keys(query).length > 0) {
      throw validationFailed(Object.keys(query).map((name) => ({
        path: /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? name : '',
        describe: issueText('unknown_form_field'),
      })));
    }
    const locale = localeFrom(request.headers['accept-language']);
    const { quotas } = jobsCtx;
    const scope = { org_id: org.id, mode };
    // docs/api-decisions.md "Quotas": an upload is a file read in progress from its first byte, and a
    // preview (one started at once is read and checked like one).
    const outcome = await quotas.withFileSlot(org.id, async () => {
      quotas.takePreview(org.id);
      const upload = await readUpload(request, jobsCtx.spoolDir, jobsCtx.maxUploadBytes);
      try {
        return await ctx.idempotency.run({ orgId: org.id, mode, endpoint: 'POST /v2/check-jobs' }, idempotencyKey, idempotencyBodyOf(upload), async () => {
          const { start, confirm_warnings: confirmWarnings, ...options } = upload.options ?? {};
          if (start === true) await quotas.requireRowRoom(scope, 1);
          else await quotas.requireDraftRoom(scope);
          try {
            const job = await ingest.createJobFromFile({
              source: 'upload', org, mode, keyHash: key.key_hash, filename: upload.filename, path: upload.path, sha256: upload.sha256, takeFile: true,
              column_mapping: upload.column_mapping, ...(upload.options ? { options } : {}),
              callback_url: upload.callback_url, external_ref: upload.external_ref, locale, start: start === true, confirmWarnings: confirmWarnings === true,
              beforeQueue: (rows) => quotas.requireRowRoom(scope, rows),
            });
            return { status: 202, body: renderCheckJob(job) };
          } catch (error) {
            if (error instanceof FileRefusedError) logRefusal(request, error);
            throw apiErrorOfIngest(error);
          }
        });
      } finally {
        // Moved into the draft store, or no longer needed: no copy of the file stays in the spool.
        await rm(upload.path, { force: true });
      }
    });
    reply.header('Location', `/v2/check-jobs/${(JSON.parse(outcome.body) as { id: string }).id}`);
    return sendOutcome(reply, outcome);
  }

  async function start(request: FastifyRequest, reply: FastifyReply, job: JobRecord) {
    const parsed = StartCheckJobRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.body));
    const { org, mode } = authOf(request);
    // The draft's file is read again (a file slot), and its rows join those waiting (docs/api-decisions.md "Quotas").
    const outcome = await jobsCtx.quotas.withFileSlot(org.id, () => ctx.idempotency.run(
      { orgId: org.id, mode, endpoint: 'POST /v2/check-jobs/{id}/start' },
      idempotencyKeyOf(request.headers),
      { id: job.id, body: parsed.data },
      async () => {
        if (job.status === 'draft') await jobsCtx.quotas.requireRowRoom({ org_id: org.id, mode }, job.row_count);
        try {
          const started = await ingest.startDraft(job.id, {
            ...(parsed.data.column_mapping ? { column_mapping: parsed.data.column_mapping } : {}),
            ...(parsed.data.options ? { options: parsed.data.options } : {}),
            locale: localeFrom(request.headers['accept-language']),
            plan: org.plan,
            addons: org.addons,
            confirmWarnings: parsed.data.confirm_warnings === true,
          });
          return { status: 202, body: renderCheckJob(started) };
        } catch (error) {
          if (error instanceof FileRefusedError) logRefusal(request, error);
          throw apiErrorOfIngest(error);
        }
      },
    ));
    return sendOutcome(reply, outcome);
  }

  /** The draft checked again with another mapping or options: new columns, preview and warnings; nothing starts. */
  async function preview(request: FastifyRequest, reply: FastifyReply, job: JobRecord) {
    const parsed = PreviewCheckJobRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.body));
    const { org } = authOf(request);
    let updated: JobRecord;
    try {
      updated = await jobsCtx.quotas.withFileSlot(org.id, () => {
        jobsCtx.quotas.takePreview(org.id);
        return ingest.previewDraft(job.id, {
          ...(parsed.data.column_mapping ? { column_mapping: parsed.data.column_mapping } : {}),
          ...(parsed.data.options ? { options: parsed.data.options } : {}),
          locale: localeFrom(request.headers['accept-language']),
          plan: org.plan,
        });
      });
    } catch (error) {
      if (error instanceof FileRefusedError) logRefusal(request, error);
      throw apiErrorOfIngest(error);
    }
    return reply.code(200).type('application/json; charset=utf-8').send(renderCheckJob(updated));
  }

  async function file(request: FastifyRequest, reply: FastifyReply, job: JobRecord) {
    const parsed = ResultFileQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.query));
    if (job.status === 'deleted') throw new ApiError({ code: 'gone', messageKey: 'job_gone' });
    if (job.status !== 'done') {
      throw new ApiError({ code: 'conflict', messageKey: 'job_not_done', details: { reason: 'job_not_done', status: job.status } });
    }
    const locale = localeFrom(request.headers['accept-language']);
    const rows = parsed.data.rows ?? 'all';
    const change = parsed.data.change;
    if (change !== undefined && job.source !== 'monitor') {
      throw validationFailed([issueAt('change', 'only_monitor_jobs')]);
    }
    const spec = ingest.resultFileSpec(job, parsed.data.format, rows, change);
    const body = new PassThrough();
    // Written while sent: pages of 10,000 results go out as the client reads (backpressure).
    ingest.streamResultFile(job, { ...(parsed.data.format ? { format: parsed.data.format } : {}), locale, rows, ...(change ? { change } : {}) }, body)
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

  return { createFromUpload, start, preview, file };
}
