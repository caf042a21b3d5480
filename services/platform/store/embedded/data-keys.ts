import type { DatabaseSync } from 'node:sqlite';
import type { DataKeyStore, StoredDataKey } from '../data-keys-port.ts';
import { flushDeleted } from './database.ts';

/**
 * DataKeyStore on the embedded database (see data-keys-port.ts). The database runs with
 * secure_delete (database.ts), so a deleted key's bytes are zeroed in its page; the WAL still
 * holds the page as it was until a checkpoint, so deletion ends with one (flushDeleted).
 */
export function createEmbeddedDataKeyStore(db: DatabaseSync): DataKeyStore {
  db.exec(`CREATE TABLE IF NOT EXISTS job_data_keys (
    job_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    master_kid TEXT NOT NULL,
    wrapped TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (job_id, key_id)
  ) WITHOUT ROWID`);
  const insert = db.prepare('INSERT OR IGNORE INTO job_data_keys (job_id, key_id, master_kid, wrapped, created_at) VALUES (?, ?, ?, ?, ?)');
  const selectOne = db.prepare('SELECT job_id, key_id, master_kid, wrapped, created_at FROM job_data_keys WHERE job_id = ? AND key_id = ?');
  const selectJob = db.prepare('SELECT job_id, key_id, master_kid, wrapped, created_at FROM job_data_keys WHERE job_id = ? ORDER BY created_at, key_id');
  const remove = db.prepare('DELETE FROM job_data_keys WHERE job_id = ?');
  return {
    async putKey(key) {
      insert.run(key.job_id, key.key_id, key.master_kid, key.wrapped, key.created_at);
    },
    async getKey(jobId, keyId) {
      const row = selectOne.get(jobId, keyId) as StoredDataKey | undefined;
      return row ? { ...row } : null;
    },
    async listJobKeys(jobId) {
      return (selectJob.all(jobId) as unknown as StoredDataKey[]).map((row) => ({ ...row }));
    },
    async deleteJobKeys(jobId) {
      if (Number(remove.run(jobId).changes) > 0) flushDeleted(db);
    },
  };
}
