import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, PeopleStore, SessionRecord, UserRecord } from '../../services/platform/store/people-port.ts';
import { useHarness } from './harness.ts';

export interface PeopleStoreHarness {
  store: PeopleStore;
  /** A second store on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<PeopleStore>;
  close(): Promise<void>;
}

/** The PeopleStore conformance suite: every adapter passes it unchanged. */
export function peopleStoreContract(adapter: string, open: () => Promise<PeopleStoreHarness>): void {
  describe(`PeopleStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): PeopleStore => harness().store;

    it('creates users, finds them by e-mail in any case, lists them per organisation and updates them', async () => {
      const orgId = randomUUID();
      const a = user({ org_id: orgId, email: `Anna.${randomUUID()}@Example.DK`, created_at: '2026-01-01T00:00:00.000Z' });
      const b = user({ org_id: orgId, role: 'member', created_at: '2026-01-02T00:00:00.000Z' });
      await store().createUser(a);
      await store().createUser(b);
      const stored = { ...a, email: a.email.toLowerCase() };
      expect(await store().getUser(a.id)).toEqual(stored);
      expect(await store().findUserByEmail(a.email.toUpperCase())).toEqual(stored);
      expect(await store().findUserByEmail(`nobody-${randomUUID()}@example.dk`)).toBeNull();
      expect((await store().listUsers(orgId)).map((u) => u.id)).toEqual([a.id, b.id]);
      expect(await store().listUsers(randomUUID())).toEqual([]);

      const active = await store().updateUser(a.id, { status: 'active', password_hash: 'scrypt$x', role: 'member' });
      expect(active).toEqual({ ...stored, status: 'active', password_hash: 'scrypt$x', role: 'member' });
      expect(await store().getUser(a.id)).toEqual(active);
      const later = await store().updateUser(a.id, { sessions_valid_from: '2026-03-01T00:00:00.000Z' });
      expect(later).toEqual({ ...active, sessions_valid_from: '2026-03-01T00:00:00.000Z' });
      expect(await store().updateUser(randomUUID(), { role: 'admin' })).toBeNull();
    });

    it('keeps an e-mail to one user who is not removed; a removed one frees it', async () => {
      const email = `dup-${randomUUID()}@example.dk`;
      const first = user({ email });
      await store().createUser(first);
      await expect(store().createUser(user({ email: email.toUpperCase() }))).rejects.toThrow();
      await store().updateUser(first.id, { status: 'removed' });
      expect(await store().findUserByEmail(email)).toBeNull();
      const second = user({ email });
      await store().createUser(second);
      expect((await store().findUserByEmail(email))?.id).toBe(second.id);
      expect((await store().getUser(first.id))?.status).toBe('removed');
    });

    it('takes a TOTP step once, and never one at or before the last taken', async () => {
      const u = user();
      await store().createUser(u);
      expect(await store().takeTotpStep(u.id, 100)).toBe(true);
      expect(await store().takeTotpStep(u.id, 100)).toBe(false);
      expect(await store().takeTotpStep(u.id, 99)).toBe(false);
      expect(await store().takeTotpStep(u.id, 101)).toBe(true);
      expect((await store().getUser(u.id))?.totp_last_step).toBe(101);
      expect(await store().takeTotpStep(randomUUID(), 5)).toBe(false);
      // Two sign-ins with the same code at once: exactly one is let in.
      const raced = await Promise.all([store().takeTotpStep(u.id, 200), store().takeTotpStep(u.id, 200)]);
      expect(raced.filter(Boolean)).toHaveLength(1);
    });

    it('keeps recovery codes as a set: each used once, a new set voids the old, racing uses let one in', async () => {
      const u = user();
      await store().createUser(u);
      expect(await store().countRecoveryCodes(u.id)).toBe(0);
      expect(await store().useRecoveryCode(u.id, 'a'.repeat(64), '2026-11-26T10:00:00.000Z')).toBe(false);
      const first = ['1', '2', '3'].map((c) => c.repeat(64));
      await store().setRecoveryCodes(u.id, first, '2026-11-26T10:00:00.000Z');
      expect(await store().countRecoveryCodes(u.id)).toBe(3);
      expect(await store().useRecoveryCode(u.id, first[0], '2026-11-26T10:01:00.000Z')).toBe(true);
      expect(await store().useRecoveryCode(u.id, first[0], '2026-11-26T10:02:00.000Z')).toBe(false);
      expect(await store().countRecoveryCodes(u.id)).toBe(2);
      // Another user's code is not this user's.
      const other = user();
      await store().createUser(other);
      expect(await store().useRecoveryCode(other.id, first[1], '2026-11-26T10:03:00.000Z')).toBe(false);
      const raced = await Promise.all([
        store().useRecoveryCode(u.id, first[1], '2026-11-26T10:04:00.000Z'), store().useRecoveryCode(u.id, first[1], '2026-11-26T10:04:00.000Z'),
      ]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      const second = ['4', '5'].map((c) => c.repeat(64));
      await store().setRecoveryCodes(u.id, second, '2026-11-26T11:00:00.000Z');
      expect(await store().countRecoveryCodes(u.id)).toBe(2);
      expect(await store().useRecoveryCode(u.id, first[2], '2026-11-26T11:01:00.000Z')).toBe(false);
      expect(await store().useRecoveryCode(u.id, second[1], '2026-11-26T11:01:00.000Z')).toBe(true);
      expect(await store().countRecoveryCodes(u.id)).toBe(1);
    });

    it('uses an invitation once', async () => {
      const u = user();
      await store().createUser(u);
      const invitation = { token_hash: randomUUID(), user_id: u.id, org_id: u.org_id, created_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-08T00:00:00.000Z', used_at: null };
      await store().createInvitation(invitation);
      expect(await store().findInvitation(invitation.token_hash)).toEqual(invitation);
      expect(await store().findInvitation(randomUUID())).toBeNull();
      const raced = await Promise.all([
        store().useInvitation(invitation.token_hash, '2026-01-02T00:00:00.000Z'),
        store().useInvitation(invitation.token_hash, '2026-01-02T00:00:00.000Z'),
      ]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store().useInvitation(invitation.token_hash, '2026-01-03T00:00:00.000Z')).toBe(false);
      expect((await store().findInvitation(invitation.token_hash))?.used_at).toBe('2026-01-02T00:00:00.000Z');
      expect(await store().useInvitation(randomUUID(), '2026-01-03T00:00:00.000Z')).toBe(false);
    });

    it('finds sessions by token hash and revokes them once', async () => {
      const s = session();
      await store().createSession(s);
      expect(await store().findSession(s.token_hash)).toEqual(s);
      expect(await store().findSession(randomUUID())).toBeNull();
      expect(await store().revokeSession(s.token_hash, '2026-01-01T02:00:00.000Z')).toBe(true);
      expect(await store().revokeSession(s.token_hash, '2026-01-01T03:00:00.000Z')).toBe(true);
      expect((await store().findSession(s.token_hash))?.revoked_at).toBe('2026-01-01T02:00:00.000Z');
      expect(await store().revokeSession(randomUUID(), '2026-01-01T03:00:00.000Z')).toBe(false);
    });

    it('lists an organisation\'s audit entries newest first, paged by time', async () => {
      const orgId = randomUUID();
      const entries: AuditEntry[] = [1, 2, 3].map((n) => ({
        id: randomUUID(), org_id: orgId, at: `2026-01-0${n}T00:00:00.000Z`, actor_kind: n === 2 ? 'key' : 'user',
        actor_id: randomUUID(), action: n === 3 ? "user.invited '; --" : 'key.created', target: n === 1 ? null : randomUUID(),
      }));
      for (const e of entries) await store().appendAudit(e);
      await store().appendAudit({ ...entries[0], id: randomUUID(), org_id: randomUUID() });
      expect(await store().listAudit(orgId, { limit: 10 })).toEqual([entries[2], entries[1], entries[0]]);
      expect(await store().listAudit(orgId, { limit: 2 })).toEqual([entries[2], entries[1]]);
      expect(await store().listAudit(orgId, { limit: 10, before: entries[1].at })).toEqual([entries[0]]);
    });

    it('keeps users, sessions, invitations and the audit log for a restarted process', async () => {
      const u = user();
      await store().createUser(u);
      await store().takeTotpStep(u.id, 7);
      const s = session({ user_id: u.id, org_id: u.org_id });
      await store().createSession(s);
      await store().revokeSession(s.token_hash, '2026-01-01T05:00:00.000Z');
      const invitation = { token_hash: randomUUID(), user_id: u.id, org_id: u.org_id, created_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-08T00:00:00.000Z', used_at: null };
      await store().createInvitation(invitation);
      await store().useInvitation(invitation.token_hash, '2026-01-01T01:00:00.000Z');
      const entry: AuditEntry = { id: randomUUID(), org_id: u.org_id, at: '2026-01-01T00:00:00.000Z', actor_kind: 'user', actor_id: u.id, action: 'session.signed_in', target: null };
      await store().appendAudit(entry);
      const reopened = await harness().reopen();
      expect(await reopened.getUser(u.id)).toEqual({ ...u, totp_last_step: 7 });
      expect(await reopened.takeTotpStep(u.id, 7)).toBe(false);
      expect(await reopened.findSession(s.token_hash)).toEqual({ ...s, revoked_at: '2026-01-01T05:00:00.000Z' });
      expect((await reopened.findInvitation(invitation.token_hash))?.used_at).toBe('2026-01-01T01:00:00.000Z');
      expect(await reopened.listAudit(u.org_id, { limit: 5 })).toEqual([entry]);
    });
  });
}

function user(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: randomUUID(),
    org_id: randomUUID(),
    email: `person-${randomUUID()}@example.dk`,
    role: 'admin',
    status: 'invited',
    password_hash: null,
    totp_secret: 'JBSWY3DPEHPK3PXP',
    totp_last_step: 0,
    sessions_valid_from: '2026-01-01T00:00:00.000Z',
    created_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    token_hash: randomUUID(),
    user_id: randomUUID(),
    org_id: randomUUID(),
    mode: 'live',
    created_at: '2026-01-01T00:00:00.000Z',
    expires_at: '2026-01-01T12:00:00.000Z',
    revoked_at: null,
    ...overrides,
  };
}
