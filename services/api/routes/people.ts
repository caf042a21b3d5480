/**
 * The portal's people (docs/people.md): signing in and out with a session cookie, invitations,
 * users and roles, API keys made in the page, the audit log and the organisation's settings.
 * Users, keys, settings and the audit log are for a signed-in admin only (requireAdmin): an API
 * key or a member gets 403, whichever way they call.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ApiKeyRecord } from '../../platform/store/accounts-port.ts';
import type { UserRecord } from '../../platform/store/people-port.ts';
import { PeopleError, SESSION_HOURS, type Actor, type PeopleService } from '../people/people-service.ts';
import { csrfTokenOf } from '../people/tokens.ts';
import { authOf, requireAdmin, requirePerson, SESSION_COOKIE } from '../auth.ts';
import { ApiError, validationFailed } from '../errors.ts';
import { localeFrom } from '../locale.ts';
import { message } from '../messages.ts';
import { createRateLimiter, type RateLimiter } from '../rate-limiter.ts';
import {
  AcceptInvitationRequestSchema, ApiKeyListSchema, ApiKeySchema, AuditLogSchema, AuditQuerySchema, CreateApiKeyRequestSchema,
  CreatedApiKeySchema, InvitationSchema, RecoveryCodesSchema, InviteUserRequestSchema, SessionSchema, SetRoleRequestSchema, SettingsSchema,
  SignedOutSchema, SignInRequestSchema, UpdateSettingsRequestSchema, UserListSchema, UserSchema,
} from '../schemas/people.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

export interface PeopleContext {
  service: PeopleService;
  /** Sign-in attempts per e-mail; default 5 at once, then one per 12 seconds. */
  signInLimiter?: RateLimiter;
}

const idParam = (what: string) => ({ id: { description: `The ${what} id`, schema: z.uuid() } });
const tokenParam = { token: { description: 'The token from the invitation link', schema: z.string().max(100) } };

const spec = (s: Omit<RouteSpec, 'errors'> & { errors?: number[] }): RouteSpec => ({ errors: [400, 401, 402, 403, 422, 500], ...s });

