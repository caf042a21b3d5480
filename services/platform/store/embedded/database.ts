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
 */
export function openEmbeddedDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  // 60 s, not 5: on a loaded machine (load 20+) a worker's write transaction held the file longer
  // than 5 s and the API's intake got 'database is locked' (a 500 for the client's POST).
  db.exec('PRAGMA busy_timeout = 60000');
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA foreign_keys = ON');
  return db;
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
