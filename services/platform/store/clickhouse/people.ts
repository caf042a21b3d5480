import { randomBytes } from 'node:crypto';
import type { AuditEntry, InvitationRecord, PeopleStore, SessionRecord, UserRecord } from '../people-port.ts';
import { definedOf } from '../embedded/people.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * PeopleStore on ClickHouse (infra/clickhouse/migrations/020_portal_people.sql). Users and
 * sessions: the whole row again with revision + 1, read with FINAL. E-mail uniqueness is checked
 * before writing (an admin invites one person at a time). The single-use rules cannot be a
 * conditional UPDATE here, so they are claims (`claim`): the first insert of a claim name is
 * stored and the next ones are deduplicated away, and each writer reads back whose mark won.
 */
export function createClickHousePeopleStore(conn: ClickHouseConnection): PeopleStore {
  const users = conn.table('portal_users');
  const invitations = conn.table('portal_invitations');
  const sessions = conn.table('portal_sessions');
  const claims = conn.table('portal_claims');
  const audit = conn.table('portal_audit');
  const recoveryCodes = conn.table('portal_recovery_codes');

  /** The user's current set of recovery codes: the newest set made (a new set voids the old). */
  async function currentRecoverySet(userId: string): Promise<{ set_id: string; hashes: string[] } | null> {
    const [row] = await conn.rows<{ set_id: string }>(
      sql`SELECT set_id FROM ${recoveryCodes} WHERE user_id = ${userId} ORDER BY created_at DESC, set_id DESC LIMIT 1`,
    );
    if (!row) return null;
    const codes = await conn.rows<{ code_hash: string }>(sql`SELECT code_hash FROM ${recoveryCodes} WHERE user_id = ${userId} AND set_id = ${row.set_id}`);
    return { set_id: row.set_id, hashes: codes.map((c) => c.code_hash) };
  }

  async function readUser(id: string): Promise<{ revision: number; user: UserRecord } | null> {
    const [row] = await conn.rows<UserRow>(sql`SELECT * FROM ${users} FINAL WHERE id = ${id}`);
    return row ? { revision: Number(row.revision), user: toUser(row) } : null;
  }

  async function currentStep(userId: string, stored: number): Promise<number> {
    const [row] = await conn.rows<{ step: string | null }>(
      sql`SELECT max(toUInt64OrZero(splitByChar('/', claim)[3])) AS step FROM ${claims} WHERE startsWith(claim, ${`totp/${userId}/`})`,
    );
    return Math.max(stored, Number(row?.step ?? 0));
  }

  /** The user with the last TOTP step taken, which lives in the claims, not in the row. */
  async function withClaimedStep(user: UserRecord): Promise<UserRecord> {
    return { ...user, totp_last_step: await currentStep(user.id, user.totp_last_step) };
  }

  /** True when this call's insert is the stored row of `name` (it was the first). */
  async function claim(name: string, at: string): Promise<boolean> {
    const mark = randomBytes(9).toString('base64url');
    await conn.client.insert({
      table: claims.name, format: 'JSONEachRow', values: [{ claim: name, mark, at }],
      clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: name },
    });
    const rows = await conn.rows<{ mark: string }>(sql`SELECT mark FROM ${claims} WHERE claim = ${name}`);
    return rows.length === 1 && rows[0].mark === mark;
  }

  async function claimed(name: string): Promise<string | null> {
    const [row] = await conn.rows<{ at: string }>(sql`SELECT at FROM ${claims} WHERE claim = ${name} LIMIT 1`);
    return row?.at ?? null;
  }

  const writeUser = (u: UserRecord, revision: number) => conn.insert('portal_users', [{ ...u, revision }]);
  const writeSession = (s: SessionRecord, revision: number) => conn.insert('portal_sessions', [{ ...s, revision }]);

  return {
    async createUser(u) {
      const email = u.email.toLowerCase();
      if (await this.findUserByEmail(email)) throw new Error('a user with this e-mail exists');
      if (await readUser(u.id)) throw new Error(`user ${u.id} already exists`);
      await writeUser({ ...u, email }, 1);
    },
    async getUser(id) {
      const found = await readUser(id);
      return found ? withClaimedStep(found.user) : null;
    },
    async findUserByEmail(email) {
      const [row] = await conn.rows<UserRow>(
        sql`SELECT * FROM ${users} FINAL WHERE email = ${email.toLowerCase()} AND status != 'removed' LIMIT 1`,
      );
      return row ? withClaimedStep(toUser(row)) : null;
    },
    async listUsers(orgId) {
      const rows = await conn.rows<UserRow>(sql`SELECT * FROM ${users} FINAL WHERE org_id = ${orgId} ORDER BY created_at, id`);
      return Promise.all(rows.map((row) => withClaimedStep(toUser(row))));
    },
    async updateUser(id, patch) {
      const current = await readUser(id);
      if (!current) return null;
      const next: UserRecord = { ...current.user, ...definedOf(patch) };
      await writeUser(next, current.revision + 1);
      return withClaimedStep(next);
    },
    async takeTotpStep(userId, step) {
      const current = await readUser(userId);
      if (!current || step <= (await currentStep(userId, current.user.totp_last_step))) return false;
      return claim(`totp/${userId}/${step}`, new Date().toISOString());
    },
    async setRecoveryCodes(userId, codeHashes, at) {
      // One insert of the whole set (atomic in one block); reads take the newest set only.
      const setId = `${at}/${randomBytes(6).toString('hex')}`;
      await conn.insert('portal_recovery_codes', codeHashes.map((code_hash) => ({ user_id: userId, set_id: setId, code_hash, created_at: at })));
    },
    async useRecoveryCode(userId, codeHash, at) {
      const set = await currentRecoverySet(userId);
      if (!set || !set.hashes.includes(codeHash)) return false;
      return claim(`recovery/${userId}/${set.set_id}/${codeHash}`, at);
    },
    async countRecoveryCodes(userId) {
      const set = await currentRecoverySet(userId);
      if (!set) return 0;
      const [row] = await conn.rows<{ n: string }>(
        sql`SELECT count(DISTINCT claim) AS n FROM ${claims} WHERE startsWith(claim, ${`recovery/${userId}/${set.set_id}/`})`,
      );
      return set.hashes.length - Number(row?.n ?? 0);
    },
    async createInvitation(i) {
      await conn.insert('portal_invitations', [{
        token_hash: i.token_hash, user_id: i.user_id, org_id: i.org_id, created_at: i.created_at, expires_at: i.expires_at,
      }]);
      if (i.used_at !== null) await claim(`invitation/${i.token_hash}`, i.used_at);
    },
    async findInvitation(tokenHash) {
      const [row] = await conn.rows<Omit<InvitationRecord, 'used_at'>>(
        sql`SELECT token_hash, user_id, org_id, created_at, expires_at FROM ${invitations} FINAL WHERE token_hash = ${tokenHash}`,
      );
      return row ? { ...row, used_at: await claimed(`invitation/${tokenHash}`) } : null;
    },
    async useInvitation(tokenHash, at) {
      if (!(await this.findInvitation(tokenHash))) return false;
      return claim(`invitation/${tokenHash}`, at);
    },
    async createSession(s) {
      await writeSession(s, 1);
    },
    async findSession(tokenHash) {
      const [row] = await conn.rows<SessionRow>(sql`SELECT * FROM ${sessions} FINAL WHERE token_hash = ${tokenHash}`);
      return row ? toSession(row) : null;
    },
    async revokeSession(tokenHash, at) {
      const [row] = await conn.rows<SessionRow>(sql`SELECT * FROM ${sessions} FINAL WHERE token_hash = ${tokenHash}`);
      if (!row) return false;
      if (row.revoked_at === null) await writeSession({ ...toSession(row), revoked_at: at }, Number(row.revision) + 1);
      return true;
    },
    async appendAudit(e) {
      await conn.insert('portal_audit', [e]);
    },
    async listAudit(orgId, { limit, before }) {
      const rows = await conn.rows<AuditEntry>(sql`SELECT id, org_id, at, actor_kind, actor_id, action, target FROM ${audit}
        WHERE org_id = ${orgId} AND at < ${before ?? '\uffff'} ORDER BY at DESC, id DESC LIMIT ${limit}`);
      return rows.map((r) => ({ ...r, target: r.target ?? null }));
    },
  };
}

interface UserRow extends Omit<UserRecord, 'totp_last_step'> {
  revision: string;
  totp_last_step: string;
}

interface SessionRow extends SessionRecord {
  revision: string;
}

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    org_id: row.org_id,
    email: row.email,
    role: row.role,
    status: row.status,
    password_hash: row.password_hash ?? null,
    totp_secret: row.totp_secret,
    totp_last_step: Number(row.totp_last_step),
    sessions_valid_from: row.sessions_valid_from,
    created_at: row.created_at,
  };
}

function toSession(row: SessionRow): SessionRecord {
  return {
    token_hash: row.token_hash,
    user_id: row.user_id,
    org_id: row.org_id,
    mode: row.mode,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at ?? null,
  };
}
