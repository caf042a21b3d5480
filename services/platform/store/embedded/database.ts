import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** The main database file of the embedded default, inside DATA_DIR; server and admin CLI share it. */
export function embeddedDatabasePath(dataDir: string): string {
  return join(dataDir, 'robinson.sqlite');
}

/**
 * The embedded event log's own file. SQLite allows one writer per file: with the log in the main
 * file, the intake's appends, the matcher's and the projection's waited on each other's commits
 * (docs/platform-event-log.md "Adapters").
 */
export function eventLogDatabasePath(dataDir: string): string {
  return join(dataDir, 'event-log.sqlite');
}

/** The check results' own file, for the same reason: the projection's bulk inserts take no lock the API needs. */
export function resultsDatabasePath(dataDir: string): string {
  return join(dataDir, 'results.sqlite');
}

/** The embedded default's three files: each has its own write lock. */
export interface EmbeddedDatabases {
  main: DatabaseSync;
  log: DatabaseSync;
  results: DatabaseSync;
  close(): void;
}

/**
 * The results file's page size when it is created: a result record is ~230 KB of JSON (1,000
 * rows), which on 4 KB pages is a chain of ~60 overflow pages per record; on 64 KB pages storing a
 * 1,000,000-row job's records took a third to a half of the CPU (docs/embedded-and-admin.md
 * "Three database files"). A file created earlier keeps its page size (SQLite changes it only on
 * VACUUM); both read alike.
 */
export const RESULTS_PAGE_SIZE = 65536;

/** Tables that live in a file of their own; databases written before the split hold them in the main file. */
const LOG_TABLES = ['log_topics', 'log_partitions', 'log_messages', 'log_group_offsets'];
const RESULTS_TABLES = ['check_results'];

/**
 * Opens DATA_DIR's three files, moving the event log's and the results' tables out of the main
 * file first when an older version left them there (once; a crash half-way is finished at the
 * next open: the copy commits in the new file before the old table is dropped).
 */
export function openEmbeddedDatabases(dataDir: string): EmbeddedDatabases {
  const main = openEmbeddedDatabase(embeddedDatabasePath(dataDir));
  const log = openEmbeddedDatabase(eventLogDatabasePath(dataDir));
  const results = openEmbeddedDatabase(resultsDatabasePath(dataDir), { pageSize: RESULTS_PAGE_SIZE });
  try {
    moveTables(main, eventLogDatabasePath(dataDir), LOG_TABLES);
    moveTables(main, resultsDatabasePath(dataDir), RESULTS_TABLES);
  } catch (error) {
    for (const db of [main, log, results]) db.close();
    throw error;
  }
  return {
    main, log, results,
    close() {
      for (const db of [results, log, main]) db.close();
    },
  };
}

function moveTables(main: DatabaseSync, targetPath: string, tables: readonly string[]): void {
  const tableSql = main.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?");
  const left = tables.filter((t) => tableSql.get(t) !== undefined);
  if (left.length === 0) return;
  main.prepare('ATTACH DATABASE ? AS target').run(targetPath);
  try {
    const inTarget = main.prepare("SELECT 1 FROM target.sqlite_master WHERE type = 'table' AND name = ?");
    inTransaction(main, () => {
      for (const table of left) {
        if (inTarget.get(table) !== undefined) continue; // copied by an earlier open that died before the drop
        const { sql } = tableSql.get(table) as { sql: string };
        main.exec(sql.replace(/^CREATE TABLE\s+("?)(\w+)\1/i, `CREATE TABLE target.${table}`));
        main.exec(`INSERT INTO target.${table} SELECT * FROM main.${table}`);
      }
    });
  } finally {
    main.exec('DETACH DATABASE target');
  }
  // Only now, with the copies committed: the old tables go (their personal data with them).
  inTransaction(main, () => {
    for (const table of left) main.exec(`DROP TABLE main.${table}`);
  });
  flushDeleted(main);
}

/**
 * The embedded default's single-file database (node:sqlite, no native build). Every embedded
 * store module creates its own tables on this handle when constructed.
 *
 * Durability: WAL with synchronous=FULL, so a write whose promise resolved survives a power loss,
 * not only a process crash; the adapters batch bulk writes in transactions, so the extra fsync per
 * commit costs little. busy_timeout lets the admin CLI write while the server holds the file.
 *
 * Deletion is for real (docs/decisions.md §10: at delete_after a job's personal data leaves every store):
 * secure_delete overwrites deleted rows with zeros instead of leaving them in free space, and the
 * stores that delete personal data call `flushDeleted` afterwards, so no copy stays in the WAL.
 */
export function openEmbeddedDatabase(path: string, options: { pageSize?: number } = {}): DatabaseSync {
  if (path !== ':memory:') keepPrivate(path);
  const db = new DatabaseSync(path);
  // Only takes effect on a new (empty) file, and only before WAL mode is set.
  if (options.pageSize !== undefined) db.exec(`PRAGMA page_size = ${Math.trunc(options.pageSize)}`);
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
 * The database holds personal data, key hashes (callback secrets) and the service's private keys,
 * so only the service's user may read it (docs/privacy-and-proof.md "Every store"): the file is
 * created 0600 before SQLite opens it. SQLite gives the WAL and shared-memory
 * files the database file's mode; files left by an older version are tightened too.
 */
function keepPrivate(path: string): void {
  // A directory made here is 0700 (umask cannot widen it); one the operator made is left as it is
  // (it may be shared, e.g. /var/lib): the files below are private either way.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
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
