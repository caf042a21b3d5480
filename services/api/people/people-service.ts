import { randomUUID } from 'node:crypto';
import type { Locale } from '../../domain/types.ts';
import { apiKeyPrefix, generateApiKey, hashApiKey, type ApiKeyMode } from '../../platform/api-keys.ts';
import type { AccountStore, ApiKeyRecord, Organisation } from '../../platform/store/accounts-port.ts';
import type { AuditEntry, PeopleStore, Role, SessionRecord, UserRecord } from '../../platform/store/people-port.ts';
import type { InvitationMailer } from './invitation-mail.ts';
import { decoyPasswordHash, hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyPassword } from './password.ts';
import { generateTotpSecret, matchTotp, otpauthUri } from './totp.ts';
import type { TotpSecretSeal } from './totp-seal.ts';
import { hashRecoveryCode, newRecoveryCodes, normaliseRecoveryCode } from './recovery-codes.ts';
import { csrfTokenOf, hashToken, newSecretToken } from './tokens.ts';
import { errorFields, type Logger } from '../../platform/logger.ts';
import { ClassifiedError } from '../../platform/errors.ts';

/**
 * The portal's accounts (docs/people.md): inviting people, accepting an invitation (password and
 * TOTP), signing in and out, roles, API keys made in the page and the audit log. No HTTP here:
 * the routes in services/api/routes/people.ts map its errors to answers.
 */
export const INVITATION_DAYS = 7;
/** A session ends 12 hours after sign-in at the latest: one working day, then sign in again. */
export const SESSION_HOURS = 12;
const ISSUER = 'Robinson';

export type PeopleErrorReason =
  | 'email_taken' | 'mail_unavailable' | 'invitation_invalid' | 'password_length' | 'code_wrong'
  | 'user_not_found' | 'last_admin' | 'key_not_found';

export class PeopleError extends ClassifiedError {
  readonly reason: PeopleErrorReason;
  constructor(reason: PeopleErrorReason) {
    super(reason);
    this.name = 'PeopleError';
    this.reason = reason;
  }

  /** Only a mail server that did not answer may pass; every other reason repeats with the same input. */
  override get permanent(): boolean {
    return this.reason !== 'mail_unavailable';
  }
}

/** Who did something, for the audit log: a signed-in user or an API key. */
export interface Actor {
  org_id: string;
  kind: 'user' | 'key';
  id: string;
}

export interface SignedIn {
  /** The cookie's value; only its hash is stored. */
  token: string;
  csrf: string;
  session: SessionRecord;
  user: UserRecord;
}

export interface PeopleDeps {
  people: PeopleStore;
  accounts: AccountStore;
  /** Absent: no relay configured, so invitations cannot be sent (503). */
  mailer?: InvitationMailer;
  /** The page's public address; invitation links point at `<publicUrl>/#invite=<token>`. */
  publicUrl: string;
  /** Seals each person's TOTP secret at rest with a data key of their own (docs/people.md "Second factor"). */
  totpSeal: TotpSecretSeal;
  /** Where a refused invitation mail is logged (ids and the error only; never the address). */
  logger?: Logger;
  clock?: () => Date;
}

export type PeopleService = ReturnType<typeof createPeopleService>;

