import type { FastifyInstance } from 'fastify';
import { applyPrivateList, checkPerson, TEST_LIST_VERSION, testModeCheck, type ListIndex } from '../../domain/index.ts';
import { jobInputIssue } from '../../ingest/jobs/errors.ts';
import type { CheckOptions } from '../../domain/types.ts';
import { toListVersionRef } from '../../lists/active-index.ts';
import { authOf } from '../auth.ts';
import { listNotReady, validationFailed } from '../errors.ts';
import { idempotencyKeyHeader, idempotencyKeyOf, sendOutcome } from '../idempotency.ts';
import { localeFrom } from '../locale.ts';
import {
  CreateChecksRequestSchema,
  CreateChecksResponseSchema,
  type CreateChecksRequest,
  type CreateChecksResponse,
} from '../schemas/checks.ts';
import { limitRate, requireApiAgreement } from './check-hooks.ts';
import { registerRoute } from './register.ts';
import { RATE_LIMIT_HEADERS, type RouteContext, type RouteSpec } from './route-spec.ts';

/** DECISIONS §11. */
const CHECKS_BODY_LIMIT = 5 * 1024 * 1024;
const ENDPOINT = 'POST /v2/checks';

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
  bodyLimit: CHECKS_BODY_LIMIT,
  success: {
    status: 200,
    description: 'One result per person, in input order',
    schema: CreateChecksResponseSchema,
    headers: ['Request-Id', 'Idempotent-Replayed', ...RATE_LIMIT_HEADERS],
  },
  errors: [400, 401, 402, 409, 413, 422, 429, 500, 503],
};

function checkPeople(
  ctx: RouteContext, mode: 'live' | 'test', body: CreateChecksRequest, options: CheckOptions, privateIndex: ListIndex | null,
): CreateChecksResponse {
  if (mode === 'test') {
    // Test keys never read the live list (DECISIONS §3), nor an organisation's private list.
    return { list_version: TEST_LIST_VERSION, results: body.people.map((person) => testModeCheck(person, options)) };
  }
  const active = ctx.activeIndex.current();
  if (!active) throw listNotReady();
  const check = privateIndex
    ? (person: CreateChecksRequest['people'][number]) => applyPrivateList(checkPerson(active.index, person, options), checkPerson(privateIndex, person, options))
    : (person: CreateChecksRequest['people'][number]) => checkPerson(active.index, person, options);
  return { list_version: toListVersionRef(active.version), results: body.people.map(check) };
}

/**
 * The organisation's private list index when the call asks for it (live keys only): 422 at
 * `use_private_list` when the organisation has no active private list (DECISIONS §16), rather
 * than answering without the list the caller relies on.
 */
async function privateIndexFor(ctx: RouteContext, orgId: string, mode: 'live' | 'test', body: CreateChecksRequest): Promise<ListIndex | null> {
  if (body.use_private_list !== true || mode === 'test') return null;
  const versionId = await ctx.privateLists.activeVersionOf(orgId);
  if (versionId === null) throw validationFailed([jobInputIssue('use_private_list', 'private_list_missing')]);
  return ctx.privateLists.forVersion(versionId);
}

export function registerChecksRoutes(app: FastifyInstance, ctx: RouteContext): void {
  registerRoute(app, createChecksSpec, [ctx.authenticate, requireApiAgreement, limitRate(ctx)], async (request, reply) => {
    const { org, mode } = authOf(request);
    const body = request.body as CreateChecksRequest;
    const options: CheckOptions = {
      policy: body.policy ?? 'standard',
      stopLevel: body.stop_level ?? org.stop_level ?? 1,
      locale: localeFrom(request.headers['accept-language']),
    };
    const outcome = await ctx.idempotency.run(
      { orgId: org.id, mode, endpoint: ENDPOINT },
      idempotencyKeyOf(request.headers),
      body,
      async () => {
        const response = checkPeople(ctx, mode, body, options, await privateIndexFor(ctx, org.id, mode, body));
        // Billable usage (live keys only, DECISIONS §3): counts and ids, no personal data. Published
        // before answering, so an answered check is always counted; a replay is not counted again.
        if (mode === 'live' && ctx.events) {
          await ctx.events.publish({
            type: 'CheckUsage',
            value: {
              org_id: org.id, kind: 'person_check', count: body.people.length, job_id: null, request_id: request.id,
              list_version_id: response.list_version.id, at: ctx.clock().toISOString(), key_id: authOf(request).key.id,
            },
          });
        }
        // Serialised here (after the schema check) so that a replay sends the very same bytes.
        return { status: 200, body: JSON.stringify(CreateChecksResponseSchema.parse(response)) };
      },
    );
    return sendOutcome(reply, outcome);
  });
}
