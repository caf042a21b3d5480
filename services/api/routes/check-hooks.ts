import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Organisation } from '../../platform/store/accounts-port.ts';
import { authOf } from '../auth.ts';
import { forbidden, paymentRequired, rateLimited } from '../errors.ts';
import type { RouteContext } from './route-spec.ts';

/**
 * The onRequest checks every synchronous check operation shares (people, companies, phones):
 * authentication first, then the plan, the add-on and the rate, so a caller learns about the
 * first thing it must fix.
 */

/** docs/decisions.md §8; test keys are never billed, so the agreement only gates live keys. */
export async function requireApiAgreement(request: FastifyRequest): Promise<void> {
  const { org, mode } = authOf(request);
  if (mode === 'live' && org.plan === 'pay_per_list' && !org.api_agreement) throw paymentRequired('no_api_agreement');
}

/**
 * docs/decisions.md §5: company and phone checks need the organisation's add-on, for test keys as well
 * (a test integration must meet the same 403 its live twin would).
 */
export function requireAddon(addon: Organisation['addons'][number]) {
  return async (request: FastifyRequest): Promise<void> => {
    if (!authOf(request).org.addons.includes(addon)) throw forbidden(addon);
  };
}

/**
 * The key's rate (docs/decisions.md §11) with the RateLimit headers of draft-ietf-httpapi-ratelimit-headers
 * (the widely implemented -06/-07 fields): `RateLimit-Policy: <rate>;w=1;burst=<burst>`,
 * `RateLimit-Limit` (the burst), `RateLimit-Remaining`, `RateLimit-Reset` (seconds until the
 * bucket is full again; on a 429 until the next request fits, as `Retry-After`).
 */
export function limitRate(ctx: RouteContext) {
  // reply is optional in the type only: hooks without it share the routes' hook lists.
  return async (request: FastifyRequest, reply?: FastifyReply): Promise<void> => {
    const { ratePerSecond, burst } = ctx.rateLimitPolicy;
    const decision = ctx.rateLimiter.take(authOf(request).key.id);
    const remaining = decision.allowed ? decision.remaining : 0;
    const reset = decision.allowed ? Math.ceil((burst - remaining) / ratePerSecond) : decision.retryAfterSeconds;
    const headers = {
      'RateLimit-Policy': `${ratePerSecond};w=1;burst=${burst}`,
      'RateLimit-Limit': String(burst),
      'RateLimit-Remaining': String(remaining),
      'RateLimit-Reset': String(reset),
    };
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds, headers);
    reply?.headers(headers);
  };
}
