import type { RemovableRecord, RemovableRecords } from '../removable-records.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/** How the host store reads and writes a row of its table (each table has columns of its own). */
export interface RevisedRows {
  read<V>(kind: string, id: string): Promise<{ revision: number; record: V } | null>;
  write(kind: string, id: string, revision: number, record: object, columns: { org_id?: string; created_at?: string; removed?: boolean }): Promise<void>;
}

/**
 * Removable records with a status (../removable-records.ts) on ClickHouse: rows of the host
 * store's table keyed by (kind, id), written again with revision + 1 on change, read with FINAL.
 * Read-then-write is safe because one process owns each channel's records (the ports' "does not
 * promise").
 */
export function clickHouseRemovableRecords<T extends RemovableRecord, S>(
  conn: ClickHouseConnection,
  table: string,
  kinds: { record: string; status: string },
  rows: RevisedRows,
): RemovableRecords<T, S> {
  const columnsOf = (record: T, removed: boolean) => ({ org_id: record.org_id, created_at: record.created_at, removed });
  return {
    async create(record) {
      if (await rows.read(kinds.record, record.id)) throw new Error(`${kinds.record} ${record.id} already exists`);
      await rows.write(kinds.record, record.id, 1, record, columnsOf(record, record.removed_at !== null));
    },
    async get(id) {
      return (await rows.read<T>(kinds.record, id))?.record ?? null;
    },
    async list(orgId) {
      const org = orgId ?? '';
      const found = await conn.rows<{ body: string }>(sql`SELECT body FROM ${conn.table(table)} FINAL
        WHERE kind = ${kinds.record} AND (${org} = '' OR org_id = ${org}) AND removed = 0 ORDER BY created_at, id`);
      return found.map((row) => JSON.parse(row.body) as T);
    },
    async remove(id, at) {
      const current = await rows.read<T>(kinds.record, id);
      if (!current) return false;
      const record = { ...current.record, removed_at: current.record.removed_at ?? at };
      await rows.write(kinds.record, id, current.revision + 1, record, columnsOf(record, true));
      return true;
    },
    async recordStatus(id, status) {
      const current = await rows.read<S>(kinds.status, id);
      await rows.write(kinds.status, id, (current?.revision ?? 0) + 1, status as object, {});
    },
    async getStatus(id) {
      return (await rows.read<S>(kinds.status, id))?.record ?? null;
    },
  };
}
