import type { DatabaseSync } from 'node:sqlite';
import type { SavedMapping, SavedMappingStore } from '../saved-mappings-port.ts';

/**
 * SavedMappingStore on the embedded database: one row per mapping, unique per (org, header key),
 * the record as JSON beside the searched columns. The table is made when missing (the embedded
 * database's way of migrating: an existing file gains it at the next start).
 */
export function createEmbeddedSavedMappingStore(db: DatabaseSync): SavedMappingStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS saved_mappings (
      id TEXT PRIMARY KEY, org_id TEXT NOT NULL, header_key TEXT NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL,
      UNIQUE (org_id, header_key)
    );
  `);
  const selectByKey = db.prepare('SELECT body FROM saved_mappings WHERE org_id = ? AND header_key = ?');
  const upsert = db.prepare(`INSERT INTO saved_mappings (id, org_id, header_key, created_at, body) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (org_id, header_key) DO UPDATE SET body = excluded.body`);
  const selectOrg = db.prepare('SELECT body FROM saved_mappings WHERE org_id = ? ORDER BY created_at, id');
  const remove = db.prepare('DELETE FROM saved_mappings WHERE org_id = ? AND id = ?');
  const parse = (row: unknown) => JSON.parse((row as { body: string }).body) as SavedMapping;

  return {
    async saveMapping(mapping) {
      const existing = selectByKey.get(mapping.org_id, mapping.header_key);
      const stored = existing ? { ...mapping, id: parse(existing).id, created_at: parse(existing).created_at } : mapping;
      upsert.run(stored.id, stored.org_id, stored.header_key, stored.created_at, JSON.stringify(stored));
      return stored;
    },
    async listMappings(orgId) {
      return selectOrg.all(orgId).map(parse);
    },
    async removeMapping(orgId, id) {
      return Number(remove.run(orgId, id).changes) > 0;
    },
  };
}
