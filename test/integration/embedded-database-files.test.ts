import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedEventLog } from '../../services/platform/log/embedded.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import {
  embeddedDatabasePath, openEmbeddedDatabase, openEmbeddedDatabases, resultsDatabasePath,
} from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedJobStore } from '../../services/platform/store/embedded/jobs.ts';
import type { JobRecord, ResultRow } from '../../services/platform/store/jobs-port.ts';
import { emptyLevelCounts } from '../../services/domain/check-job.ts';

/**
 * DATA_DIR's three files (docs/embedded-and-admin.md "Three database files"): a database written
 * before the split gives its event log and results to their own files at the next open, and a
 * write held open on the results file does not stop the job store or the event log.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'embedded-files-'));
  dirs.push(dir);
  return dir;
}

function job(id: string): JobRecord {
  const now = new Date().toISOString();
  return {
    id, org_id: 'org', mode: 'live', source: 'api', status: 'running', filename: null, file_format: null,
    row_count: 3, processed_count: 0, allowed_count: 0, blocked_count: 0, manual_count: 0, level_counts: emptyLevelCounts(),
    columns: [], column_mapping: null, options: {}, preview: [], price: null, list_version: null,
    certificate_token: null, error: null, delete_after: new Date(Date.now() + 86_400_000).toISOString(), created_at: now,
    finished_at: null, callback_url: null, callback: null, external_ref: null, key_hash: 'h', input_sha256: null, updated_at: now,
  };
}

function results(n: number): ResultRow[] {
  return Array.from({ length: n }, (_, row) => ({
    row,
    cells: null,
    result: { id: `r${row}`, status: 'allowed', match: { level: null } } as unknown as ResultRow['result'],
  }));
}

const tableNames = (db: DatabaseSync) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);

describe('the embedded database files', () => {
  it('moves the event log and the results of a one-file database into their own files, results as records, keeping every message and row', async () => {
    const dir = dataDir();
    const jobId = crypto.randomUUID();
    // The layout before the split: everything in robinson.sqlite.
    const old = openEmbeddedDatabase(embeddedDatabasePath(dir));
    const oldLog = createEmbeddedEventLog({ db: old, logger: silentLogger(), pollIntervalMs: 20 });
    await oldLog.createTopics([{ name: 't', partitions: 1, retentionMs: null, compacted: false }]);
    await oldLog.publish('t', [{ key: 'a', value: Buffer.from('one') }, { key: 'b', value: Buffer.from('two') }]);
    await createEmbeddedJobStore(old).createJob(job(jobId));
    // Results one row each, as versions before result records kept them.
    old.exec(`CREATE TABLE check_results (job_id TEXT NOT NULL, row INTEGER NOT NULL, delete_on TEXT NOT NULL,
      status TEXT NOT NULL, level INTEGER NOT NULL, record TEXT NOT NULL, PRIMARY KEY (job_id, row)) WITHOUT ROWID`);
    for (const r of results(3)) {
      old.prepare('INSERT INTO check_results VALUES (?, ?, ?, ?, ?, ?)').run(jobId, r.row, '2999-01-01', 'allowed', -1, JSON.stringify({ result: r.result, cells: r.cells }));
    }
    await oldLog.close();
    old.close();

    const dbs = openEmbeddedDatabases(dir);
    try {
      expect(tableNames(dbs.main)).not.toContain('check_results');
      expect(tableNames(dbs.main).filter((t) => t.startsWith('log_'))).toEqual([]);
      expect(tableNames(dbs.results)).toContain('check_results');
      const jobs = createEmbeddedJobStore(dbs.main, dbs.results);
      // The job store converts the moved rows into result records and drops the old table.
      expect(tableNames(dbs.results)).toEqual(['check_result_records']);
      expect((await jobs.countResults(jobId)).processed).toBe(3);
      expect((await jobs.readResults(jobId, { limit: 10 })).rows.map((r) => r.result.id)).toEqual(['r0', 'r1', 'r2']);
      const log = createEmbeddedEventLog({ db: dbs.log, logger: silentLogger(), pollIntervalMs: 20 });
      const seen: string[] = [];
      const all = Promise.withResolvers<void>();
      const subscription = await log.subscribe({
        group: 'g', topics: ['t'], startAt: 'earliest',
        async handleBatch(batch) {
          for (const m of batch.messages) seen.push(m.value!.toString());
          if (seen.length >= 2) all.resolve();
        },
      });
      await all.promise;
      await subscription.close();
      await log.close();
      expect(seen).toEqual(['one', 'two']);
    } finally {
      dbs.close();
    }
    // Opened again: nothing left to move, nothing moved twice.
    const again = openEmbeddedDatabases(dir);
    try {
      expect((await createEmbeddedJobStore(again.main, again.results).countResults(jobId)).processed).toBe(3);
    } finally {
      again.close();
    }
  });

  it('a write held open on the results file does not hold up job writes or the event log', async () => {
    const dir = dataDir();
    const dbs = openEmbeddedDatabases(dir);
    // Another connection (the projection's thread) in the middle of a results transaction.
    const projection = new DatabaseSync(resultsDatabasePath(dir));
    try {
      const jobs = createEmbeddedJobStore(dbs.main, dbs.results);
      const jobId = crypto.randomUUID();
      await jobs.createJob(job(jobId));
      const log = createEmbeddedEventLog({ db: dbs.log, logger: silentLogger(), pollIntervalMs: 20 });
      await log.createTopics([{ name: 't', partitions: 1, retentionMs: null, compacted: false }]);
      projection.exec('PRAGMA busy_timeout = 0');
      projection.exec('BEGIN IMMEDIATE');
      projection.prepare('INSERT INTO check_result_records (job_id, first_row, last_row, delete_on, counts, results) VALUES (?, 0, 0, ?, ?, ?)')
        .run(jobId, '2999-01-01', '{}', '{}');
      // With one file these would wait for the lock (busy_timeout) and then fail.
      const started = performance.now();
      const updated = await jobs.updateJob(jobId, { processed_count: 1 });
      await log.publish('t', [{ key: 'k', value: Buffer.from('v') }]);
      await jobs.touchIntake(jobId, { at: new Date().toISOString(), closed: false });
      expect(updated?.processed_count).toBe(1);
      expect(performance.now() - started, 'no wait on the results file\'s lock').toBeLessThan(5_000);
      projection.exec('ROLLBACK');
      await log.close();
    } finally {
      projection.close();
      dbs.close();
    }
  });
  it('a new results file has 64 KB pages and records in a rowid table; a file made earlier keeps its pages and layout, and both store and read alike', async () => {
    const pageSize = (db: DatabaseSync) => (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    const recordsSql = (db: DatabaseSync) =>
      (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'check_result_records'").get() as { sql: string }).sql;
    const messagesSql = (db: DatabaseSync) =>
      (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'log_messages'").get() as { sql: string }).sql;

    const fresh = openEmbeddedDatabases(dataDir());
    const older = dataDir();
    // A results file as an earlier version made it: 4 KB pages, records WITHOUT ROWID.
    const old = openEmbeddedDatabase(resultsDatabasePath(older));
    old.exec(`CREATE TABLE check_result_records (job_id TEXT NOT NULL, first_row INTEGER NOT NULL, last_row INTEGER NOT NULL,
      delete_on TEXT NOT NULL, counts TEXT NOT NULL, results TEXT NOT NULL, cells TEXT, record_format INTEGER NOT NULL DEFAULT 1,
      PRIMARY KEY (job_id, first_row)) WITHOUT ROWID`);
    old.close();
    const earlier = openEmbeddedDatabases(older);
    try {
      for (const dbs of [fresh, earlier]) {
        createEmbeddedEventLog({ db: dbs.log, logger: silentLogger() });
        const store = createEmbeddedJobStore(dbs.main, dbs.results);
        const id = crypto.randomUUID();
        await store.createJob(job(id));
        await store.putResults(id, job(id).delete_after, results(2500));
        expect((await store.countResults(id)).processed).toBe(2500);
        const page = await store.readResultsJson(id, { limit: 3, cursor: null });
        expect(page.results.map((r) => JSON.parse(r).id)).toEqual(['r0', 'r1', 'r2']);
        // The verdict columns: the new layout's, and the earlier one's with them added at the end.
        expect((await store.readResultVerdicts(id, { limit: 3, cursor: null })).ids).toEqual(['"r0"', '"r1"', '"r2"']);
      }
      expect(pageSize(fresh.results)).toBe(65536);
      expect(recordsSql(fresh.results)).not.toMatch(/WITHOUT ROWID/);
      expect(messagesSql(fresh.log)).not.toMatch(/WITHOUT ROWID/);
      // The main file and the log keep SQLite's default pages (small rows, rewritten often).
      expect(pageSize(fresh.main)).toBe(4096);
      expect(pageSize(fresh.log)).toBe(4096);
      expect(pageSize(earlier.results)).toBe(4096);
      expect(recordsSql(earlier.results)).toMatch(/WITHOUT ROWID/);
    } finally {
      fresh.close();
      earlier.close();
    }
  });
});
