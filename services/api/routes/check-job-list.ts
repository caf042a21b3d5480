import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authOf } from '../auth.ts';
import { toCheckJobJson } from '../check-job-json.ts';
import { validationFailed } from '../errors.ts';
import { CheckJobSchema, CheckJobStatusSchema } from '../schemas/check-job.ts';
import { named } from '../schemas/registry.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { registerRoute } from './register.ts';
import type { CheckJobsContext, RouteContext, RouteSpec } from './route-spec.ts';
import type { JobRecord } from '../../platform/store/jobs-port.ts';
import { issueText } from '../issue-texts.ts';

/** A list shows recent work, not an export: 100 jobs (each with its 20-row preview) is plenty. */
export const MAX_JOBS_LISTED = 100;

const day = z.iso.date();
const ListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_JOBS_LISTED).default(20)
    .describe(`Jobs to list, at most ${MAX_JOBS_LISTED} (default 20)`),
  source: z.enum(['upload', 'email', 'sftp', 'api', 'monitor', 'connector']).optional().describe('Only jobs from this source'),
  status: CheckJobStatusSchema.optional().describe('Only jobs in this status'),
  from: day.optional().describe('Only jobs created on or after this day (YYYY-MM-DD, UTC)'),
  to: day.optional().describe('Only jobs created on or before this day (YYYY-MM-DD, UTC)'),
  q: z.string().trim().min(1).max(200).optional().describe('Only jobs whose file name or external_ref contains this text (case-insensitive for a-z)'),
  after: z.uuid().optional().describe('The next page: the jobs after this one (the last job of the previous page)'),
  hide_discarded_drafts: z.enum(['true', 'false']).transform((v) => v === 'true').optional()
    .describe('true: leave out drafts deleted without being started (replaced by a preview update, or discarded)'),
});

export const CheckJobListSchema = named(
  'CheckJobList',
  z.strictObject({
    data: z.array(CheckJobSchema).describe('Newest first; deleted jobs included (their counts stay)'),
    has_more: z.boolean().describe('More jobs exist beyond `limit`'),
  }),
  "The organisation's most recent check jobs in the key's mode.",
);

export const listCheckJobsSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/check-jobs',
  operationId: 'listCheckJobs',
  summary: "The organisation's most recent check jobs, newest first",
  description:
    'Jobs of the calling key\'s organisation and mode (a test key sees test jobs only), newest first, with their ' +
    'status and counts; the web page\'s history. Filters: source, status, a date range, a text in the file name or ' +
    'reference; `after` (the last id of a page) gives the next page.',
  authenticated: true,
  query: ListQuerySchema,
  success: { status: 200, description: 'The most recent jobs', schema: CheckJobListSchema },
  errors: [400, 401, 402, 422, 500],
};

const ABANDONED_HEADROOM = 100;

/**
 * Jobs no answer has named: one created early from a body that then turned out bad (or was a
 * replay) and purged at once, and one whose body is still being read (no final row count and
 * input hash yet). The second appears once its 202 is sent, or, should the API die meanwhile, as
 * `failed`/`intake_interrupted` once the stalled-intake sweep ends it (docs/architecture.md
 * "Overlapped intake").
 */
function isAbandonedIntake(job: JobRecord): boolean {
  if (job.status === 'deleted' && job.error === 'intake_refused') return true;
  return (job.status === 'queued' || job.status === 'running') && job.input_sha256 === null;
}

export function registerCheckJobListRoute(app: FastifyInstance, ctx: RouteContext, jobsCtx: CheckJobsContext): void {
  registerRoute(app, listCheckJobsSpec, [ctx.authenticate], async (request, reply) => {
    const parsed = ListQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.query));
    const { org, mode } = authOf(request);
    const q = parsed.data;
    // A page continues after a job of this organisation and mode; any other id is a bad cursor.
    const after = q.after ? await jobsCtx.jobs.getJobById(q.after) : null;
    if (q.after && (!after || after.org_id !== org.id || after.mode !== mode)) {
      throw validationFailed([{ path: 'after', describe: issueText('unknown_job') }]);
    }
    const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00.000Z`) + 86_400_000).toISOString();
    // One more than asked tells whether more exist, without a count over every job. Abandoned
    // early intakes (docs/architecture.md "Overlapped intake": no answer ever named them) are
    // not the customer's jobs and are left out; the headroom keeps a page full when a few are
    // among the latest.
    const recent = await jobsCtx.jobs.listRecentJobs({ org_id: org.id, mode }, q.limit + 1 + ABANDONED_HEADROOM, {
      ...(q.source ? { source: q.source } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.from ? { created_from: `${q.from}T00:00:00.000Z` } : {}),
      ...(q.to ? { created_before: nextDay(q.to) } : {}),
      ...(q.q ? { search: q.q } : {}),
      ...(after ? { after: { created_at: after.created_at, id: after.id } } : {}),
      ...(q.hide_discarded_drafts ? { hide_discarded_drafts: true } : {}),
    });
    const jobs = recent.filter((job) => !isAbandonedIntake(job));
    return reply.code(200).send({
      data: jobs.slice(0, q.limit).map(toCheckJobJson),
      has_more: jobs.length > q.limit,
    });
  });
}
