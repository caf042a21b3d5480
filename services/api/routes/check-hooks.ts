import type { FastifyRequest } from 'fastify';
import type { Organisation } from '../../platform/store/accounts-port.ts';
import { authOf } from '../auth.ts';
import { forbidden, paymentRequired, rateLimited } from '../errors.ts';
import type { RouteContext } from './route-spec.ts';

/**
 * The onRequest checks every synchronous check operation shares (people, companies, phones):
 * authentication first, then the plan, the add-on and the rate, so a caller learns about the
 * first thing it must fix.
 */

/** DECISIONS §8; test keys are never billed, so the agreement only gates live keys. */
export async function requireApiAgreement(request: FastifyRequest): Promise<void> {
  const { org, mode } = authOf(request);
  if (mode === 'live' && org.plan === 'pay_per_list' && !org.api_agreement) throw paymentRequired('no_api_agreement');
}

/**
 * DECISIONS §5: company and phone checks need the organisation's add-on, for test keys as well
 * (a test integration must meet the same 403 its live twin would).
 */
export function requireAddon(addon: Organisation['addons'][number]) {
  return async (request: FastifyRequest): Promise<void> => {
    if (!authOf(request).org.addons.includes(addon)) throw forbidden(addon);
  };
}

export function limitRate(ctx: RouteContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const decision = ctx.rateLimiter.take(authOf(request).key.id);
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
  };
}
