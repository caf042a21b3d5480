import type { DatabaseSync } from 'node:sqlite';
import type { AuditEntry, InvitationRecord, PeopleStore, SessionRecord, UserRecord } from '../people-port.ts';

/**
 * PeopleStore on the embedded database. Each call is one statement, so a write is on disk
 * (synchronous=FULL) when its promise resolves; the single-use rules (a TOTP step, an invitation)
 * are one conditional UPDATE each, so two racing callers cannot both win.
 */
export function createEmbeddedPeopleStore(db: DatabaseSync): PeopleStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS portal_users (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL,
      email TEXT NOT NULL,
      role TEXT NOT NULL,
      status TEXT NOT NULL,
      password_hash TEXT,
      totp_secret TEXT NOT NULL,
      totp_last_step INTEGER NOT NULL,
      sessions_valid_from TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS portal_users_by_org ON portal_users (org_id, created_at);
    CREATE UNIQUE INDEX IF NOT EXISTS portal_users_email ON portal_users (email) WHERE status <> 'removed';
    CREATE TABLE IF NOT EXISTS portal_invitations (
      token_hash TEXT PRIMARY KEY,
      user_id TEXT NOT NULL,
      org_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      used_at TEXT
    );
    CREATE TABLE IF NOT EXISTS portal_sessions (
      token_hash TEXT PRIMARY KEY,
      user_id TEXT NOT NULL,
      org_id TEXT NOT NULL,
      mode TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      revoked_at TEXT
    );
    CREATE TABLE IF NOT EXISTS portal_audit (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL,
      at TEXT NOT NULL,
      actor_kind TEXT NOT NULL,
      actor_id TEXT NOT NULL,
      action TEXT NOT NULL,
      target TEXT
    );
    CREATE INDEX IF NOT EXISTS portal_audit_by_org ON portal_audit (org_id, at);
    CREATE TABLE IF NOT EXISTS portal_recovery_codes (
      user_id TEXT NOT NULL,
      code_hash TEXT NOT NULL,
      created_at TEXT NOT NULL,
      used_at TEXT,
      PRIMARY KEY (user_id, code_hash)
    );
  `);
  const deleteRecoveryCodes = db.prepare('DELETE FROM portal_recovery_codes WHERE user_id = ?');
  const insertRecoveryCode = db.prepare('INSERT OR IGNORE INTO portal_recovery_codes (user_id, code_hash, created_at, used_at) VALUES (?, ?, ?, NULL)');
  const useRecoveryCode = db.prepare('UPDATE portal_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL');
  const countRecoveryCodes = db.prepare('SELECT count(*) AS n FROM portal_recovery_codes WHERE user_id = ? AND used_at IS NULL');

  const insertUser = db.prepare(`INSERT INTO portal_users (id, org_id, email, role, status, password_hash, totp_secret,
    totp_last_step, sessions_valid_from, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const selectUser = db.prepare('SELECT * FROM portal_users WHERE id = ?');
  const selectUserByEmail = db.prepare("SELECT * FROM portal_users WHERE email = ? AND status <> 'removed'");
  const selectUsers = db.prepare('SELECT * FROM portal_users WHERE org_id = ? ORDER BY created_at, id');
  const updateUser = db.prepare(`UPDATE portal_users SET role = ?, status = ?, password_hash = ?, totp_last_step = ?,
    sessions_valid_from = ? WHERE id = ?`);
  const takeStep = db.prepare('UPDATE portal_users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?');
  const insertInvitation = db.prepare(`INSERT INTO portal_invitations (token_hash, user_id, org_id, created_at, expires_at, used_at)
    VALUES (?, ?, ?, ?, ?, ?)`);
  const selectInvitation = db.prepare('SELECT * FROM portal_invitations WHERE token_hash = ?');
  const useInvitation = db.prepare('UPDATE portal_invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL');
  const insertSession = db.prepare(`INSERT INTO portal_sessions (token_hash, user_id, org_id, mode, created_at, expires_at, revoked_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const selectSession = db.prepare('SELECT * FROM portal_sessions WHERE token_hash = ?');
  const revokeSession = db.prepare('UPDATE portal_sessions SET revoked_at = COALESCE(revoked_at, ?) WHERE token_hash = ?');
  const insertAudit = db.prepare(`INSERT INTO portal_audit (id, org_id, at, actor_kind, actor_id, action, target)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const selectAudit = db.prepare('SELECT * FROM portal_audit WHERE org_id = ? AND at < ? ORDER BY at DESC, id DESC LIMIT ?');

  const readUser = (id: string): UserRecord | null => {
    const row = selectUser.get(id);
    return row ? toUser(row) : null;
  };

  return {
    async createUser(u) {
      insertUser.run(u.id, u.org_id, u.email.toLowerCase(), u.role, u.status, u.password_hash, u.totp_secret,
        u.totp_last_step, u.sessions_valid_from, u.created_at);
    },
    async getUser(id) {
      return readUser(id);
    },
    async findUserByEmail(email) {
      const row = selectUserByEmail.get(email.toLowerCase());
      return row ? toUser(row) : null;
    },
    async listUsers(orgId) {
      return selectUsers.all(orgId).map(toUser);
    },
    async updateUser(id, patch) {
      const current = readUser(id);
      if (!current) return null;
      const next: UserRecord = { ...current, ...definedOf(patch) };
      updateUser.run(next.role, next.status, next.password_hash, next.totp_last_step, next.sessions_valid_from, id);
      return next;
    },
    async takeTotpStep(userId, step) {
      return Number(takeStep.run(step, userId, step).changes) > 0;
    },
    async setRecoveryCodes(userId, codeHashes, at) {
      // One transaction: the old set is gone exactly when the new one is there.
      db.exec('BEGIN IMMEDIATE');
      try {
        deleteRecoveryCodes.run(userId);
        for (const hash of codeHashes) insertRecoveryCode.run(userId, hash, at);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    async useRecoveryCode(userId, codeHash, at) {
      return Number(useRecoveryCode.run(at, userId, codeHash).changes) > 0;
    },
    async countRecoveryCodes(userId) {
      return Number((countRecoveryCodes.get(userId) as { n: number }).n);
    },
    async createInvitation(i) {
      insertInvitation.run(i.token_hash, i.user_id, i.org_id, i.created_at, i.expires_at, i.used_at);
    },
    async findInvitation(tokenHash) {
      const row = selectInvitation.get(tokenHash);
      return row ? toInvitation(row) : null;
    },
    async useInvitation(tokenHash, at) {
      return Number(useInvitation.run(at, tokenHash).changes) > 0;
    },
    async createSession(s) {
      insertSession.run(s.token_hash, s.user_id, s.org_id, s.mode, s.created_at, s.expires_at, s.revoked_at);
    },
    async findSession(tokenHash) {
      const row = selectSession.get(tokenHash);
      return row ? toSession(row) : null;
    },
    async revokeSession(tokenHash, at) {
      return Number(revokeSession.run(at, tokenHash).changes) > 0;
    },
    async appendAudit(e) {
      insertAudit.run(e.id, e.org_id, e.at, e.actor_kind, e.actor_id, e.action, e.target);
    },
    async listAudit(orgId, { limit, before }) {
      // '\uffff' sorts after every ISO timestamp: no `before` means from the newest.
      return selectAudit.all(orgId, before ?? '\uffff', limit).map(toAudit);
    },
  };
}

/** The patch's fields that are set: an absent field keeps the stored value. */
export function definedOf<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

type Row = Record<string, unknown>;
const text = (v: unknown): string | null => (v == null ? null : String(v));

function toUser(row: Row): UserRecord {
  return {
    id: String(row.id),
    org_id: String(row.org_id),
    email: String(row.email),
    role: row.role as UserRecord['role'],
    status: row.status as UserRecord['status'],
    password_hash: text(row.password_hash),
    totp_secret: String(row.totp_secret),
    totp_last_step: Number(row.totp_last_step),
    sessions_valid_from: String(row.sessions_valid_from),
    created_at: String(row.created_at),
  };
}

function toInvitation(row: Row): InvitationRecord {
  return {
    token_hash: String(row.token_hash),
    user_id: String(row.user_id),
    org_id: String(row.org_id),
    created_at: String(row.created_at),
    expires_at: String(row.expires_at),
    used_at: text(row.used_at),
  };
}

function toSession(row: Row): SessionRecord {
  return {
    token_hash: String(row.token_hash),
    user_id: String(row.user_id),
    org_id: String(row.org_id),
    mode: row.mode as SessionRecord['mode'],
    created_at: String(row.created_at),
    expires_at: String(row.expires_at),
    revoked_at: text(row.revoked_at),
  };
}

function toAudit(row: Row): AuditEntry {
  return {
    id: String(row.id),
    org_id: String(row.org_id),
    at: String(row.at),
    actor_kind: row.actor_kind as AuditEntry['actor_kind'],
    actor_id: String(row.actor_id),
    action: String(row.action),
    target: text(row.target),
  };
}
