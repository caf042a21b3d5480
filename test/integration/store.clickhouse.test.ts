import { describe, expect, it } from 'vitest';
import { createClickHouseAccountStore } from '../../services/platform/store/clickhouse/accounts.ts';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { createClickHouseInboundStore } from '../../services/platform/store/clickhouse/inbound.ts';
import { createClickHouseJobStore, pendingCallbacksQuery } from '../../services/platform/store/clickhouse/jobs.ts';
import { createClickHouseKeyRing } from '../../services/platform/store/clickhouse/keyring.ts';
import { createClickHouseListStore } from '../../services/platform/store/clickhouse/lists.ts';
import { createClickHouseAddressStore } from '../../services/platform/store/clickhouse/addresses.ts';
import { addressesStoreContract } from '../contract/addresses-store.contract.ts';
import { createClickHouseRegisterStore } from '../../services/platform/store/clickhouse/registers.ts';
import { loadMigrations, migrate, splitStatements } from '../../services/platform/store/clickhouse/migrate.ts';
import { sql, statement, type Statement } from '../../services/platform/store/clickhouse/sql.ts';
import { accountsStoreContract } from '../contract/accounts-store.contract.ts';
import { inboundStoreContract } from '../contract/inbound-store.contract.ts';
import { jobsStoreContract, makeJob, rows, verdictOfJson } from '../contract/jobs-store.contract.ts';
import { decodeCursor, encodeCursor, RESULT_RECORD_FORMAT, resultRecords } from '../../services/platform/store/job-results.ts';
import { keyRingContract } from '../contract/keyring.contract.ts';
import { dataKeyStoreContract } from '../contract/data-keys.contract.ts';
import { rateUsageStoreContract } from '../contract/rate-usage.contract.ts';
import { createClickHouseRateUsageStore } from '../../services/platform/store/clickhouse/rate-usage.ts';
import { idempotencyStoreContract } from '../contract/idempotency-store.contract.ts';
import { createClickHouseIdempotencyStore } from '../../services/platform/store/clickhouse/idempotency.ts';
import { createClickHouseDataKeyStore } from '../../services/platform/store/clickhouse/data-keys.ts';
import { usageStoreContract } from '../contract/usage-store.contract.ts';
import { createClickHouseUsageStore } from '../../services/platform/store/clickhouse/usage.ts';
import { listsStoreContract } from '../contract/lists-store.contract.ts';
import { monitorsStoreContract } from '../contract/monitors-store.contract.ts';
import { createClickHouseMonitorStore } from '../../services/platform/store/clickhouse/monitors.ts';
import { registersStoreContract } from '../contract/registers-store.contract.ts';
import { peopleStoreContract } from '../contract/people-store.contract.ts';
import { createClickHousePeopleStore } from '../../services/platform/store/clickhouse/people.ts';
import { openTestClickHouse, openTestClickHouseBefore } from '../support/clickhouse.ts';
import { servers } from '../support/servers.ts';
import { RowBinaryReader } from '../../services/platform/store/clickhouse/row-binary.ts';
import type { JobRecord } from '../../services/platform/store/jobs-port.ts';

/**
 * The store contracts against ClickHouse 25.8 (infra/local/chdb.sh: the 25.8.2.1 engine behind its
 * HTTP front here, the real server image in docker-compose), each
 * suite on a database of its own. Fails, never skips, when the server is missing. `reopen` opens
 * a second connection to the same database, as a restarted process would.
 */
async function openWithReopen(label: string) {
  const { conn, drop } = await openTestClickHouse(label);
  const extra: ClickHouseConnection[] = [];
  return {
    conn,
    reopen(): ClickHouseConnection {
      const second = createClickHouseConnection({ url: servers.clickhouseUrl, database: conn.database });
      extra.push(second);
      return second;
    },
    async close() {
      for (const c of extra) await c.close();
      await drop();
    },
  };
}

/**
 * Both result record tables (migration 032: the one before it and the one of small granules) as
 * one table to inspect, through ClickHouse's merge() table function; `_table` names a row's table.
 */
function bothRecordTables(conn: ClickHouseConnection): Statement {
  return statement(`merge('${conn.database}', '^check_result_records(_small_granules)?$')`);
}

