/**
 * Where each job's data keys live (crypto-shredding): the AES-256 keys that encrypt a
 * job's rows and results on the topics, stored wrapped (encrypted) by a master key. Deleting a
 * job's keys makes every copy of its rows and results on the log unreadable at once, wherever
 * the messages are (partitions, replicas, dead-letter topics), without touching the log.
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - `putKey` is durable once it resolves and idempotent on (job_id, key_id): a key is never
 *   changed, only deleted. A job may have several keys (each process that writes a job's rows
 *   makes its own; no single winner is needed because every message names its key).
 * - `getKey` finds a key put by any process on the same store once `putKey` resolved.
 * - `deleteJobKeys` removes every key of the job, and not only from reads: once it resolves the
 *   wrapped key bytes are gone from the store's files (embedded: secure_delete and a WAL
 *   checkpoint; ClickHouse: a synchronous mutation that rewrites the parts). Deleting a job
 *   without keys is no error.
 */
export interface StoredDataKey {
  job_id: string;
  /** Random id named by every message sealed with this key (16 hex characters). */
  key_id: string;
  /** The master key that wrapped it (its kid). */
  master_kid: string;
  /** base64url of iv (12 bytes) ‖ GCM tag (16) ‖ the wrapped 32-byte key. */
  wrapped: string;
  created_at: string;
}

export interface DataKeyStore {
  putKey(key: StoredDataKey): Promise<void>;
  getKey(jobId: string, keyId: string): Promise<StoredDataKey | null>;
  /** Every key of a job (tests and the canary scan; a job has one key per writing process). */
  listJobKeys(jobId: string): Promise<StoredDataKey[]>;
  deleteJobKeys(jobId: string): Promise<void>;
}