export function createPeopleService(deps: PeopleDeps) {
  const { people, accounts } = deps;
  const now = () => (deps.clock ?? (() => new Date()))();

  async function audit(actor: Actor, action: string, target: string | null): Promise<void> {
    const entry: AuditEntry = { id: randomUUID(), org_id: actor.org_id, at: now().toISOString(), actor_kind: actor.kind, actor_id: actor.id, action, target };
    await people.appendAudit(entry);
  }

  /** An active invitation and its user, or null (unknown, used, expired, or the user removed). */
  async function openInvitation(token: string) {
    const invitation = await people.findInvitation(hashToken(token));
    if (!invitation || invitation.used_at !== null || invitation.expires_at <= now().toISOString()) return null;
    const user = await people.getUser(invitation.user_id);
    if (!user || user.status !== 'invited') return null;
    const org = await accounts.getOrganisation(user.org_id);
    return org ? { invitation, user, org } : null;
  }

  async function ensureAnotherAdmin(user: UserRecord): Promise<void> {
    if (user.role !== 'admin' || user.status === 'removed') return;
    const admins = (await people.listUsers(user.org_id)).filter((u) => u.role === 'admin' && u.status === 'active' && u.id !== user.id);
    if (admins.length === 0) throw new PeopleError('last_admin');
  }

  async function userOfOrg(orgId: string, userId: string): Promise<UserRecord> {
    const user = await people.getUser(userId);
    if (!user || user.org_id !== orgId || user.status === 'removed') throw new PeopleError('user_not_found');
    return user;
  }

  return {
    audit,

    /**
     * Creates the user `invited` and sends the link. The mail goes first: when the relay refuses
     * it, the user is removed again, so nobody waits for a link that never came.
     */
    async invite(actor: Actor | null, input: { org: Organisation; email: string; role: Role; locale: Locale }): Promise<UserRecord> {
      if (!deps.mailer) throw new PeopleError('mail_unavailable');
      const email = input.email.trim().toLowerCase();
      if (await people.findUserByEmail(email)) throw new PeopleError('email_taken');
      const at = now();
      const id = randomUUID();
      const user: UserRecord = {
        id, org_id: input.org.id, email, role: input.role, status: 'invited', password_hash: null,
        totp_secret: await deps.totpSeal.seal(id, generateTotpSecret()), totp_last_step: 0, sessions_valid_from: at.toISOString(), created_at: at.toISOString(),
      };
      try {
        await people.createUser(user);
      } catch {
        throw new PeopleError('email_taken');
      }
      const token = newSecretToken();
      await people.createInvitation({
        token_hash: hashToken(token), user_id: user.id, org_id: user.org_id, created_at: at.toISOString(),
        expires_at: new Date(at.getTime() + INVITATION_DAYS * 86_400_000).toISOString(), used_at: null,
      });
      try {
        await deps.mailer.send({ to: email, organisation: input.org.name, link: `${deps.publicUrl.replace(/\/$/, '')}/#invite=${token}`, locale: input.locale });
      } catch (error) {
        deps.logger?.warn({ user_id: user.id, org_id: user.org_id, ...errorFields(error) }, 'people.invitation_mail_failed');
        await people.updateUser(user.id, { status: 'removed' });
        throw new PeopleError('mail_unavailable');
      }
      if (actor) await audit(actor, 'user.invited', user.id);
      return user;
    },

    /** What the invitation page shows: the address, the organisation and the TOTP secret to add. */
    async readInvitation(token: string) {
      const open = await openInvitation(token);
      if (!open) return null;
      const secret = await deps.totpSeal.open(open.user.id, open.user.totp_secret);
      return {
        email: open.user.email, organisation: open.org.name, role: open.user.role,
        totp_secret: secret, otpauth_uri: otpauthUri(secret, ISSUER, open.user.email),
      };
    },

    /** Sets the password, proves the authenticator app works (a code), and makes the user active. */
    async acceptInvitation(token: string, input: { password: string; code: string }): Promise<UserRecord> {
      const open = await openInvitation(token);
      if (!open) throw new PeopleError('invitation_invalid');
      // Code points, not UTF-16 units: an emoji counts as one character, as a person counts it.
      const length = Array.from(input.password).length;
      if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) throw new PeopleError('password_length');
      const step = matchTotp(await deps.totpSeal.open(open.user.id, open.user.totp_secret), input.code.trim(), now(), open.user.totp_last_step);
      if (step === null || !(await people.takeTotpStep(open.user.id, step))) throw new PeopleError('code_wrong');
      if (!(await people.useInvitation(open.invitation.token_hash, now().toISOString()))) throw new PeopleError('invitation_invalid');
      const user = await people.updateUser(open.user.id, { status: 'active', password_hash: await hashPassword(input.password) });
      if (!user) throw new PeopleError('invitation_invalid');
      await audit({ org_id: user.org_id, kind: 'user', id: user.id }, 'user.activated', user.id);
      return user;
    },

    /**
     * Password and code, checked together: every failure is the same null, so a guesser learns
     * neither which e-mails exist nor which half was wrong. An unknown e-mail still costs one
     * scrypt (the decoy), so the answer's time tells nothing either.
     */
    async signIn(input: { email: string; password: string; code: string; mode: 'live' | 'test' }): Promise<SignedIn | null> {
      const user = await people.findUserByEmail(input.email.trim());
      if (!user || user.status !== 'active' || user.password_hash === null) {
        await verifyPassword(input.password, await decoyPasswordHash());
        return null;
      }
      const passwordOk = await verifyPassword(input.password, user.password_hash);
      const org = await accounts.getOrganisation(user.org_id);
      if (!passwordOk || !org) return null;
      // Six digits are the app's code; anything else may be a recovery code (each works once).
      const typed = input.code.trim();
      const recovery = /^\d{6}$/.test(typed) ? null : normaliseRecoveryCode(typed);
      if (recovery !== null) {
        if (!(await people.useRecoveryCode(user.id, hashRecoveryCode(user.id, recovery), now().toISOString()))) return null;
        await audit({ org_id: user.org_id, kind: 'user', id: user.id }, 'user.recovery_code_used', null);
      } else {
        const secret = await deps.totpSeal.open(user.id, user.totp_secret).catch(() => null);
        if (secret === null) return null;
        const step = matchTotp(secret, typed, now(), user.totp_last_step);
        if (step === null || !(await people.takeTotpStep(user.id, step))) return null;
      }
      const token = newSecretToken();
      const at = now();
      const session: SessionRecord = {
        token_hash: hashToken(token), user_id: user.id, org_id: user.org_id, mode: input.mode,
        created_at: at.toISOString(), expires_at: new Date(at.getTime() + SESSION_HOURS * 3_600_000).toISOString(), revoked_at: null,
      };
      await people.createSession(session);
      await audit({ org_id: user.org_id, kind: 'user', id: user.id }, 'session.signed_in', null);
      return { token, csrf: csrfTokenOf(token), session, user };
    },

    /** The live session of a cookie and its user, or null (unknown, ended, revoked, signed out everywhere). */
    async resolveSession(token: string): Promise<{ session: SessionRecord; user: UserRecord } | null> {
      const session = await people.findSession(hashToken(token));
      const at = now().toISOString();
      if (!session || session.revoked_at !== null || session.expires_at <= at) return null;
      const user = await people.getUser(session.user_id);
      if (!user || user.status !== 'active' || session.created_at < user.sessions_valid_from) return null;
      return { session, user };
    },

    async signOut(token: string, user: UserRecord): Promise<void> {
      await people.revokeSession(hashToken(token), now().toISOString());
      await audit({ org_id: user.org_id, kind: 'user', id: user.id }, 'session.signed_out', null);
    },

    /** Every session of the user ends now, on every device, this one included. */
    async signOutEverywhere(user: UserRecord): Promise<void> {
      await people.updateUser(user.id, { sessions_valid_from: bumpedPast(now()) });
      await audit({ org_id: user.org_id, kind: 'user', id: user.id }, 'session.signed_out_everywhere', null);
    },

    /** A new set of recovery codes for the person, returned this once; the old set stops working. */
    async newRecoveryCodes(user: UserRecord): Promise<string[]> {
      const codes = newRecoveryCodes();
      await people.setRecoveryCodes(user.id, codes.map((code) => hashRecoveryCode(user.id, normaliseRecoveryCode(code)!)), now().toISOString());
      await audit({ org_id: user.org_id, kind: 'user', id: user.id }, 'user.recovery_codes_created', user.id);
      return codes;
    },

    recoveryCodesLeft: (user: UserRecord) => people.countRecoveryCodes(user.id),

    listUsers: (orgId: string) => people.listUsers(orgId),

    /** A new role takes effect at once: the user's sessions end, so no page keeps the old rights. */
    async setRole(actor: Actor, userId: string, role: Role): Promise<UserRecord> {
      const user = await userOfOrg(actor.org_id, userId);
      if (user.role === role) return user;
      if (role === 'member') await ensureAnotherAdmin(user);
      const next = await people.updateUser(user.id, { role, sessions_valid_from: bumpedPast(now()) });
      if (!next) throw new PeopleError('user_not_found');
      await audit(actor, `user.role_${role}`, user.id);
      return next;
    },

    async removeUser(actor: Actor, userId: string): Promise<UserRecord> {
      const user = await userOfOrg(actor.org_id, userId);
      await ensureAnotherAdmin(user);
      const next = await people.updateUser(user.id, { status: 'removed', sessions_valid_from: bumpedPast(now()) });
      if (!next) throw new PeopleError('user_not_found');
      // The second factor of a removed person can never be opened again, from any copy of the store.
      await deps.totpSeal.forget(user.id);
      await audit(actor, 'user.removed', user.id);
      return next;
    },

    /** A key made in the page; its text is returned this once only (the store keeps the hash). */
    async createKey(actor: Actor, input: { mode: ApiKeyMode; label: string }): Promise<{ key: string; record: ApiKeyRecord }> {
      const key = generateApiKey(input.mode);
      const record: ApiKeyRecord = {
        id: randomUUID(), org_id: actor.org_id, mode: input.mode, key_hash: hashApiKey(key), prefix: apiKeyPrefix(key),
        created_at: now().toISOString(), revoked_at: null, label: input.label.trim(), created_by: actor.kind === 'user' ? actor.id : null,
      };
      await accounts.createKey(record);
      await audit(actor, 'key.created', record.id);
      return { key, record };
    },

    async revokeKey(actor: Actor, keyId: string): Promise<ApiKeyRecord> {
      const key = (await accounts.listKeys(actor.org_id)).find((k) => k.id === keyId);
      if (!key) throw new PeopleError('key_not_found');
      await accounts.revokeKey(key.id, now().toISOString());
      if (key.revoked_at === null) await audit(actor, 'key.revoked', key.id);
      return (await accounts.listKeys(actor.org_id)).find((k) => k.id === keyId) ?? key;
    },

    listKeys: (orgId: string) => accounts.listKeys(orgId),
    organisation: (orgId: string) => accounts.getOrganisation(orgId),

    /** The stop line and retention: jobs created from now on take them (a running job keeps its own). */
    /**
     * The organisation as stored now: the request's own record may come from the API's look-up
     * cache (docs/api-decisions.md "Authentication cache"), up to AUTH_CACHE_MS old, and a page
     * that just saved its settings must read them back.
     */
    async settingsOf(orgId: string): Promise<Organisation | null> {
      return accounts.getOrganisation(orgId);
    },
    async updateSettings(actor: Actor, patch: { stop_level?: number | undefined; retention_days?: number | undefined }): Promise<Organisation> {
      const next = await accounts.updateOrganisation(actor.org_id, {
        ...(patch.stop_level !== undefined ? { stop_level: patch.stop_level } : {}),
        ...(patch.retention_days !== undefined ? { retention_days: patch.retention_days } : {}),
      });
      if (!next) throw new PeopleError('user_not_found');
      await audit(actor, 'settings.changed', null);
      return next;
    },
    listAudit: (orgId: string, options: { limit: number; before?: string }) => people.listAudit(orgId, options),
  };
}

/**
 * One millisecond past now: a session created in this same millisecond (the one signing out
 * everywhere) must end too, and `created_at < sessions_valid_from` compares ISO texts.
 */
function bumpedPast(at: Date): string {
  return new Date(at.getTime() + 1).toISOString();
}
