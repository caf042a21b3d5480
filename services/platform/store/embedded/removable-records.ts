import type { DatabaseSync } from 'node:sqlite';
import type { RemovableRecord, RemovableRecords } from '../removable-records.ts';

/**
 * Removable records with a status (../removable-records.ts) on the embedded database: one table
 * of records (the searched columns beside the whole record as JSON) and one of statuses. Each
 * call is one statement, durable when its promise resolves.
 */
export function embeddedRemovableRecords<T extends RemovableRecord, S>(
  db: DatabaseSync,
  tables: { records: string; statuses: string; statusKey: string },
): RemovableRecords<T, S> {
  const { records, statuses, statusKey } = tables;
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${records} (
      id TEXT PRIMARY KEY, org_id TEXT NOT NULL, removed INTEGER NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${statuses} (${statusKey} TEXT PRIMARY KEY, body TEXT NOT NULL);
  `);
  const insert = db.prepare(`INSERT INTO ${records} (id, org_id, removed, created_at, body) VALUES (?, ?, ?, ?, ?)`);
  const selectOne = db.prepare(`SELECT body FROM ${records} WHERE id = ?`);
  const selectAll = db.prepare(`SELECT body FROM ${records} WHERE removed = 0 ORDER BY created_at, id`);
  const selectOrg = db.prepare(`SELECT body FROM ${records} WHERE removed = 0 AND org_id = ? ORDER BY created_at, id`);
  const update = db.prepare(`UPDATE ${records} SET removed = ?, body = ? WHERE id = ?`);
  const upsertStatus = db.prepare(`INSERT INTO ${statuses} (${statusKey}, body) VALUES (?, ?)
    ON CONFLICT (${statusKey}) DO UPDATE SET body = excluded.body`);
  const selectStatus = db.prepare(`SELECT body FROM ${statuses} WHERE ${statusKey} = ?`);
  const parse = <V>(row: unknown): V => JSON.parse((row as { body: string }).body) as V;

  return {
    async create(record) {
      insert.run(record.id, record.org_id, record.removed_at ? 1 : 0, record.created_at, JSON.stringify(record));
    },
    async get(id) {
      const row = selectOne.get(id);
      return row ? parse<T>(row) : null;
    },
    async list(orgId) {
      return (orgId === undefined ? selectAll.all() : selectOrg.all(orgId)).map((row) => parse<T>(row));
    },
    async remove(id, at) {
      const row = selectOne.get(id);
      if (!row) return false;
      const record = parse<T>(row);
      update.run(1, JSON.stringify({ ...record, removed_at: record.removed_at ?? at }), id);
      return true;
    },
    async recordStatus(id, status) {
      upsertStatus.run(id, JSON.stringify(status));
    },
    async getStatus(id) {
      const row = selectStatus.get(id);
      return row ? parse<S>(row) : null;
    },
  };
}