export const signInSpec = spec({
  method: 'POST', url: '/v2/session', operationId: 'signIn', authenticated: false,
  summary: 'Signs a person in: e-mail, password and authenticator code; sets the session cookie',
  description: 'Every wrong combination is the same 401. The cookie is HttpOnly, Secure and SameSite=Strict; ' +
    'requests that change something must send `csrf_token` as X-CSRF-Token.',
  body: SignInRequestSchema,
  success: { status: 200, description: 'Signed in', schema: SessionSchema },
  errors: [400, 401, 402, 422, 429, 500],
});
export const getSessionSpec = spec({
  method: 'GET', url: '/v2/session', operationId: 'getSession', authenticated: true,
  summary: 'The signed-in person, their organisation and the CSRF token',
  success: { status: 200, description: 'The session', schema: SessionSchema },
});
export const signOutSpec = spec({
  method: 'DELETE', url: '/v2/session', operationId: 'signOut', authenticated: true,
  summary: 'Ends this session', success: { status: 200, description: 'Signed out', schema: SignedOutSchema },
});
export const signOutEverywhereSpec = spec({
  method: 'POST', url: '/v2/session/sign-out-everywhere', operationId: 'signOutEverywhere', authenticated: true,
  summary: "Ends every one of the person's sessions, on every device",
  success: { status: 200, description: 'Signed out everywhere', schema: SignedOutSchema },
});
export const getRecoveryCodesSpec = spec({
  method: 'GET', url: '/v2/session/recovery-codes', operationId: 'getRecoveryCodes', authenticated: true,
  summary: "How many of the signed-in person's recovery codes are left",
  success: { status: 200, description: 'Codes left', schema: RecoveryCodesSchema },
});
export const newRecoveryCodesSpec = spec({
  method: 'POST', url: '/v2/session/recovery-codes', operationId: 'newRecoveryCodes', authenticated: true,
  summary: 'Makes the signed-in person ten new recovery codes, shown once; the old ones stop working',
  success: { status: 201, description: 'The new codes', schema: RecoveryCodesSchema },
});
export const getInvitationSpec = spec({
  method: 'GET', url: '/v2/invitations/{token}', operationId: 'getInvitation', authenticated: false,
  summary: 'An open invitation: the address and the second factor to set up', pathParams: tokenParam,
  success: { status: 200, description: 'The invitation', schema: InvitationSchema }, errors: [400, 404, 500],
});
export const acceptInvitationSpec = spec({
  method: 'POST', url: '/v2/invitations/{token}', operationId: 'acceptInvitation', authenticated: false,
  summary: 'Accepts an invitation: a password and a code from the authenticator app', pathParams: tokenParam,
  body: AcceptInvitationRequestSchema,
  success: { status: 200, description: 'The user, now active (sign in next)', schema: UserSchema }, errors: [400, 404, 422, 500],
});
export const listUsersSpec = spec({
  method: 'GET', url: '/v2/users', operationId: 'listUsers', authenticated: true,
  summary: "The organisation's users (admin)", success: { status: 200, description: 'Users, oldest first', schema: UserListSchema },
});
export const inviteUserSpec = spec({
  method: 'POST', url: '/v2/users', operationId: 'inviteUser', authenticated: true,
  summary: 'Invites a person by e-mail (admin)', body: InviteUserRequestSchema,
  success: { status: 201, description: 'The user, invited', schema: UserSchema }, errors: [400, 401, 402, 403, 409, 422, 500, 503],
});
export const setRoleSpec = spec({
  method: 'POST', url: '/v2/users/{id}/role', operationId: 'setUserRole', authenticated: true,
  summary: "Changes a user's role (admin); their sessions end", pathParams: idParam('user'), body: SetRoleRequestSchema,
  success: { status: 200, description: 'The user', schema: UserSchema }, errors: [400, 401, 402, 403, 404, 409, 422, 500],
});
export const removeUserSpec = spec({
  method: 'DELETE', url: '/v2/users/{id}', operationId: 'removeUser', authenticated: true,
  summary: 'Removes a user (admin); their sessions end', pathParams: idParam('user'),
  success: { status: 200, description: 'The user, removed', schema: UserSchema }, errors: [400, 401, 402, 403, 404, 409, 500],
});
export const listKeysSpec = spec({
  method: 'GET', url: '/v2/api-keys', operationId: 'listApiKeys', authenticated: true,
  summary: "The organisation's API keys (admin)", success: { status: 200, description: 'Keys, oldest first', schema: ApiKeyListSchema },
});
export const createKeySpec = spec({
  method: 'POST', url: '/v2/api-keys', operationId: 'createApiKey', authenticated: true,
  summary: 'Creates a labelled API key (admin); its text is shown once', body: CreateApiKeyRequestSchema,
  success: { status: 201, description: 'The key', schema: CreatedApiKeySchema },
});
export const revokeKeySpec = spec({
  method: 'DELETE', url: '/v2/api-keys/{id}', operationId: 'revokeApiKey', authenticated: true,
  summary: 'Revokes an API key (admin)', pathParams: idParam('API key'),
  success: { status: 200, description: 'The key, revoked', schema: ApiKeySchema }, errors: [400, 401, 402, 403, 404, 500],
});
export const auditLogSpec = spec({
  method: 'GET', url: '/v2/audit-log', operationId: 'listAuditLog', authenticated: true,
  summary: 'Who did what (admin), newest first', query: AuditQuerySchema,
  success: { status: 200, description: 'Audit entries', schema: AuditLogSchema },
});
export const getSettingsSpec = spec({
  method: 'GET', url: '/v2/settings', operationId: 'getSettings', authenticated: true,
  summary: "The organisation's stop line and retention", success: { status: 200, description: 'Settings', schema: SettingsSchema },
});
export const updateSettingsSpec = spec({
  method: 'PUT', url: '/v2/settings', operationId: 'updateSettings', authenticated: true,
  summary: 'Changes the stop line or retention (admin); jobs started later use them', body: UpdateSettingsRequestSchema,
  success: { status: 200, description: 'Settings', schema: SettingsSchema },
});

export const peopleSpecs: RouteSpec[] = [
  signInSpec, getSessionSpec, signOutSpec, signOutEverywhereSpec, getRecoveryCodesSpec, newRecoveryCodesSpec, getInvitationSpec, acceptInvitationSpec,
  listUsersSpec, inviteUserSpec, setRoleSpec, removeUserSpec, listKeysSpec, createKeySpec, revokeKeySpec, auditLogSpec,
  getSettingsSpec, updateSettingsSpec,
];

/** Routes whose changes the routes audit themselves (the generic audit hook skips them). */
export const SELF_AUDITED_PREFIXES = ['/v2/session', '/v2/invitations', '/v2/users', '/v2/api-keys', '/v2/settings'];

