import type { FastifyRequest } from 'fastify';
import type { AccountStore, ApiKeyRecord, Organisation } from '../platform/store/accounts-port.ts';
import { hashApiKey, parseApiKeyMode } from '../platform/api-keys.ts';
import { paymentRequired, unauthorized } from './errors.ts';

/** Who is calling: the organisation, the key and its mode. Set by `authenticate`. */
export interface AuthContext {
  org: Organisation;
  key: ApiKeyRecord;
  mode: 'live' | 'test';
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * DECISIONS §4 and §8: resolves `Authorization: Bearer rl_live_…|rl_test_…` to its organisation.
 * Missing, malformed, unknown and revoked keys are all the same 401, so a caller learns nothing
 * about which keys exist. A suspended organisation gets 402 on every route.
 */
export function createAuthenticator(accounts: AccountStore) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (!match) throw unauthorized();
    const keyText = match[1];
    const mode = parseApiKeyMode(keyText);
    if (!mode) throw unauthorized();
    const key = await accounts.findKeyByHash(hashApiKey(keyText));
    // The stored mode must agree with the prefix: a key text can never change its own mode.
    if (!key || key.revoked_at !== null || key.mode !== mode) throw unauthorized();
    const org = await accounts.getOrganisation(key.org_id);
    if (!org) throw unauthorized();
    if (org.suspended) throw paymentRequired('suspended');
    request.auth = { org, key, mode };
  };
}

/** The caller of an authenticated route (the route's onRequest hook has run). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new Error('route is missing the authenticate hook');
  return request.auth;
}
