import type { SavedMapping, SavedMappingStore } from '../saved-mappings-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * SavedMappingStore on ClickHouse (infra/clickhouse/migrations/027_saved_column_mappings.sql):
 * one row per (org, header key), written again with revision + 1 on a change or a removal, read
 * with FINAL, so the last write of a header row is the one read. `removed` and `id` change between
 * revisions (a header row saved again after a removal gets a new id), so they are filtered outside
 * the FINAL subquery (docs/platform-clickhouse-registry.md "Tables and migrations").
 */
export function createClickHouseSavedMappingStore(conn: ClickHouseConnection): SavedMappingStore {
  const table = conn.table('saved_column_mappings');

  async function current(orgId: string, where: { header_key: string } | { id: string }) {
    const [row] = 'header_key' in where
      ? await conn.rows<{ revision: string; removed: number; body: string }>(sql`SELECT revision, removed, body FROM ${table} FINAL
          WHERE org_id = ${orgId} AND header_key = ${where.header_key}`)
      : await conn.rows<{ revision: string; removed: number; body: string }>(sql`SELECT revision, removed, body
          FROM (SELECT id, revision, removed, body FROM ${table} FINAL WHERE org_id = ${orgId}) WHERE id = ${where.id} AND removed = 0`);
    return row ? { revision: Number(row.revision), removed: Number(row.removed) === 1, record: JSON.parse(row.body) as SavedMapping } : null;
  }

  async function write(record: SavedMapping, revision: number, removed: boolean): Promise<void> {
    await conn.insert('saved_column_mappings', [{
      org_id: record.org_id, header_key: record.header_key, id: record.id, revision, removed: removed ? 1 : 0, created_at: record.created_at, body: JSON.stringify(record),
    }]);
  }

  return {
    async saveMapping(mapping) {
      const existing = await current(mapping.org_id, { header_key: mapping.header_key });
      const stored = existing && !existing.removed ? { ...mapping, id: existing.record.id, created_at: existing.record.created_at } : mapping;
      await write(stored, (existing?.revision ?? 0) + 1, false);
      return stored;
    },
    async listMappings(orgId) {
      const rows = await conn.rows<{ body: string }>(sql`SELECT body
        FROM (SELECT id, removed, created_at, body FROM ${table} FINAL WHERE org_id = ${orgId}) WHERE removed = 0 ORDER BY created_at, id`);
      return rows.map((row) => JSON.parse(row.body) as SavedMapping);
    },
    async removeMapping(orgId, id) {
      const existing = await current(orgId, { id });
      if (!existing) return false;
      await write(existing.record, existing.revision + 1, true);
      return true;
    },
  };
}
