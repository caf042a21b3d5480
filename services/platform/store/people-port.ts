/**
 * The people of an organisation who use the portal, their invitations, sessions and the audit log
 * (docs/people.md). Promises: writes are durable when the returned promise resolves; secrets are
 * stored only as hashes (passwords by scrypt, invitation and session tokens by SHA-256); an e-mail
 * address belongs to at most one user who is not removed (compared in lower case); the audit log
 * is append-only and lists an organisation's entries newest first.
 */
export type Role = 'admin' | 'member';

export interface UserRecord {
  id: string;
  org_id: string;
  /** Lower case; the sign-in name. */
  email: string;
  role: Role;
  /** invited: the link was sent, no password yet; removed: can no longer sign in (kept for the audit log). */
  status: 'invited' | 'active' | 'removed';
  /** `scrypt$…` (services/api/people/password.ts), null until the invitation is accepted. */
  password_hash: string | null;
  /**
   * The TOTP secret made with the invitation, sealed with the person's data key
   * (services/api/people/totp-seal.ts: `sealed1.…`); a secret stored before sealing is the Base32 text.
   */
  totp_secret: string;
  /** The last TOTP step accepted (a code is never accepted twice); 0: none yet. */
  totp_last_step: number;
  /** Sessions created before this instant are void ("sign out everywhere", removal, role change). */
  sessions_valid_from: string;
  created_at: string;
}

export interface InvitationRecord {
  /** SHA-256 hex of the token in the link. */
  token_hash: string;
  user_id: string;
  org_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SessionRecord {
  /** SHA-256 hex of the cookie's token. */
  token_hash: string;
  user_id: string;
  org_id: string;
  /** Which jobs the session works on: live, or the organisation's test jobs. */
  mode: 'live' | 'test';
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface AuditEntry {
  id: string;
  org_id: string;
  at: string;
  actor_kind: 'user' | 'key';
  /** A user id or an API key id: never a name, e-mail or key text. */
  actor_id: string;
  /** What was done, e.g. `user.invited`, `key.revoked`, `POST /v2/check-jobs/:id/start`. */
  action: string;
  /** The id acted on (a user, key or job), when there is one. */
  target: string | null;
}

export type UserPatch = Partial<Pick<UserRecord, 'role' | 'status' | 'password_hash' | 'totp_last_step' | 'sessions_valid_from'>>;

export interface PeopleStore {
  /** Rejects when a user who is not removed has the same e-mail. */
  createUser(user: UserRecord): Promise<void>;
  getUser(id: string): Promise<UserRecord | null>;
  /** The user with this e-mail who is not removed. */
  findUserByEmail(email: string): Promise<UserRecord | null>;
  /** Oldest first, removed users included. */
  listUsers(orgId: string): Promise<UserRecord[]>;
  updateUser(id: string, patch: UserPatch): Promise<UserRecord | null>;
  /**
   * Takes a TOTP step for the user only when it is later than the last one taken; false when it
   * is not (the code was used already). Two sign-ins racing with the same code: one wins.
   */
  takeTotpStep(userId: string, step: number): Promise<boolean>;
  /**
   * Recovery codes (docs/people.md "Recovery codes"), kept as SHA-256 hashes only. A new set
   * replaces the old one at once (the old codes no longer work).
   */
  setRecoveryCodes(userId: string, codeHashes: readonly string[], at: string): Promise<void>;
  /** Uses a code of the current set: true once; false for an unknown, replaced or used code. Two racing uses: one wins. */
  useRecoveryCode(userId: string, codeHash: string, at: string): Promise<boolean>;
  /** Codes of the current set not used yet (0: none made). */
  countRecoveryCodes(userId: string): Promise<number>;

  createInvitation(invitation: InvitationRecord): Promise<void>;
  findInvitation(tokenHash: string): Promise<InvitationRecord | null>;
  /** Marks it used; false when it was used already. */
  useInvitation(tokenHash: string, at: string): Promise<boolean>;

  createSession(session: SessionRecord): Promise<void>;
  findSession(tokenHash: string): Promise<SessionRecord | null>;
  /** Revoking twice keeps the first time; false when there is no such session. */
  revokeSession(tokenHash: string, at: string): Promise<boolean>;

  appendAudit(entry: AuditEntry): Promise<void>;
  /** Newest first; `before`: only entries strictly older than this instant (paging). */
  listAudit(orgId: string, options: { limit: number; before?: string }): Promise<AuditEntry[]>;
}
