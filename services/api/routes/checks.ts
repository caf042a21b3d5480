import type { FastifyInstance } from 'fastify';
import { applyPrivateList, checkPeople, TEST_LIST_VERSION, testModeCheck } from '../../domain/index.ts';
import { jobInputIssue } from '../../ingest/jobs/errors.ts';
import type { CheckOptions } from '../../domain/types.ts';
import { toListVersionRef } from '../../registers/lists/active-index.ts';
import type { PrivateList } from '../../matcher/match-chunk.ts';
import { plainChecksRequest } from '../checks-body.ts';
import { writePeopleAnswer } from '../people-answer.ts';
import { listNotReady, validationFailed } from '../errors.ts';
import { idempotencyKeyHeader } from '../idempotency.ts';
import {
  CreateChecksRequestSchema,
  CreateChecksResponseSchema,
  type CreateChecksRequest,
} from '../schemas/checks.ts';
import { limitRate, requireApiAgreement } from './check-hooks.ts';
import { registerSyncCheck, type WrittenAnswer } from './sync-check.ts';
import { RATE_LIMIT_HEADERS, type RouteContext, type RouteSpec } from './route-spec.ts';

/** docs/decisions.md §11. */
const CHECKS_BODY_LIMIT = 5 * 1024 * 1024;

export const createChecksSpec: RouteSpec = {
  method: 'POST',
  url: '/v2/checks',
  operationId: 'createChecks',
  summary: 'Check 1 to 1000 people against the list',
  description:
    'Synchronous check. Results come in input order, one per person, with the list version checked against. ' +
    'Test keys (rl_test_) get fixed made-up results and never touch the live list.',
  authenticated: true,
  requestHeaders: [idempotencyKeyHeader],
  body: CreateChecksRequestSchema,
  plainBody: plainChecksRequest,
  bodyLimit: CHECKS_BODY_LIMIT,
  success: {
    status: 200,
    description: 'One result per person, in input order',
    schema: CreateChecksResponseSchema,
    headers: ['Request-Id', 'Idempotent-Replayed', ...RATE_LIMIT_HEADERS],
  },
  errors: [400, 401, 402, 409, 413, 422, 429, 500, 503],
};

type Active = NonNullable<ReturnType<RouteContext['activeIndex']['current']>>;

/** The answer's bytes (CreateChecksResponse), written a step of people at a time (people-answer.ts). */
function answerPeople(
  active: Active | null, mode: 'live' | 'test', body: CreateChecksRequest, options: CheckOptions, privateList: PrivateList | null,
): WrittenAnswer {
  if (mode === 'test') {
    // Test keys never read the live list (docs/decisions.md §3), nor an organisation's private list.
    const bytes = writePeopleAnswer(TEST_LIST_VERSION, body.people, (step) => step.map((person) => testModeCheck(person, options)));
    return { listVersionId: TEST_LIST_VERSION.id, bytes };
  }
  if (!active) throw listNotReady();
  const listVersion = toListVersionRef(active.version);
  // Each step as one batch (docs/matching.md "Speed of the check path": checkPeople).
  const bytes = writePeopleAnswer(listVersion, body.people, (step) => {
    const results = checkPeople(active.index, step, options);
    if (privateList) {
      const onPrivate = checkPeople(privateList.index, step, options);
      for (let i = 0; i < results.length; i++) results[i] = applyPrivateList(results[i], onPrivate[i], privateList.version);
    }
    return results;
  });
  return { listVersionId: listVersion.id, bytes };
}

/**
 * The organisation's private list index when the call asks for it (live keys only): 422 at
 * `use_private_list` when the organisation has no active private list (docs/decisions.md §16), rather
 * than answering without the list the caller relies on. Built with the address register of the
 * national index the call checks against, as a job's is (docs/addresses.md "One check, every channel").
 */
async function privateIndexFor(
  ctx: RouteContext, active: Active | null, orgId: string, mode: 'live' | 'test', body: CreateChecksRequest,
): Promise<PrivateList | null> {
  if (body.use_private_list !== true || mode === 'test') return null;
  const versionId = await ctx.privateLists.activeVersionOf(orgId);
  if (versionId === null) throw validationFailed([jobInputIssue('use_private_list', 'private_list_missing')]);
  // No national list yet: the call answers list_not_ready (answerPeople).
  if (!active) return null;
  return { index: await ctx.privateLists.forVersion(versionId, active.addressVersion?.id ?? null), version: await ctx.privateLists.versionRef(versionId) };
}

export function registerChecksRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerSyncCheck(app, ctx, {
    spec: createChecksSpec,
    hooks: [ctx.authenticate, requireApiAgreement, limitRate(ctx)],
    usage: 'person_check',
    countOf: (body: CreateChecksRequest) => body.people.length,
    // Written as checked, without the schema's parse and its slower stringify (docs/architecture.md "Synchronous checks").
    write: async (body, options, { orgId, mode }) => {
      // One look at the active pair (list and register version) for the whole call: the private
      // list is built with the same register, and a swap meanwhile changes neither.
      const active = mode === 'live' ? ctx.activeIndex.current() : null;
      return answerPeople(active, mode, body, options, await privateIndexFor(ctx, active, orgId, mode, body));
    },
  });
}
