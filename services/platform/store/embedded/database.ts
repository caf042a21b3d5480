import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** The one database file of the embedded default, inside DATA_DIR; server and admin CLI share it. */
export function embeddedDatabasePath(dataDir: string): string {
  return join(dataDir, 'robinson.sqlite');
}

/**
 * The embedded default's single-file database (node:sqlite, no native build). Every embedded
 * store module creates its own tables on this handle when constructed.
 *
 * Durability: WAL with synchronous=FULL, so a write whose promise resolved survives a power loss,
 * not only a process crash; the adapters batch bulk writes in transactions, so the extra fsync per
 * commit costs little. busy_timeout lets the admin CLI write while the server holds the file.
 *
 * Deletion is for real (DECISIONS §10: at delete_after a job's personal data leaves every store):
 * secure_delete overwrites deleted rows with zeros instead of leaving them in free space, and the
 * stores that delete personal data call `flushDeleted` afterwards, so no copy stays in the WAL.
 */
export function openEmbeddedDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  // 30 s, not 5: on a loaded machine (load 20+) a worker's write transaction held the file longer
  // than 5 s and the API's intake got 'database is locked' (a 500 for the client's POST). Not
  // longer: a writer or a checkpoint waiting here blocks its thread.
  db.exec('PRAGMA busy_timeout = 30000');
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA secure_delete = ON');
  return db;
}

/**
 * After personal data was deleted: copies the WAL into the database file (whose deleted cells
 * secure_delete has zeroed) and truncates the WAL, which otherwise keeps the pages as they were
 * before the delete until it is overwritten. Waits for readers up to busy_timeout; a checkpoint
 * that could not finish (a reader still on an old snapshot) is completed by the next one.
 */
export function flushDeleted(db: DatabaseSync): void {
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
}

/** Runs `work` in one transaction (BEGIN IMMEDIATE, so writers queue up instead of failing). */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
