import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authOf } from '../auth.ts';
import { toCheckJobJson } from '../check-job-json.ts';
import { validationFailed } from '../errors.ts';
import { CheckJobSchema } from '../schemas/check-job.ts';
import { named } from '../schemas/registry.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { registerRoute } from './register.ts';
import type { CheckJobsContext, RouteContext, RouteSpec } from './route-spec.ts';

/** A list shows recent work, not an export: 100 jobs (each with its 20-row preview) is plenty. */
export const MAX_JOBS_LISTED = 100;

const ListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_JOBS_LISTED).default(20)
    .describe(`Jobs to list, at most ${MAX_JOBS_LISTED} (default 20)`),
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
    'status and counts; what the web page shows as "recent jobs". Not a way to page through every job: there is no cursor.',
  authenticated: true,
  query: ListQuerySchema,
  success: { status: 200, description: 'The most recent jobs', schema: CheckJobListSchema },
  errors: [400, 401, 402, 422, 500],
};

export function registerCheckJobListRoute(app: FastifyInstance, ctx: RouteContext, jobsCtx: CheckJobsContext): void {
  registerRoute(app, listCheckJobsSpec, [ctx.authenticate], async (request, reply) => {
    const parsed = ListQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.query));
    const { org, mode } = authOf(request);
    // One more than asked tells whether more exist, without a count over every job.
    const jobs = await jobsCtx.jobs.listRecentJobs({ org_id: org.id, mode }, parsed.data.limit + 1);
    return reply.code(200).send({
      data: jobs.slice(0, parsed.data.limit).map(toCheckJobJson),
      has_more: jobs.length > parsed.data.limit,
    });
  });
}
