import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { createEmbeddedAccountStore } from '../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedInboundStore } from '../../services/platform/store/embedded/inbound.ts';
import { createEmbeddedJobStore, EMBEDDED_RECORD_FORMAT, PENDING_CALLBACKS_SQL } from '../../services/platform/store/embedded/jobs.ts';
import { createEmbeddedKeyRing } from '../../services/platform/store/embedded/keyring.ts';
import { createEmbeddedListStore } from '../../services/platform/store/embedded/lists.ts';
import { createEmbeddedAddressStore } from '../../services/platform/store/embedded/addresses.ts';
import { addressesStoreContract } from '../contract/addresses-store.contract.ts';
import { createEmbeddedRegisterStore } from '../../services/platform/store/embedded/registers.ts';
import { accountsStoreContract } from '../contract/accounts-store.contract.ts';
import { inboundStoreContract } from '../contract/inbound-store.contract.ts';
import { jobsStoreContract, makeJob, rows, verdictOfJson, type JobStoreHarness } from '../contract/jobs-store.contract.ts';
import { RESULT_RECORD_FORMAT, resultRecords } from '../../services/platform/store/job-results.ts';
import { keyRingContract } from '../contract/keyring.contract.ts';
import { dataKeyStoreContract } from '../contract/data-keys.contract.ts';
import { rateUsageStoreContract } from '../contract/rate-usage.contract.ts';
import { createEmbeddedRateUsageStore } from '../../services/platform/store/embedded/rate-usage.ts';
import { createEmbeddedDataKeyStore } from '../../services/platform/store/embedded/data-keys.ts';
import { usageStoreContract } from '../contract/usage-store.contract.ts';
import { createEmbeddedUsageStore } from '../../services/platform/store/embedded/usage.ts';
import { listsStoreContract } from '../contract/lists-store.contract.ts';
import { monitorsStoreContract } from '../contract/monitors-store.contract.ts';
import { createEmbeddedMonitorStore } from '../../services/platform/store/embedded/monitors.ts';
import { registersStoreContract } from '../contract/registers-store.contract.ts';
import { peopleStoreContract } from '../contract/people-store.contract.ts';
import { createEmbeddedPeopleStore } from '../../services/platform/store/embedded/people.ts';
import { describe, expect, it } from 'vitest';

/**
 * The store contracts against the embedded adapters, each suite on its own database file.
 * `reopen` opens the same file again, as a restarted process would.
 */
function freshDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'robinson-store-'));
  const path = join(dir, 'robinson.db');
  const handles: DatabaseSync[] = [openEmbeddedDatabase(path)];
  return {
    db: handles[0],
    path,
    reopen(): DatabaseSync {
      const db = openEmbeddedDatabase(path);
      handles.push(db);
      return db;
    },
    async close() {
      for (const db of handles) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The JobStore contract's view of the stored result records, on the database that holds them. */
function resultRecordsOf(db: DatabaseSync): JobStoreHarness['records'] {
  return {
    async formats(jobId) {
      return db.prepare('SELECT first_row, record_format FROM check_result_records WHERE job_id = ? ORDER BY first_row')
        .all(jobId) as Array<{ first_row: number; record_format: number }>;
    },
    async write(jobId, deleteAfter, r) {
      db.prepare(`INSERT INTO check_result_records (job_id, first_row, last_row, delete_on, counts, results, cells, record_format, ids, verdicts, verdict_rows, line_ends)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        jobId, r.first_row, r.last_row, deleteAfter.slice(0, 10), JSON.stringify(r.counts), r.results, r.cells, r.record_format, r.ids, r.verdicts, r.verdict_rows,
        r.line_ends,
      );
    },
  };
}

jobsStoreContract('embedded', async () => {
  const { db, close } = freshDatabase();
  return { store: createEmbeddedJobStore(db), writesFormat: EMBEDDED_RECORD_FORMAT, records: resultRecordsOf(db), close };
});

// As the embedded default opens it: the results in a file of their own (docs/embedded-and-admin.md).
jobsStoreContract('embedded, results in their own file', async () => {
  const main = freshDatabase();
  const results = freshDatabase();
  return {
    store: createEmbeddedJobStore(main.db, results.db), writesFormat: EMBEDDED_RECORD_FORMAT, records: resultRecordsOf(results.db),
    close: async () => { await main.close(); await results.close(); },
  };
});

describe('JobStore (embedded): result records written before the verdict columns', () => {
  it('gain the columns at open (NULL) and give their verdicts from their lines, beside records written after', async () => {
    const { db, reopen, close } = freshDatabase();
    try {
      // The results table as a database written before the verdict columns holds it, with one record.
      db.exec(`CREATE TABLE check_result_records (job_id TEXT NOT NULL, first_row INTEGER NOT NULL, last_row INTEGER NOT NULL,
        delete_on TEXT NOT NULL, counts TEXT NOT NULL, results TEXT NOT NULL, cells TEXT, record_format INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (job_id, first_row))`);
      const job = makeJob({ status: 'running', row_count: 20 });
      const [old] = resultRecords(rows(0, 10), () => false);
      db.prepare('INSERT INTO check_result_records (job_id, first_row, last_row, delete_on, counts, results, cells, record_format) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(job.id, old.first_row, old.last_row, job.delete_after.slice(0, 10), JSON.stringify(old.counts), old.results, old.cells, old.record_format);
      const opened = reopen();
      const store = createEmbeddedJobStore(opened);
      await store.createJob(job);
      await store.putResults(job.id, job.delete_after, rows(5, 20)); // 5..9 are stored already
      const stored = opened.prepare('SELECT first_row, verdicts IS NULL AS none FROM check_result_records WHERE job_id = ? ORDER BY first_row').all(job.id);
      expect(stored.map((r) => [r.first_row, r.none])).toEqual([[0, 1], [10, 0]]);
      const json = await store.readResultsJson(job.id, { limit: 100 });
      const verdicts = await store.readResultVerdicts(job.id, { limit: 100 });
      expect(verdicts.ids.map((id, i) => ({ id: JSON.parse(id) as unknown, verdict: JSON.parse(verdicts.verdicts[i]) as unknown }))).toEqual(json.results.map(verdictOfJson));
      expect(verdicts.cells).toEqual(json.cells);
      createEmbeddedJobStore(reopen()); // opened again: the columns are there, nothing is added twice
    } finally {
      await close();
    }
  });
});

describe('JobStore (embedded): result records written before the format column', () => {
  it('gain the column at open and read as format 1, beside records written after', async () => {
    const { db, reopen, close } = freshDatabase();
    try {
      // The results table as a database written before record_format holds it, with one record.
      db.exec(`CREATE TABLE check_result_records (job_id TEXT NOT NULL, first_row INTEGER NOT NULL, last_row INTEGER NOT NULL,
        delete_on TEXT NOT NULL, counts TEXT NOT NULL, results TEXT NOT NULL, cells TEXT, PRIMARY KEY (job_id, first_row)) WITHOUT ROWID`);
      const job = makeJob({ status: 'running', row_count: 20 });
      const [old] = resultRecords(rows(0, 10), () => false);
      db.prepare('INSERT INTO check_result_records (job_id, first_row, last_row, delete_on, counts, results, cells) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(job.id, old.first_row, old.last_row, job.delete_after.slice(0, 10), JSON.stringify(old.counts), old.results, old.cells);
      const opened = reopen();
      const store = createEmbeddedJobStore(opened);
      await store.createJob(job);
      await store.putResults(job.id, job.delete_after, rows(5, 20)); // 5..9 are stored already
      const formats = opened.prepare('SELECT first_row, record_format FROM check_result_records WHERE job_id = ? ORDER BY first_row').all(job.id);
      expect(formats.map((r) => [r.first_row, r.record_format])).toEqual([[0, RESULT_RECORD_FORMAT], [10, EMBEDDED_RECORD_FORMAT]]);
      expect((await store.readResults(job.id, { limit: 100 })).rows).toEqual(rows(0, 20));
      expect((await store.countResults(job.id)).processed).toBe(20);
      createEmbeddedJobStore(reopen()); // opened again: the column is there, nothing is added twice
    } finally {
      await close();
    }
  });
});

describe('JobStore (embedded): the pending-callbacks query', () => {
  it('reads the jobs with a pending callback from their partial index, not every finished job', async () => {
    const { db, close } = freshDatabase();
    try {
      const store = createEmbeddedJobStore(db);
      const callback = (state: 'pending' | 'delivered') => ({
        delivery_id: `d-${state}`, event: 'check_job.completed' as const, state, attempts: 1, last_status: 200,
        last_attempt_at: '2026-02-01T10:00:00.000Z',
      });
      const pending = [makeJob({ status: 'done', callback: callback('pending') }), makeJob({ status: 'failed', callback: callback('pending') })];
      for (const job of pending) await store.createJob(job);
      for (let i = 0; i < 500; i++) await store.createJob(makeJob({ status: 'done', callback: callback('delivered') }));
      db.exec('ANALYZE'); // the planner's choice with statistics, as a long-lived database has them
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${PENDING_CALLBACKS_SQL}`).all(10_000) as Array<{ detail: string }>).map((r) => r.detail);
      expect(plan).toEqual([expect.stringContaining('USING INDEX check_jobs_pending_callbacks')]);
      expect((await store.listPendingCallbacks(10_000)).map((j) => j.id).sort()).toEqual(pending.map((j) => j.id).sort());
    } finally {
      await close();
    }
  });
});

accountsStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedAccountStore(db), reopen: async () => createEmbeddedAccountStore(reopen()), close };
});

peopleStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedPeopleStore(db), reopen: async () => createEmbeddedPeopleStore(reopen()), close };
});

listsStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedListStore(db), reopen: async () => createEmbeddedListStore(reopen()), close };
});

inboundStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedInboundStore(db), reopen: async () => createEmbeddedInboundStore(reopen()), close };
});

registersStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedRegisterStore(db), reopen: async () => createEmbeddedRegisterStore(reopen()), close };
});

keyRingContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { keys: createEmbeddedKeyRing(db), reopen: async () => createEmbeddedKeyRing(reopen()), close };
});

dataKeyStoreContract('embedded', async () => {
  const { db, reopen, close, path } = freshDatabase();
  const raw = (file: string) => (existsSync(file) ? readFileSync(file).toString('latin1') : '');
  return {
    store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db),
    reopen: async () => {
      const second = reopen();
      return { store: createEmbeddedDataKeyStore(second), keyring: createEmbeddedKeyRing(second) };
    },
    rawContent: async () => raw(path) + raw(`${path}-wal`),
    close,
  };
});

rateUsageStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedRateUsageStore(db), reopen: async () => createEmbeddedRateUsageStore(reopen()), close };
});

addressesStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedAddressStore(db), reopen: async () => createEmbeddedAddressStore(reopen()), close };
});

usageStoreContract('embedded', async () => {
  const { db, close } = freshDatabase();
  return { usage: createEmbeddedUsageStore(db), close };
});

monitorsStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedMonitorStore(db), reopen: async () => createEmbeddedMonitorStore(reopen()), close };
});

describe('JobStore (embedded): result records written before format 2', () => {
  it('gain the line_ends column at open, stay format 1, and serve pages beside format-2 records byte for byte', async () => {
    // docs/embedded-and-admin.md "Result record formats": a version tag read both ways, no rewrite.
    const { db, reopen, close } = freshDatabase();
    try {
      // The results table as a database written before line_ends holds it, with format-1 records.
      db.exec(`CREATE TABLE check_result_records (job_id TEXT NOT NULL, first_row INTEGER NOT NULL, last_row INTEGER NOT NULL,
        delete_on TEXT NOT NULL, counts TEXT NOT NULL, record_format INTEGER NOT NULL DEFAULT 1, ids TEXT, verdicts TEXT,
        verdict_rows TEXT, cells TEXT, results TEXT NOT NULL, PRIMARY KEY (job_id, first_row))`);
      const job = makeJob({ status: 'running', row_count: 2600 });
      const all = rows(0, 2600);
      const insert = db.prepare(`INSERT INTO check_result_records (job_id, first_row, last_row, delete_on, counts, results, cells, record_format, ids, verdicts, verdict_rows)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      // Rows 0..1299 as the store wrote them before (format 1), the rest written after the upgrade.
      for (const r of resultRecords(all.slice(0, 1300), () => false)) {
        insert.run(job.id, r.first_row, r.last_row, job.delete_after.slice(0, 10), JSON.stringify(r.counts), r.results, r.cells, r.record_format, r.ids, r.verdicts, r.verdict_rows);
      }
      const opened = reopen();
      const store = createEmbeddedJobStore(opened);
      await store.createJob(job);
      await store.putResults(job.id, job.delete_after, all.slice(1000)); // 1000..1299 are stored already
      const formats = opened.prepare('SELECT first_row, record_format, line_ends IS NULL AS no_ends FROM check_result_records WHERE job_id = ? ORDER BY first_row').all(job.id);
      expect(formats.map((r) => [r.first_row, r.record_format, r.no_ends])).toEqual([
        [0, 1, 1], [1000, 1, 1], [1300, EMBEDDED_RECORD_FORMAT, 0], [2000, EMBEDDED_RECORD_FORMAT, 0],
      ]);
      expect((await store.readResults(job.id, { limit: 10_000 })).rows).toEqual(all);
      // Pages starting and ending inside records of both formats and across the edge between them.
      for (const limit of [7, 299, 300, 301, 1000, 10_000]) {
        let cursor: string | null = null;
        let seen = 0;
        for (;;) {
          const json = await store.readResultsJson(job.id, { cursor, limit });
          const bytes = await store.readResultsBytes(job.id, { cursor, limit });
          expect(Buffer.concat(bytes.pieces).toString('utf8')).toBe(json.results.join(','));
          expect(bytes.count).toBe(json.results.length);
          expect(bytes.next_cursor).toBe(json.next_cursor);
          seen += bytes.count;
          if (json.next_cursor === null) break;
          cursor = json.next_cursor;
        }
        expect(seen).toBe(2600);
      }
      createEmbeddedJobStore(reopen()); // opened again: the column is there, nothing is added twice
    } finally {
      await close();
    }
  });
});
