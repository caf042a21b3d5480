import { patchedOrganisation, type AccountStore, type ApiKeyRecord, type Organisation } from '../accounts-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * AccountStore on ClickHouse (tables in infra/clickhouse/migrations/001_accounts.sql). A change
 * writes the whole row again with revision + 1; reads use FINAL. The filters used inside FINAL
 * (id, key_hash, org_id) never change between revisions of a row, so they cannot pick an old one.
 *
 * ClickHouse has no unique constraints: creating checks first (an existing organisation id, an
 * unknown organisation for a key, a key hash already stored). Organisations and keys are written
 * by one admin at a time, so the gap between check and write does not matter in practice.
 */
export function createClickHouseAccountStore(conn: ClickHouseConnection): AccountStore {
  const organisations = conn.table('organisations');
  const apiKeys = conn.table('api_keys');

  async function readOrg(id: string): Promise<{ revision: number; org: Organisation } | null> {
    const [row] = await conn.rows<OrgRow>(sql`SELECT * FROM ${organisations} FINAL WHERE id = ${id}`);
    return row ? { revision: Number(row.revision), org: toOrganisation(row) } : null;
  }

  async function readKey(id: string): Promise<{ revision: number; key: ApiKeyRecord } | null> {
    const [row] = await conn.rows<KeyRow>(sql`SELECT * FROM ${apiKeys} FINAL WHERE id = ${id}`);
    return row ? { revision: Number(row.revision), key: toKey(row) } : null;
  }

  const writeOrg = (org: Organisation, revision: number) =>
    conn.insert('organisations', [{
      ...org, revision, api_agreement: Number(org.api_agreement), suspended: Number(org.suspended),
    }]);
  const writeKey = (key: ApiKeyRecord, revision: number) =>
    conn.insert('api_keys', [{ ...key, label: key.label ?? '', created_by: key.created_by ?? null, revision }]);

  return {
    async createOrganisation(org) {
      if (await readOrg(org.id)) throw new Error(`organisation ${org.id} already exists`);
      await writeOrg(org, 1);
    },

    async getOrganisation(id) {
      return (await readOrg(id))?.org ?? null;
    },

    async updateOrganisation(id, patch) {
      const current = await readOrg(id);
      if (!current) return null;
      const next = patchedOrganisation(current.org, patch);
      await writeOrg(next, current.revision + 1);
      return next;
    },

    async listOrganisations() {
      const rows = await conn.rows<OrgRow>(sql`SELECT * FROM ${organisations} FINAL ORDER BY created_at, id`);
      return rows.map(toOrganisation);
    },

    async createKey(key) {
      if (!(await readOrg(key.org_id))) throw new Error(`organisation ${key.org_id} does not exist`);
      const [taken] = await conn.rows<{ n: string }>(
        sql`SELECT count() AS n FROM ${apiKeys} WHERE key_hash = ${key.key_hash} OR id = ${key.id}`,
      );
      if (Number(taken.n) > 0) throw new Error('an API key with this id or hash already exists');
      await writeKey(key, 1);
    },

    async findKeyByHash(keyHash) {
      const [row] = await conn.rows<KeyRow>(sql`SELECT * FROM ${apiKeys} FINAL WHERE key_hash = ${keyHash}`);
      return row ? toKey(row) : null;
    },

    async listKeys(orgId) {
      const rows = await conn.rows<KeyRow>(
        sql`SELECT * FROM ${apiKeys} FINAL WHERE org_id = ${orgId} ORDER BY created_at, id`,
      );
      return rows.map(toKey);
    },

    async revokeKey(id, at) {
      const current = await readKey(id);
      if (!current) return false;
      if (current.key.revoked_at === null) {
        await writeKey({ ...current.key, revoked_at: at }, current.revision + 1);
      }
      return true;
    },
  };
}

interface OrgRow {
  id: string;
  revision: string;
  name: string;
  stop_level: number;
  plan: Organisation['plan'];
  api_agreement: number;
  suspended: number;
  retention_days: number;
  addons: string[];
  created_at: string;
}

interface KeyRow extends ApiKeyRecord {
  revision: string;
}

function toOrganisation(row: OrgRow): Organisation {
  return {
    id: row.id,
    name: row.name,
    stop_level: Number(row.stop_level),
    plan: row.plan,
    api_agreement: Number(row.api_agreement) === 1,
    suspended: Number(row.suspended) === 1,
    retention_days: Number(row.retention_days),
    addons: row.addons as Organisation['addons'],
    created_at: row.created_at,
  };
}

function toKey(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    org_id: row.org_id,
    mode: row.mode,
    key_hash: row.key_hash,
    prefix: row.prefix,
    created_at: row.created_at,
    revoked_at: row.revoked_at ?? null,
    label: row.label ?? '',
    created_by: row.created_by ?? null,
  };
}