const STATUS_OF_REASON: Record<PeopleError['reason'], { code: 'not_found' | 'conflict' | 'service_unavailable' | 'invalid_request'; path?: string }> = {
  email_taken: { code: 'conflict' },
  mail_unavailable: { code: 'service_unavailable' },
  invitation_invalid: { code: 'not_found' },
  password_length: { code: 'invalid_request', path: 'password' },
  code_wrong: { code: 'invalid_request', path: 'code' },
  user_not_found: { code: 'not_found' },
  last_admin: { code: 'conflict' },
  key_not_found: { code: 'not_found' },
};

/** A PeopleError as the contract's error: a person's words in the caller's language, the reason in details. */
function apiErrorOf(error: unknown): unknown {
  if (!(error instanceof PeopleError)) return error;
  const { code, path } = STATUS_OF_REASON[error.reason];
  return new ApiError({
    code, messageKey: error.reason, details: { reason: error.reason },
    ...(path ? { issues: [{ path, describe: (locale) => message(error.reason, locale) }] } : {}),
  });
}


const userJson = (u: UserRecord) => ({ id: u.id, email: u.email, role: u.role, status: u.status, created_at: u.created_at });
const keyJson = (k: ApiKeyRecord) => ({
  id: k.id, label: k.label ?? '', mode: k.mode, prefix: k.prefix, created_at: k.created_at, created_by: k.created_by ?? null, revoked_at: k.revoked_at,
});

function actorOf(request: FastifyRequest): Actor {
  const { org, key, user } = authOf(request);
  return user ? { org_id: org.id, kind: 'user', id: user.id } : { org_id: org.id, kind: 'key', id: key.id };
}