jobsStoreContract('clickhouse', async () => {
  const { conn, close } = await openWithReopen('jobs');
  // Records are read from both record tables and written as the store writes them (migration 032).
  const records = bothRecordTables(conn);
  return {
    store: createClickHouseJobStore(conn),
    records: {
      async formats(jobId) {
        const stored = await conn.rows<{ first_row: number; record_format: number }>(sql`SELECT first_row, record_format
          FROM ${records} WHERE job_id = ${jobId} ORDER BY first_row, last_row DESC LIMIT 1 BY first_row`);
        return stored.map((r) => ({ first_row: Number(r.first_row), record_format: Number(r.record_format) }));
      },
      async write(jobId, deleteAfter, r) {
        await conn.insert('check_result_records_small_granules', [{
          job_id: jobId, first_row: r.first_row, last_row: r.last_row, delete_on: deleteAfter.slice(0, 10),
          counts: JSON.stringify(r.counts), results: r.results, cells: r.cells, record_format: r.record_format,
          ids: r.ids, verdicts: r.verdicts, verdict_rows: r.verdict_rows,
        }]);
      },
    },
    close,
  };
});

accountsStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('accounts');
  return { store: createClickHouseAccountStore(conn), reopen: async () => createClickHouseAccountStore(reopen()), close };
});

peopleStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('people');
  return { store: createClickHousePeopleStore(conn), reopen: async () => createClickHousePeopleStore(reopen()), close };
});

monitorsStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('monitors');
  return { store: createClickHouseMonitorStore(conn), reopen: async () => createClickHouseMonitorStore(reopen()), close };
});

listsStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('lists');
  return { store: createClickHouseListStore(conn), reopen: async () => createClickHouseListStore(reopen()), close };
});

inboundStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('inbound');
  return { store: createClickHouseInboundStore(conn), reopen: async () => createClickHouseInboundStore(reopen()), close };
});

addressesStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('addresses');
  return { store: createClickHouseAddressStore(conn), reopen: async () => createClickHouseAddressStore(reopen()), close };
});

registersStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('registers');
  return { store: createClickHouseRegisterStore(conn), reopen: async () => createClickHouseRegisterStore(reopen()), close };
});

keyRingContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('keys');
  return { keys: createClickHouseKeyRing(conn), reopen: async () => createClickHouseKeyRing(reopen()), close };
});

dataKeyStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('datakeys');
  return {
    store: createClickHouseDataKeyStore(conn), keyring: createClickHouseKeyRing(conn),
    reopen: async () => {
      const second = reopen();
      return { store: createClickHouseDataKeyStore(second), keyring: createClickHouseKeyRing(second) };
    },
    // Every row of the active parts, rows hidden by a lightweight delete included.
    rawContent: async () => conn.text(sql`SELECT * FROM ${conn.table('job_data_keys')} SETTINGS apply_deleted_mask = 0`, 'TabSeparatedRaw'),
    close,
  };
});

idempotencyStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('idempotency');
  return { store: createClickHouseIdempotencyStore(conn), reopen: async () => createClickHouseIdempotencyStore(reopen()), close };
});

rateUsageStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('rateusage');
  return { store: createClickHouseRateUsageStore(conn), reopen: async () => createClickHouseRateUsageStore(reopen()), close };
});

usageStoreContract('clickhouse', async () => {
  const { conn, close } = await openWithReopen('usage');
  return { usage: createClickHouseUsageStore(conn), close };
});

describe('ClickHouse migrations', () => {
  it('apply once: a second run applies nothing and keeps the data', async () => {
    const { conn, drop } = await openTestClickHouse('migrate');
    try {
      const migrations = await loadMigrations();
      // Numbers are assigned to parallel branches, so a gap can exist for a while: ascending and unique.
      const versions = migrations.map((m) => m.version);
      expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
      expect(versions[0]).toBe(1);
      const recorded = await conn.rows<{ version: number }>(statement(`SELECT version FROM ${conn.database}.schema_migrations FINAL ORDER BY version`));
      expect(recorded.map((r) => Number(r.version))).toEqual(migrations.map((m) => m.version));
      const accounts = createClickHouseAccountStore(conn);
      await accounts.createOrganisation({
        id: 'org-m', name: 'Kept', stop_level: 1, plan: 'annual', api_agreement: false, suspended: false,
        retention_days: 30, addons: [], created_at: '2026-01-01T00:00:00.000Z',
      });
      expect(await migrate(conn)).toEqual([]);
      expect((await accounts.getOrganisation('org-m'))?.name).toBe('Kept');
    } finally {
      await drop();
    }
  });

  it('splits files into statements, ignoring comment lines', () => {
    expect(splitStatements('-- a; comment;\nCREATE TABLE a (x String);\n\n-- b\nCREATE TABLE b (y String)\n  ENGINE = Memory;\n')).toEqual([
      'CREATE TABLE a (x String)',
      'CREATE TABLE b (y String)\n  ENGINE = Memory',
    ]);
  });
});

