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
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA foreign_keys = ON');
  // Deleted rows are overwritten with zeros in their pages (and freed pages zeroed), so a purged
  // job's names do not stay readable in the file's free space (issue 14). Costs extra writes only
  // where something is deleted.
  db.exec('PRAGMA secure_delete = ON');
  return db;
}

/**
 * After deleting personal data: copies every page back into the database file and truncates the
 * WAL, whose older frames still hold the pages as they were before the delete (secure_delete
 * zeroes the new page images, not the old frames). Waits for readers up to busy_timeout; returns
 * false when a reader kept the checkpoint from finishing (the WAL is then truncated by the next
 * call), which callers log.
 */
export function forgetFreedPages(db: DatabaseSync): boolean {
  const row = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number } | undefined;
  return !row || Number(row.busy) === 0;
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