/** HttpOnly: no script reads it; Secure and `__Host-`: docs/people.md "Sessions" (loopback http works). */
function sessionCookie(token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAgeSeconds}`;
}

function pathId(request: FastifyRequest, what: 'user_not_found' | 'key_not_found'): string {
  const id = (request.params as { id: string }).id;
  if (!z.uuid().safeParse(id).success) throw apiErrorOf(new PeopleError(what));
  return id;
}

export function registerPeopleRoutes(app: FastifyInstance, ctx: RouteContext, people: PeopleContext): void {
  const { service } = people;
  const limiter = people.signInLimiter ?? createRateLimiter({ ratePerSecond: 1 / 12, burst: 5, now: () => ctx.clock().getTime() });
  const wrap = <T>(run: () => Promise<T>) => run().catch((error: unknown) => { throw apiErrorOf(error); });

  const sessionJson = (request: FastifyRequest, token: string, user: UserRecord, expiresAt: string) => {
    const { org, mode } = authOf(request);
    return { user: userJson(user), organisation: { id: org.id, name: org.name }, mode, csrf_token: csrfTokenOf(token), expires_at: expiresAt };
  };

  registerRoute(app, signInSpec, [], async (request, reply) => {
    const body = request.body as z.infer<typeof SignInRequestSchema>;
    const email = body.email.trim().toLowerCase();
    const decision = limiter.take(`sign-in:${email}`);
    if (!decision.allowed) {
      throw new ApiError({ code: 'rate_limited', messageKey: 'sign_in_throttled', headers: { 'Retry-After': String(decision.retryAfterSeconds) } });
    }
    const signedIn = await service.signIn({ email, password: body.password, code: body.code, mode: body.mode });
    if (!signedIn) throw new ApiError({ code: 'unauthorized', messageKey: 'sign_in_failed', details: { reason: 'sign_in_failed' } });
    const org = await service.organisation(signedIn.user.org_id);
    if (!org) throw new ApiError({ code: 'unauthorized', messageKey: 'sign_in_failed', details: { reason: 'sign_in_failed' } });
    reply.header('Set-Cookie', sessionCookie(signedIn.token, SESSION_HOURS * 3600));
    return reply.code(200).send({
      user: userJson(signedIn.user), organisation: { id: org.id, name: org.name }, mode: signedIn.session.mode,
      csrf_token: signedIn.csrf, expires_at: signedIn.session.expires_at,
    });
  });

  registerRoute(app, getSessionSpec, [ctx.authenticate], async (request, reply) => {
    const user = requirePerson(request);
    const { sessionToken } = authOf(request);
    const found = await service.resolveSession(sessionToken as string);
    return reply.code(200).send(sessionJson(request, sessionToken as string, user, found?.session.expires_at ?? ''));
  });

  registerRoute(app, signOutSpec, [ctx.authenticate], async (request, reply) => {
    const user = requirePerson(request);
    await service.signOut(authOf(request).sessionToken as string, user);
    reply.header('Set-Cookie', sessionCookie('', 0));
    return reply.code(200).send({ signed_out: true });
  });

  registerRoute(app, signOutEverywhereSpec, [ctx.authenticate], async (request, reply) => {
    const user = requirePerson(request);
    await service.signOutEverywhere(user);
    reply.header('Set-Cookie', sessionCookie('', 0));
    return reply.code(200).send({ signed_out: true });
  });

  registerRoute(app, getRecoveryCodesSpec, [ctx.authenticate], async (request, reply) => {
    const user = requirePerson(request);
    return reply.code(200).send({ remaining: await service.recoveryCodesLeft(user) });
  });

  registerRoute(app, newRecoveryCodesSpec, [ctx.authenticate], async (request, reply) => {
    const user = requirePerson(request);
    const codes = await service.newRecoveryCodes(user);
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).send({ codes, remaining: codes.length });
  });

  registerRoute(app, getInvitationSpec, [], async (request, reply) => {
    const invitation = await service.readInvitation((request.params as { token: string }).token);
    if (!invitation) throw apiErrorOf(new PeopleError('invitation_invalid'));
    reply.header('Cache-Control', 'no-store');
    return reply.code(200).send(invitation);
  });

  registerRoute(app, acceptInvitationSpec, [], async (request, reply) => {
    const body = request.body as z.infer<typeof AcceptInvitationRequestSchema>;
    const user = await wrap(() => service.acceptInvitation((request.params as { token: string }).token, body));
    return reply.code(200).send(userJson(user));
  });

  registerRoute(app, listUsersSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const users = await service.listUsers(authOf(request).org.id);
    return reply.code(200).send({ data: users.map(userJson) });
  });

  registerRoute(app, inviteUserSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const body = request.body as z.infer<typeof InviteUserRequestSchema>;
    const user = await wrap(() => service.invite(actorOf(request), {
      org: authOf(request).org, email: body.email, role: body.role, locale: localeFrom(request.headers['accept-language']),
    }));
    return reply.code(201).send(userJson(user));
  });

  registerRoute(app, setRoleSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const id = pathId(request, 'user_not_found');
    const body = request.body as z.infer<typeof SetRoleRequestSchema>;
    const user = await wrap(() => service.setRole(actorOf(request), id, body.role));
    return reply.code(200).send(userJson(user));
  });

  registerRoute(app, removeUserSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const id = pathId(request, 'user_not_found');
    const user = await wrap(() => service.removeUser(actorOf(request), id));
    return reply.code(200).send(userJson(user));
  });

  registerRoute(app, listKeysSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    return reply.code(200).send({ data: (await service.listKeys(authOf(request).org.id)).map(keyJson) });
  });

  registerRoute(app, createKeySpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const body = request.body as z.infer<typeof CreateApiKeyRequestSchema>;
    const { key, record } = await service.createKey(actorOf(request), body);
    reply.header('Cache-Control', 'no-store');
    return reply.code(201).send({ key, api_key: keyJson(record) });
  });

  registerRoute(app, revokeKeySpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const id = pathId(request, 'key_not_found');
    const record = await wrap(() => service.revokeKey(actorOf(request), id));
    return reply.code(200).send(keyJson(record));
  });

  registerRoute(app, auditLogSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const parsed = AuditQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues, request.query));
    const orgId = authOf(request).org.id;
    const entries = await service.listAudit(orgId, { limit: parsed.data.limit + 1, ...(parsed.data.before ? { before: parsed.data.before } : {}) });
    const names = await actorNames(service, orgId);
    return reply.code(200).send({
      data: entries.slice(0, parsed.data.limit).map((e) => ({
        id: e.id, at: e.at, actor_kind: e.actor_kind, actor_id: e.actor_id, actor: names.get(e.actor_id) ?? null, action: e.action, target: e.target,
      })),
      has_more: entries.length > parsed.data.limit,
    });
  });

  registerRoute(app, getSettingsSpec, [ctx.authenticate], async (request, reply) => {
    const org = (await service.settingsOf(authOf(request).org.id)) ?? authOf(request).org;
    return reply.code(200).send({ stop_level: org.stop_level, retention_days: org.retention_days });
  });

  registerRoute(app, updateSettingsSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const body = request.body as z.infer<typeof UpdateSettingsRequestSchema>;
    const org = await service.updateSettings(actorOf(request), body);
    return reply.code(200).send({ stop_level: org.stop_level, retention_days: org.retention_days });
  });
}

/** Who an audit entry's actor is, in words: a user's e-mail, an API key's label (or prefix). */
async function actorNames(service: PeopleService, orgId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const u of await service.listUsers(orgId)) names.set(u.id, u.email);
  for (const k of await service.listKeys(orgId)) names.set(k.id, k.label ? `${k.label} (${k.prefix}…)` : `${k.prefix}…`);
  return names;
}
