import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AccountStore, ApiKeyRecord, Organisation } from '../platform/store/accounts-port.ts';
import type { SessionRecord, UserRecord } from '../platform/store/people-port.ts';
import { hashApiKey, parseApiKeyMode } from '../platform/api-keys.ts';
import { csrfTokenOf } from './people/tokens.ts';
import { ApiError, paymentRequired, unauthorized } from './errors.ts';

/**
 * Who is calling: the organisation, the credential and its mode. Set by `authenticate`.
 * `key` is the API key, or for a signed-in person a stand-in with the same two fields (the rate
 * limit and usage count per credential; jobs keep a callback secret per credential).
 */
export interface AuthContext {
  org: Organisation;
  key: Pick<ApiKeyRecord, 'id' | 'key_hash'>;
  mode: 'live' | 'test';
  /** The signed-in person (a session cookie); null when an API key calls. */
  user: UserRecord | null;
  /** The cookie's token when a person calls (sign-out needs it). */
  sessionToken: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The session cookie (docs/people.md "Sessions"). `__Host-` makes the browser keep it only when
 * set Secure, for this host and path `/`, so no subdomain or plain-http page can plant or read one.
 */
export const SESSION_COOKIE = '__Host-robinson_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SessionResolver {
  resolveSession(token: string): Promise<{ session: SessionRecord; user: UserRecord } | null>;
}

/** The session cookie's value in a Cookie header, or null. */
export function sessionTokenOf(cookieHeader: string | undefined): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : null;
    }
  }
  return null;
}

/**
 * The callback secret of jobs a person starts: unguessable from outside (the TOTP secret is in
 * it) and stable per user. Callbacks are meant for API keys; a page user has no receiver.
 */
function personCredential(user: UserRecord): Pick<ApiKeyRecord, 'id' | 'key_hash'> {
  return { id: `user:${user.id}`, key_hash: createHash('sha256').update(`portal-user:${user.id}:${user.totp_secret}`).digest('hex') };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * docs/decisions.md §4 and §8: resolves `Authorization: Bearer rl_live_…|rl_test_…` to its organisation.
 * Missing, malformed, unknown and revoked keys are all the same 401, so a caller learns nothing
 * about which keys exist. A suspended organisation gets 402 on every route.
 *
 * Without an Authorization header a session cookie is taken instead (docs/people.md "Sessions"):
 * the same routes, the same organisation checks. A request that changes something must carry the
 * session's CSRF token in X-CSRF-Token (403 otherwise); SameSite=Strict already keeps other
 * sites' requests from carrying the cookie, the token covers browsers that do not honour it.
 */
export function createAuthenticator(accounts: Pick<AccountStore, 'findKeyByHash' | 'getOrganisation'>, sessions?: SessionResolver) {
  async function byKey(header: string): Promise<AuthContext> {
    const match = BEARER.exec(header);
    if (!match) throw unauthorized();
    const keyText = match[1];
    const mode = parseApiKeyMode(keyText);
    if (!mode) throw unauthorized();
    const key = await accounts.findKeyByHash(hashApiKey(keyText));
    // The stored mode must agree with the prefix: a key text can never change its own mode.
    if (!key || key.revoked_at !== null || key.mode !== mode) throw unauthorized();
    const org = await accounts.getOrganisation(key.org_id);
    if (!org) throw unauthorized();
    return { org, key, mode, user: null, sessionToken: null };
  }

  async function bySession(request: FastifyRequest, token: string): Promise<AuthContext> {
    const found = sessions ? await sessions.resolveSession(token) : null;
    if (!found) throw sessionEnded();
    if (!SAFE_METHODS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameText(sent, csrfTokenOf(token))) {
        throw new ApiError({ code: 'forbidden', messageKey: 'csrf_failed', details: { reason: 'csrf_token_missing' } });
      }
    }
    const org = await accounts.getOrganisation(found.user.org_id);
    if (!org) throw sessionEnded();
    return { org, key: personCredential(found.user), mode: found.session.mode, user: found.user, sessionToken: token };
  }

  return async function authenticate(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    const token = header === undefined ? sessionTokenOf(request.headers.cookie) : null;
    const auth = token !== null ? await bySession(request, token) : await byKey(header ?? '');
    if (auth.org.suspended) throw paymentRequired('suspended');
    request.auth = auth;
  };
}

/** A cookie that names no live session: the person signs in again (401, in a person's words). */
export const sessionEnded = () =>
  new ApiError({ code: 'unauthorized', messageKey: 'session_ended', details: { reason: 'session_ended' } });

/** The caller of an authenticated route (the route's onRequest hook has run). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new Error('route is missing the authenticate hook');
  return request.auth;
}

/**
 * docs/people.md "Roles": users, keys and settings are changed by a signed-in admin only. An API
 * key lives in scripts and files, so it cannot create people or more keys: 403 for it too.
 */
export function requireAdmin(request: FastifyRequest): UserRecord {
  const { user } = authOf(request);
  if (!user) throw new ApiError({ code: 'forbidden', messageKey: 'people_only', details: { reason: 'signed_in_admin_required' } });
  if (user.role !== 'admin') throw new ApiError({ code: 'forbidden', messageKey: 'admin_only', details: { reason: 'admin_required' } });
  return user;
}

/** A route for a signed-in person (their own session); an API key gets 403. */
export function requirePerson(request: FastifyRequest): UserRecord {
  const { user } = authOf(request);
  if (!user) throw new ApiError({ code: 'forbidden', messageKey: 'people_only', details: { reason: 'signed_in_person_required' } });
  return user;
}