describe('ClickHouse JobStore: the pending-callbacks query (migration 029)', () => {
  it('finds the jobs with a pending callback through the skip index and FINAL over those ids only', async () => {
    const { conn, drop } = await openTestClickHouse('pending_callbacks');
    try {
      const store = createClickHouseJobStore(conn);
      const jobs = conn.table('check_jobs');
      const callback = (state: 'pending' | 'delivered') => ({
        delivery_id: `d-${state}`, event: 'check_job.completed' as const, state, attempts: 1, last_status: 200,
        last_attempt_at: '2026-02-01T10:00:00.000Z',
      });
      // 40,000 finished jobs (five granules of 8,192) in one insert, as the store writes a revision.
      const finished = Array.from({ length: 40_000 }, () => makeJob({ status: 'done', callback: callback('delivered') }));
      await conn.client.insert({
        table: jobs.name, format: 'JSONEachRow',
        values: finished.map((job) => ({ id: job.id, revision: 1, org_id: job.org_id, mode: job.mode, status: job.status, delete_after_ms: 0, doc: JSON.stringify(job) })),
      });
      const pending = [makeJob({ status: 'done', callback: callback('pending') }), makeJob({ status: 'running' })];
      for (const job of pending) await store.createJob(job);
      await store.updateJob(pending[1].id, { status: 'failed', callback: callback('pending') });
      await store.updateJob(finished[0].id, { callback: callback('pending') });
      await store.updateJob(finished[0].id, { callback: callback('delivered') }); // pending in an older revision only

      const explain = async (query: string, params = {}) => conn.text({ query: `EXPLAIN indexes = 1 ${query}`, params }, 'TabSeparatedRaw');
      // The ids come from the skip index: granules without a pending revision are not read.
      const ids = await explain(`SELECT id FROM ${jobs.name} WHERE callback_pending = 1`);
      const skip = /Name: check_jobs_callback_pending[\s\S]*?Granules: (\d+)\/(\d+)/.exec(ids);
      expect(skip, ids).not.toBeNull();
      expect(Number(skip![1])).toBeLessThan(Number(skip![2]));
      // FINAL reads those ids by the primary key, not the whole table.
      const query = pendingCallbacksQuery(jobs, 10_000);
      const main = await explain(query.query, query.params);
      expect(main).toMatch(/Condition: \(id in \d+-element set\)/);

      expect((await store.listPendingCallbacks(10_000)).map((j) => j.id).sort()).toEqual([pending[0].id, pending[1].id].sort());
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse migration 029: the pending-callbacks column and index back-filled for jobs stored before it', () => {
  it('finds exactly the jobs whose callback is pending, and the parts written before it get the column and the index', async () => {
    const { conn, migrateRest, drop } = await openTestClickHouseBefore('pending_backfill', 29);
    try {
      const jobs = conn.table('check_jobs');
      const columns = async () => (await conn.rows<{ name: string }>(sql`SELECT name FROM system.columns
        WHERE database = ${conn.database} AND table = 'check_jobs'`)).map((c) => c.name);
      expect(await columns(), 'the table in its shape before 029').not.toContain('callback_pending');
      const store = createClickHouseJobStore(conn);
      const callback = (state: 'pending' | 'delivered' | 'failed') => ({
        delivery_id: `d-${state}`, event: 'check_job.completed' as const, state, attempts: 1, last_status: state === 'delivered' ? 200 : 503,
        last_attempt_at: '2026-02-01T10:00:00.000Z',
      });
      // 40,000 finished jobs delivered (five granules of 8,192) in one part, as the store writes a revision.
      const delivered = Array.from({ length: 40_000 }, () => makeJob({ status: 'done', callback: callback('delivered') }));
      await conn.client.insert({
        table: jobs.name, format: 'JSONEachRow',
        values: delivered.map((job) => ({ id: job.id, revision: 1, org_id: job.org_id, mode: job.mode, status: job.status, delete_after_ms: 0, doc: JSON.stringify(job) })),
      });
      const pendingDone = makeJob({ status: 'done', callback: callback('pending') });
      const pendingFailed = makeJob({ status: 'running' });
      const gaveUp = makeJob({ status: 'failed', callback: callback('failed') });
      const stillRunning = makeJob({ status: 'running' });
      for (const job of [pendingDone, pendingFailed, gaveUp, stillRunning]) await store.createJob(job);
      await store.updateJob(pendingFailed.id, { status: 'failed', callback: callback('pending') });
      await store.updateJob(stillRunning.id, { callback: callback('pending') }); // not finished: no delivery yet
      await store.updateJob(delivered[0].id, { callback: callback('pending') });
      await store.updateJob(delivered[0].id, { callback: callback('delivered') }); // pending in an older revision only
      const expected = [pendingDone.id, pendingFailed.id].sort();

      expect(await migrateRest()).toContain(29);
      expect(await columns()).toContain('callback_pending');
      // Right at once: a part the back-fill has not rewritten yet computes the column from its expression.
      expect((await store.listPendingCallbacks(10_000)).map((j) => j.id).sort()).toEqual(expected);

      // The back-fill is two mutations (MATERIALIZE COLUMN, MATERIALIZE INDEX); the server's own
      // signal that they are over is no unfinished mutation of the table.
      const mutations = sql`SELECT countIf(is_done = 0) AS open, count() AS all FROM system.mutations
        WHERE database = ${conn.database} AND table = 'check_jobs'`;
      await expect.poll(async () => {
        const [m] = await conn.rows<{ open: string; all: string }>(mutations);
        return { open: Number(m.open), started: Number(m.all) >= 2 };
      }, { timeout: 120_000, interval: 200 }).toEqual({ open: 0, started: true });
      // Every active part now stores the column: the back-fill reached the parts written before 029.
      const parts = await conn.rows<{ part: string; has: number }>(sql`SELECT name AS part,
          has(groupArray(column), 'callback_pending') AS has FROM system.parts_columns
        WHERE database = ${conn.database} AND table = 'check_jobs' AND active GROUP BY name`);
      expect(parts.length).toBeGreaterThan(0);
      expect(parts.filter((p) => Number(p.has) !== 1), 'parts without callback_pending').toEqual([]);
      // And the index was built for them: granules without a pending revision are skipped.
      const plan = await conn.text({ query: `EXPLAIN indexes = 1 SELECT id FROM ${jobs.name} WHERE callback_pending = 1`, params: {} }, 'TabSeparatedRaw');
      const skip = /Name: check_jobs_callback_pending[\s\S]*?Granules: (\d+)\/(\d+)/.exec(plan);
      expect(skip, plan).not.toBeNull();
      expect(Number(skip![1])).toBeLessThan(Number(skip![2]));
      expect((await store.listPendingCallbacks(10_000)).map((j) => j.id).sort()).toEqual(expected);
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse migration 030: result records carry their format', () => {
  it('records stored before it read as format 1, beside records written after it and by a writer not yet upgraded', async () => {
    const { conn, migrateRest, drop } = await openTestClickHouseBefore('record_format', 30);
    try {
      const job = makeJob({ status: 'running', row_count: 25 });
      await createClickHouseJobStore(conn).createJob(job);
      // A record as the store wrote it before 030: no record_format column to name.
      const asBefore = (from: number, to: number) => resultRecords(rows(from, to), () => false).map((r) => ({
        job_id: job.id, first_row: r.first_row, last_row: r.last_row, delete_on: job.delete_after.slice(0, 10),
        counts: JSON.stringify(r.counts), results: r.results, cells: r.cells,
      }));
      await conn.insert('check_result_records', asBefore(0, 10));
      expect(await migrateRest()).toContain(30);
      const store = createClickHouseJobStore(conn);
      await store.putResults(job.id, job.delete_after, rows(5, 20)); // 5..9 are stored already
      await conn.insert('check_result_records', asBefore(20, 25)); // an API or projection process not yet upgraded
      const formats = await conn.rows<{ first_row: number; record_format: number }>(sql`SELECT first_row, record_format
        FROM ${bothRecordTables(conn)} WHERE job_id = ${job.id} ORDER BY first_row, last_row DESC LIMIT 1 BY first_row`);
      expect(formats.map((r) => [Number(r.first_row), Number(r.record_format)])).toEqual([[0, 1], [10, RESULT_RECORD_FORMAT], [20, 1]]);
      expect((await store.readResults(job.id, { limit: 100 })).rows).toEqual(rows(0, 25));
      expect((await store.countResults(job.id)).processed).toBe(25);
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse migration 031: result records carry their verdicts', () => {
  it('records stored before it, and by a writer not yet upgraded, give their verdicts from their lines', async () => {
    const { conn, migrateRest, drop } = await openTestClickHouseBefore('verdicts', 31);
    try {
      const job = makeJob({ status: 'running', row_count: 25 });
      await createClickHouseJobStore(conn).createJob(job);
      // A record as the store wrote it before 031: no verdict columns to name.
      const asBefore = (from: number, to: number) => resultRecords(rows(from, to), () => false).map((r) => ({
        job_id: job.id, first_row: r.first_row, last_row: r.last_row, delete_on: job.delete_after.slice(0, 10),
        counts: JSON.stringify(r.counts), results: r.results, cells: r.cells, record_format: r.record_format,
      }));
      await conn.insert('check_result_records', asBefore(0, 10));
      expect(await migrateRest()).toContain(31);
      const store = createClickHouseJobStore(conn);
      await store.putResults(job.id, job.delete_after, rows(5, 20)); // 5..9 are stored already
      await conn.insert('check_result_records', asBefore(20, 25)); // an API or projection process not yet upgraded
      const stored = await conn.rows<{ first_row: number; none: number }>(sql`SELECT first_row, isNull(verdicts) AS none
        FROM ${bothRecordTables(conn)} WHERE job_id = ${job.id} ORDER BY first_row, last_row DESC LIMIT 1 BY first_row`);
      expect(stored.map((r) => [Number(r.first_row), Number(r.none)])).toEqual([[0, 1], [10, 0], [20, 1]]);
      const json = await store.readResultsJson(job.id, { limit: 100 });
      const verdicts = await store.readResultVerdicts(job.id, { limit: 100 });
      expect(verdicts.ids.map((id, i) => ({ id: JSON.parse(id) as unknown, verdict: JSON.parse(verdicts.verdicts[i]) as unknown }))).toEqual(json.results.map(verdictOfJson));
      expect(verdicts.cells).toEqual(json.cells);
      expect(json.results.map((r) => JSON.parse(r) as unknown)).toEqual(rows(0, 25).map((r) => r.result));
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse migration 032: result records in small granules', () => {
  it('records stored before it stay in the old table and are read beside new ones, by every read, once each', async () => {
    const { conn, migrateRest, drop } = await openTestClickHouseBefore('small_granules', 32);
    try {
      const job = makeJob({ status: 'done', row_count: 2600 });
      await createClickHouseJobStore(conn).createJob(job);
      // Records as the store wrote them before 032 (the table of migrations 016, 030, 031).
      const asBefore = (from: number, to: number) => resultRecords(rows(from, to), () => false).map((r) => ({
        job_id: job.id, first_row: r.first_row, last_row: r.last_row, delete_on: job.delete_after.slice(0, 10),
        counts: JSON.stringify(r.counts), results: r.results, cells: r.cells, record_format: r.record_format,
        ids: r.ids, verdicts: r.verdicts, verdict_rows: r.verdict_rows,
      }));
      await conn.insert('check_result_records', asBefore(0, 10));
      expect(await migrateRest()).toContain(32);
      const store = createClickHouseJobStore(conn);
      await store.putResults(job.id, job.delete_after, rows(5, 2500)); // 5..9 are stored already (in the old table)
      await conn.insert('check_result_records', asBefore(2500, 2600)); // a projection process not yet upgraded
      const where = await conn.rows<{ first_row: number; table: string }>(sql`SELECT first_row, _table AS table
        FROM ${bothRecordTables(conn)} WHERE job_id = ${job.id} ORDER BY first_row`);
      expect(where.map((r) => [Number(r.first_row), r.table])).toEqual([
        [0, 'check_result_records'], [10, 'check_result_records_small_granules'], [1000, 'check_result_records_small_granules'],
        [2000, 'check_result_records_small_granules'], [2500, 'check_result_records'],
      ]);
      const [created] = await conn.rows<{ engine_full: string }>(sql`SELECT engine_full FROM system.tables
        WHERE database = ${conn.database} AND name = 'check_result_records_small_granules'`);
      expect(created.engine_full).toContain('index_granularity_bytes = 262144');

      const all = rows(0, 2600);
      expect((await store.countResults(job.id)).processed).toBe(2600);
      for (const limit of [999, 10_000]) {
        let cursor: string | null = null;
        let read = 0;
        do {
          const json = await store.readResultsJson(job.id, { cursor, limit });
          const want = all.slice(read, read + limit);
          expect(json.results.map((r) => JSON.parse(r) as unknown)).toEqual(want.map((r) => r.result));
          const bytes = await store.readResultsBytes(job.id, { cursor, limit });
          expect(Buffer.concat(bytes.pieces).toString('utf8')).toBe(json.results.join(','));
          const done = await store.readDoneResultsBytes({ org_id: job.org_id, mode: job.mode }, job.id, { cursor, limit });
          expect(Buffer.concat(done.page?.pieces ?? []).toString('utf8')).toBe(json.results.join(','));
          expect(done.page?.next_cursor).toBe(json.next_cursor);
          const verdicts = await store.readResultVerdicts(job.id, { cursor, limit });
          expect(verdicts.ids.map((id) => JSON.parse(id) as unknown)).toEqual(want.map((r) => r.result.id));
          expect(verdicts.cells).toEqual(json.cells);
          read += json.results.length;
          cursor = json.next_cursor;
        } while (cursor !== null);
        expect(read).toBe(2600);
      }
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse job results: deletion on disk', () => {
  it('purgeJob removes the rows from the parts of both record tables, not only from reads (lightweight DELETE, then the mask applied)', async () => {
    const { conn, drop } = await openTestClickHouse('purge_disk');
    try {
      const store = createClickHouseJobStore(conn);
      // Results are records of contiguous rows (docs/platform-clickhouse-registry.md "Result records"):
      // rows 0..49 one record in the table the store writes; rows 50..59 one record in the table
      // before migration 032, as a process not yet upgraded wrote it ("Small granules").
      const [gone, kept] = [makeJob({ status: 'done' }), makeJob({ status: 'done' })];
      for (const job of [gone, kept]) {
        await store.createJob(job);
        await store.putResults(job.id, job.delete_after, rows(0, 50));
        await conn.insert('check_result_records', resultRecords(rows(50, 60), () => false).map((r) => ({
          job_id: job.id, first_row: r.first_row, last_row: r.last_row, delete_on: job.delete_after.slice(0, 10),
          counts: JSON.stringify(r.counts), results: r.results, cells: r.cells, record_format: r.record_format,
        })));
      }
      const tables = ['check_result_records', 'check_result_records_small_granules'];
      // apply_deleted_mask = 0 shows rows that are only masked: what is still in the parts.
      const onDisk = async (id: string) => Promise.all(tables.map(async (name) => Number((await conn.rows<{ n: string }>(
        sql`SELECT count() AS n FROM ${conn.table(name)} WHERE job_id = ${id} SETTINGS apply_deleted_mask = 0`))[0].n)));
      expect(await onDisk(gone.id)).toEqual([1, 1]);
      expect((await store.countResults(gone.id)).processed, 'both tables are read').toBe(60);

      await store.purgeJob(gone.id, '2026-03-01T00:00:00.000Z');
      expect((await store.countResults(gone.id)).processed, 'masked for reads at once').toBe(0);
      // The server's own signal that the background rewrite is over: no unfinished mutation left.
      const pending = sql`SELECT count() AS n FROM system.mutations
        WHERE database = ${conn.database} AND has(${tables}, table) AND is_done = 0`;
      await expect.poll(async () => Number((await conn.rows<{ n: string }>(pending))[0].n), { timeout: 60_000 }).toBe(0);
      expect(await onDisk(gone.id), 'gone from the parts').toEqual([0, 0]);
      expect(await onDisk(kept.id), 'another job of the same day untouched').toEqual([1, 1]);

      // Retention's partition drop reaches both tables too.
      await store.dropResultsDueBefore(new Date(Date.parse(kept.delete_after) + 86_400_000).toISOString().slice(0, 10));
      expect(await onDisk(kept.id), 'dropped with its day').toEqual([0, 0]);
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse result records read without FINAL', () => {
  it('a record stored twice (an insert repeated before its first copy was readable) is served once by pages, files and JSON pages', async () => {
    // docs/architecture.md "Results pages": the window reads keep one record per key (LIMIT 1 BY), not FINAL.
    const { conn, drop } = await openTestClickHouse('records_twice');
    try {
      const store = createClickHouseJobStore(conn);
      const [once, twice] = [makeJob({ status: 'done' }), makeJob({ status: 'done' })];
      const stored = rows(0, 2500);
      for (const job of [once, twice]) await store.createJob(job);
      await store.putResults(once.id, once.delete_after, stored);
      // Each of the job's records inserted twice, in separate inserts (separate parts, unmerged).
      const records = resultRecords(stored, () => false).map((r) => ({
        job_id: twice.id, first_row: r.first_row, last_row: r.last_row, delete_on: twice.delete_after.slice(0, 10),
        counts: JSON.stringify(r.counts), results: r.results, cells: r.cells, record_format: r.record_format,
        ids: r.ids, verdicts: r.verdicts, verdict_rows: r.verdict_rows,
      }));
      for (let copy = 0; copy < 2; copy++) await conn.insert('check_result_records_small_granules', records);
      const copies = await conn.rows<{ n: string }>(sql`SELECT count() AS n FROM ${bothRecordTables(conn)} WHERE job_id = ${twice.id}`);
      expect(Number(copies[0].n), 'both copies are there to be read').toBe(2 * records.length);
      const other = (cursor: string | null) => (cursor === null ? null : encodeCursor(twice.id, decodeCursor(once.id, cursor)));
      const back = (cursor: string | null) => (cursor === null ? null : encodeCursor(once.id, decodeCursor(twice.id, cursor)));
      for (const limit of [999, 1000, 10_000]) {
        let cursor: string | null = null;
        do {
          const page = { cursor, limit };
          const want = await store.readResultsBytes(once.id, page);
          const got = await store.readResultsBytes(twice.id, { cursor: other(cursor), limit });
          expect(Buffer.concat(got.pieces).toString('utf8')).toBe(Buffer.concat(want.pieces).toString('utf8'));
          expect(back(got.next_cursor)).toBe(want.next_cursor);
          const verdicts = await store.readResultVerdicts(twice.id, { cursor: other(cursor), limit });
          expect({ ...verdicts, next_cursor: back(verdicts.next_cursor) }).toEqual(await store.readResultVerdicts(once.id, page));
          const json = await store.readResultsJson(twice.id, { cursor: other(cursor), limit });
          expect({ ...json, next_cursor: back(json.next_cursor) }).toEqual(await store.readResultsJson(once.id, page));
          cursor = want.next_cursor;
        } while (cursor !== null);
      }
      expect(await store.countResults(twice.id)).toEqual(await store.countResults(once.id));
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse results page: the job\'s status and scope checked in the page statement', () => {
  it('readDoneResultsBytes reads no record of a job that is not done, deleted or out of scope (the engine\'s answer holds the job only)', async () => {
    // docs/architecture.md "Results pages": records are read only when the job's latest status in
    // the scope is done. The route's answer would hide records read anyway (the store drops them),
    // so this looks at what the engine answered: a page statement without its check answers them.
    const { conn, drop } = await openTestClickHouse('done_check');
    try {
      const answers: Buffer[] = [];
      const store = createClickHouseJobStore({ ...conn, rowBinary: async (s) => { const bytes = await conn.rowBinary(s); answers.push(bytes); return bytes; } });
      /** The kinds of the rows of one page statement's answer: 0 the job, 1 a record (jobs.ts donePage). */
      const kindsOf = (bytes: Buffer) => {
        const reader = new RowBinaryReader(bytes);
        const kinds: number[] = [];
        while (!reader.done) {
          kinds.push(reader.uint8());
          reader.uint32();
          reader.uint32();
          reader.uint8();
          reader.string();
        }
        return kinds;
      };
      const answerOf = async (scope: { org_id: string; mode: 'live' | 'test' }, id: string) => {
        answers.length = 0;
        const read = await store.readDoneResultsBytes(scope, id, { limit: 10_000 });
        return { read, kinds: kindsOf(answers[0]) };
      };
      const [done, running, failed, deleted] = ['done', 'running', 'failed', 'done'].map((status) => makeJob({ status: status as JobRecord['status'] }));
      for (const job of [done, running, failed, deleted]) {
        await store.createJob(job);
        await store.putResults(job.id, job.delete_after, rows(0, 2500));
      }
      // Marked deleted without the purge, so its records are still stored: only the check keeps them out.
      await store.updateJob(deleted.id, { status: 'deleted' });
      const scopeOf = (job: JobRecord) => ({ org_id: job.org_id, mode: job.mode });
      const served = await answerOf(scopeOf(done), done.id);
      expect(served.kinds, 'a done job\'s answer holds its records (this test can see them)').toEqual([0, 1, 1, 1]);
      expect(served.read.page?.count).toBe(2500);
      for (const job of [running, failed, deleted]) {
        const answer = await answerOf(scopeOf(job), job.id);
        expect(answer.kinds, `job ${[running, failed, deleted].indexOf(job)} (running, failed, deleted): the job, no records`).toEqual([0]);
        expect(answer.read.page).toBeNull();
      }
      const deletedNow = await answerOf(scopeOf(deleted), deleted.id);
      expect(deletedNow.read.job?.status).toBe('deleted');
      for (const scope of [{ ...scopeOf(done), org_id: failed.org_id }, { ...scopeOf(done), mode: 'test' as const }]) {
        const answer = await answerOf(scope, done.id);
        expect(answer.kinds, 'another organisation or mode: nothing').toEqual([]);
        expect(answer.read).toEqual({ job: null, page: null });
      }
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse job results written before result records (check_results, one row each)', () => {
  it('are still paged and counted, and a job begun that way goes on that way (no mix, exact counts)', async () => {
    const { conn, drop } = await openTestClickHouse('old_results');
    try {
      const store = createClickHouseJobStore(conn);
      const job = makeJob({ status: 'running', row_count: 20 });
      await store.createJob(job);
      // Rows as the store wrote them before migration 016.
      await conn.insert('check_results', rows(0, 10).map((r) => ({
        job_id: job.id, row: r.row, delete_on: job.delete_after.slice(0, 10), status: r.result.status,
        level: r.result.match.level ?? -1, record: JSON.stringify({ result: r.result, cells: r.cells }),
      })));
      // A later process (a fresh store: nothing cached) writes the rest, 5..9 redelivered.
      const later = createClickHouseJobStore(conn);
      await later.putResults(job.id, job.delete_after, rows(5, 20));
      expect((await later.countResults(job.id)).processed).toBe(20);
      expect(Number((await conn.rows<{ n: string }>(sql`SELECT count() AS n FROM ${bothRecordTables(conn)} WHERE job_id = ${job.id}`))[0].n)).toBe(0);
      const page = await later.readResultsJson(job.id, { limit: 15 });
      expect(page.results.map((r) => (JSON.parse(r) as { id: string }).id)).toEqual(rows(0, 15).map((r) => r.result.id));
      const bytes = await createClickHouseJobStore(conn).readResultsBytes(job.id, { limit: 15 });
      expect(Buffer.concat(bytes.pieces).toString('utf8')).toBe(page.results.join(','));
      expect(bytes.next_cursor).toBe(page.next_cursor);
      const rest = await later.readResults(job.id, { cursor: page.next_cursor, limit: 15 });
      expect(rest.rows.map((r) => r.row)).toEqual([15, 16, 17, 18, 19]);
      // A result file's page larger than an API page is read in API pages here (the file follows the cursor).
      const verdicts = await later.readResultVerdicts(job.id, { limit: 50_000 });
      expect(verdicts.ids.map((id) => JSON.parse(id) as unknown)).toEqual(rows(0, 20).map((r) => r.result.id));
    } finally {
      await drop();
    }
  });
});

describe('ClickHouse job records: compare-and-set across a merge', () => {
  it('a writer whose revision was merged away under a later one keeps its win (its patch is not applied again)', async () => {
    const { conn, drop } = await openTestClickHouse('jobs_cas');
    try {
      // Right after writer A inserts revision n (and before it reads it back), writer B builds
      // n + 1 on it and a merge keeps only n + 1: what a background merge may do at any time.
      let afterInsert: (() => Promise<void>) | null = null;
      const hooked: ClickHouseConnection = {
        ...conn,
        client: new Proxy(conn.client, {
          get(client, name) {
            if (name !== 'insert') return Reflect.get(client, name, client);
            return async (params: Parameters<typeof client.insert>[0]) => {
              const result = await client.insert(params);
              const hook = afterInsert;
              afterInsert = null;
              await hook?.();
              return result;
            };
          },
        }),
      };
      const a = createClickHouseJobStore(hooked);
      const b = createClickHouseJobStore(conn);
      const job = makeJob();
      await b.createJob(job);
      afterInsert = async () => {
        await b.updateJob(job.id, { status: 'failed', error: 'unreadable_message' });
        await conn.command(sql`OPTIMIZE TABLE ${conn.table('check_jobs')} FINAL`);
      };
      const written = await a.updateJob(job.id, { status: 'running' });
      expect(afterInsert, 'the merge ran between the insert and the read back').toBeNull();
      expect(written?.status).toBe('running');
      // Applied again, A's patch would have put the failed job back to running.
      expect(await b.getJobById(job.id)).toMatchObject({ status: 'failed', error: 'unreadable_message' });
    } finally {
      await drop();
    }
  });
});
