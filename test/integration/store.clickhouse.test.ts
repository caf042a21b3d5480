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
import { sql, statement } from '../../services/platform/store/clickhouse/sql.ts';
import { accountsStoreContract } from '../contract/accounts-store.contract.ts';
import { inboundStoreContract } from '../contract/inbound-store.contract.ts';
import { jobsStoreContract, makeJob, rows } from '../contract/jobs-store.contract.ts';
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
import { openTestClickHouse } from '../support/clickhouse.ts';
import { servers } from '../support/servers.ts';

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

jobsStoreContract('clickhouse', async () => {
  const { conn, close } = await openWithReopen('jobs');
  return { store: createClickHouseJobStore(conn), close };
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

describe('ClickHouse job results: deletion on disk', () => {
  it('purgeJob removes the rows from the parts, not only from reads (lightweight DELETE, then the mask applied)', async () => {
    const { conn, drop } = await openTestClickHouse('purge_disk');
    try {
      const store = createClickHouseJobStore(conn);
      // Results are records of contiguous rows (docs/platform-clickhouse-registry.md "Result records"): 50 rows, one record.
      const results = conn.table('check_result_records');
      const [gone, kept] = [makeJob({ status: 'done' }), makeJob({ status: 'done' })];
      for (const job of [gone, kept]) {
        await store.createJob(job);
        await store.putResults(job.id, job.delete_after, rows(0, 50));
      }
      // apply_deleted_mask = 0 shows rows that are only masked: what is still in the parts.
      const onDisk = async (id: string) => Number((await conn.rows<{ n: string }>(
        sql`SELECT count() AS n FROM ${results} WHERE job_id = ${id} SETTINGS apply_deleted_mask = 0`))[0].n);
      expect(await onDisk(gone.id)).toBe(1);

      await store.purgeJob(gone.id, '2026-03-01T00:00:00.000Z');
      expect((await store.countResults(gone.id)).processed, 'masked for reads at once').toBe(0);
      // The server's own signal that the background rewrite is over: no unfinished mutation left.
      const pending = sql`SELECT count() AS n FROM system.mutations
        WHERE database = ${conn.database} AND table = 'check_result_records' AND is_done = 0`;
      await expect.poll(async () => Number((await conn.rows<{ n: string }>(pending))[0].n), { timeout: 30_000 }).toBe(0);
      expect(await onDisk(gone.id), 'gone from the parts').toBe(0);
      expect(await onDisk(kept.id), 'another job of the same day untouched').toBe(1);
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
      expect(Number((await conn.rows<{ n: string }>(sql`SELECT count() AS n FROM ${conn.table('check_result_records')} WHERE job_id = ${job.id}`))[0].n)).toBe(0);
      const page = await later.readResultsJson(job.id, { limit: 15 });
      expect(page.results.map((r) => (JSON.parse(r) as { id: string }).id)).toEqual(rows(0, 15).map((r) => r.result.id));
      const rest = await later.readResults(job.id, { cursor: page.next_cursor, limit: 15 });
      expect(rest.rows.map((r) => r.row)).toEqual([15, 16, 17, 18, 19]);
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
