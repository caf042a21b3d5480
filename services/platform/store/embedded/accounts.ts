import type { DatabaseSync } from 'node:sqlite';
import { patchedOrganisation, type AccountStore, type ApiKeyRecord, type Organisation } from '../accounts-port.ts';

/**
 * AccountStore on the embedded database. Each call is one statement (or one transaction), so a
 * write is on disk (synchronous=FULL) when its promise resolves.
 */
export function createEmbeddedAccountStore(db: DatabaseSync): AccountStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS organisations (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      stop_level INTEGER NOT NULL,
      plan TEXT NOT NULL,
      api_agreement INTEGER NOT NULL,
      suspended INTEGER NOT NULL,
      retention_days INTEGER NOT NULL,
      addons TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS api_keys (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL REFERENCES organisations(id),
      mode TEXT NOT NULL,
      key_hash TEXT NOT NULL UNIQUE,
      prefix TEXT NOT NULL,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    );
    CREATE INDEX IF NOT EXISTS api_keys_by_org ON api_keys (org_id, created_at);
  `);
  // Columns added after the table first shipped (docs/people.md "API keys"): existing files gain them.
  const columns = new Set(db.prepare('PRAGMA table_info(api_keys)').all().map((c) => String(c.name)));
  if (!columns.has('label')) db.exec("ALTER TABLE api_keys ADD COLUMN label TEXT NOT NULL DEFAULT ''");
  if (!columns.has('created_by')) db.exec('ALTER TABLE api_keys ADD COLUMN created_by TEXT');

  const insertOrg = db.prepare(`INSERT INTO organisations
    (id, name, stop_level, plan, api_agreement, suspended, retention_days, addons, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const selectOrg = db.prepare('SELECT * FROM organisations WHERE id = ?');
  const selectOrgs = db.prepare('SELECT * FROM organisations ORDER BY created_at, id');
  const updateOrg = db.prepare(`UPDATE organisations SET name = ?, stop_level = ?, plan = ?,
    api_agreement = ?, suspended = ?, retention_days = ?, addons = ? WHERE id = ?`);
  const insertKey = db.prepare(`INSERT INTO api_keys
    (id, org_id, mode, key_hash, prefix, created_at, revoked_at, label, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const selectKeyByHash = db.prepare('SELECT * FROM api_keys WHERE key_hash = ?');
  const selectKeys = db.prepare('SELECT * FROM api_keys WHERE org_id = ? ORDER BY created_at, id');
  const revoke = db.prepare(
    'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?',
  );

  function readOrg(id: string): Organisation | null {
    const row = selectOrg.get(id);
    return row ? toOrganisation(row) : null;
  }

  return {
    async createOrganisation(org) {
      insertOrg.run(
        org.id, org.name, org.stop_level, org.plan, Number(org.api_agreement),
        Number(org.suspended), org.retention_days, JSON.stringify(org.addons), org.created_at,
      );
    },
    async getOrganisation(id) {
      return readOrg(id);
    },
    async updateOrganisation(id, patch) {
      const current = readOrg(id);
      if (!current) return null;
      const next = patchedOrganisation(current, patch);
      updateOrg.run(
        next.name, next.stop_level, next.plan, Number(next.api_agreement), Number(next.suspended),
        next.retention_days, JSON.stringify(next.addons), id,
      );
      return next;
    },
    async listOrganisations() {
      return selectOrgs.all().map(toOrganisation);
    },
    async createKey(key) {
      insertKey.run(
        key.id, key.org_id, key.mode, key.key_hash, key.prefix, key.created_at, key.revoked_at,
        key.label ?? '', key.created_by ?? null,
      );
    },
    async findKeyByHash(keyHash) {
      const row = selectKeyByHash.get(keyHash);
      return row ? toKey(row) : null;
    },
    async listKeys(orgId) {
      return selectKeys.all(orgId).map(toKey);
    },
    async revokeKey(id, at) {
      return Number(revoke.run(at, id).changes) > 0;
    },
  };
}

type Row = Record<string, unknown>;

function toOrganisation(row: Row): Organisation {
  return {
    id: String(row.id),
    name: String(row.name),
    stop_level: Number(row.stop_level),
    plan: row.plan as Organisation['plan'],
    api_agreement: row.api_agreement === 1,
    suspended: row.suspended === 1,
    retention_days: Number(row.retention_days),
    addons: JSON.parse(String(row.addons)) as Organisation['addons'],
    created_at: String(row.created_at),
  };
}

function toKey(row: Row): ApiKeyRecord {
  return {
    id: String(row.id),
    org_id: String(row.org_id),
    mode: row.mode as ApiKeyRecord['mode'],
    key_hash: String(row.key_hash),
    prefix: String(row.prefix),
    created_at: String(row.created_at),
    revoked_at: row.revoked_at == null ? null : String(row.revoked_at),
    label: String(row.label ?? ''),
    created_by: row.created_by == null ? null : String(row.created_by),
  };
}
