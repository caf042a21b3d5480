import type { DataKeyStore, StoredDataKey } from '../data-keys-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * DataKeyStore on ClickHouse (migration 012_job_data_keys.sql). Read with FINAL so a key put twice
 * is one key. Deletion is a mutation waited for (mutations_sync = 2): the parts holding the job's
 * keys are rewritten without them before deleteJobKeys resolves; a lightweight DELETE would only
 * mask the rows until the next merge.
 */
export function createClickHouseDataKeyStore(conn: ClickHouseConnection): DataKeyStore {
  const table = conn.table('job_data_keys');
  const read = (rows: StoredDataKey[]): StoredDataKey[] =>
    rows.map((r) => ({ job_id: r.job_id, key_id: r.key_id, master_kid: r.master_kid, wrapped: r.wrapped, created_at: r.created_at }));
  return {
    async putKey(key) {
      await conn.insert('job_data_keys', [{ ...key }]);
    },
    async getKey(jobId, keyId) {
      const rows = await conn.rows<StoredDataKey>(sql`SELECT job_id, key_id, master_kid, wrapped, created_at
        FROM ${table} FINAL WHERE job_id = ${jobId} AND key_id = ${keyId}`);
      return read(rows)[0] ?? null;
    },
    async listJobKeys(jobId) {
      return read(await conn.rows<StoredDataKey>(sql`SELECT job_id, key_id, master_kid, wrapped, created_at
        FROM ${table} FINAL WHERE job_id = ${jobId} ORDER BY created_at, key_id`));
    },
    async deleteJobKeys(jobId) {
      await conn.command(sql`ALTER TABLE ${table} DELETE WHERE job_id = ${jobId}`, { mutations_sync: '2' });
    },
  };
}
