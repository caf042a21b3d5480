import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CheckOptions, MatchPolicy } from '../../domain/types.ts';
import type { UsageKind } from '../../platform/store/usage-port.ts';
import { authOf } from '../auth.ts';
import { idempotencyKeyOf, sendOutcome } from '../idempotency.ts';
import { localeFrom } from '../locale.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

/** What every synchronous check body may say about how to check. */
interface CheckBody {
  policy?: MatchPolicy;
  stop_level?: number;
}

/** Who asks: the organisation (its private list, its stop level) and the key's mode. */
export interface Caller {
  orgId: string;
  mode: 'live' | 'test';
}

/** An answer written as its UTF-8 bytes by the check, and the list version it was checked against. */
export interface WrittenAnswer {
  listVersionId: string | null;
  bytes: Buffer;
}

/**
 * One synchronous check operation (people, companies, phones): only what differs between them.
 * The rest is the same for all three and lives in `registerSyncCheck` below.
 */
interface SyncCheckCommon<Body extends CheckBody> {
  spec: RouteSpec;
  /** onRequest hooks: authentication first, then plan, add-on and rate (check-hooks.ts). */
  hooks: Parameters<typeof registerRoute>[2];
  /** The usage kind billed for one item (docs/decisions.md §3). */
  usage: Exclude<UsageKind, 'job_row'>;
  /** How many items the body checks, as billed. */
  countOf(body: Body): number;
}

/**
 * The answer is parsed with its schema before it is written, which also puts its keys in the
 * schema's order whatever order the check made them in (company and phone checks).
 */
interface CheckedThenWritten<Body extends CheckBody, Response> extends SyncCheckCommon<Body> {
  check(body: Body, options: CheckOptions, caller: Caller): Response | Promise<Response>;
  write?: never;
}

/**
 * The check writes its answer itself, its keys already in the schema's order, without the
 * schema's parse (POST /v2/checks: people-answer.ts); the tests check it against the schema
 * (RouteContext `checkAnswer`).
 */
interface WrittenAsChecked<Body extends CheckBody> extends SyncCheckCommon<Body> {
  write(body: Body, options: CheckOptions, caller: Caller): Promise<WrittenAnswer>;
  check?: never;
}

export type SyncCheckOperation<Body extends CheckBody, Response extends { list_version: { id: string } | null }> =
  | CheckedThenWritten<Body, Response>
  | WrittenAsChecked<Body>;

/**
 * Registers a synchronous check: the check options from the body and the organisation, one run
 * per Idempotency-Key (docs/decisions.md §6), billable usage taken by the usage writer before
 * answering and written right after, so that an answered check is counted and a replay is not
 * counted again (live keys only; counts and ids, no personal data; docs/decisions.md §3;
 * docs/privacy-and-proof.md "Billing"), and the response serialised once and stored,
 * so that a replay sends the very same bytes (its schema is checked by the tests, answer-check.ts).
 */
export function registerSyncCheck<Body extends CheckBody, Response extends { list_version: { id: string } | null }>(
  app: FastifyInstance, ctx: RouteContext, operation: SyncCheckOperation<Body, Response>,
): void {
  const { spec } = operation;
  const endpoint = `${spec.method} ${spec.url}`;
  registerRoute(app, spec, operation.hooks, async (request: FastifyRequest, reply: FastifyReply) => {
    const { org, mode, key } = authOf(request);
    const body = request.body as Body;
    const options: CheckOptions = {
      policy: body.policy ?? 'standard',
      stopLevel: body.stop_level ?? org.stop_level ?? 1,
      locale: localeFrom(request.headers['accept-language']),
    };
    const outcome = await ctx.idempotency.run({ orgId: org.id, mode, endpoint }, idempotencyKeyOf(request.headers), body, async () => {
      const caller = { orgId: org.id, mode };
      let answer: WrittenAnswer;
      if (operation.write) {
        answer = await operation.write(body, options, caller);
        ctx.checkAnswer(spec.success.schema, answer.bytes);
      } else {
        const response = await operation.check(body, options, caller);
        answer = { listVersionId: response.list_version?.id ?? null, bytes: Buffer.from(JSON.stringify(spec.success.schema.parse(response)), 'utf8') };
      }
      // Taken before the answer is sent, written with the turn's others after it
      // (billing/usage-writer.ts); while the log refuses writes this throws and nothing is answered.
      if (mode === 'live' && ctx.usage) {
        ctx.usage.record({
          org_id: org.id, kind: operation.usage, count: operation.countOf(body), job_id: null, request_id: request.id,
          list_version_id: answer.listVersionId, at: ctx.clock().toISOString(), key_id: key.id,
        });
      }
      return { status: 200, body: answer.bytes };
    });
    return sendOutcome(reply, outcome);
  });
}
