import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MonitorRecord, MonitorStore, RunRow } from '../../services/platform/store/monitors-port.ts';
import { MonitorExistsError } from '../../services/platform/store/monitors-port.ts';
import { useHarness } from './harness.ts';

export interface MonitorStoreHarness {
  store: MonitorStore;
  /** The same data through a new connection, as a restarted process sees it. */
  reopen(): Promise<MonitorStore>;
  close(): Promise<void>;
}

export function makeMonitor(overrides: Partial<MonitorRecord> = {}): MonitorRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(), org_id: `org-${randomUUID()}`, mode: 'live', external_ref: null, callback_url: null,
    options: { policy: 'standard', stop_level: 1 }, locale: 'da', key_hash: 'a'.repeat(64), generation: 1, contact_count: 0,
    data_key: Buffer.alloc(32, 7).toString('base64'), retention_days: 400, delete_after: '2099-01-01T00:00:00.000Z',
    created_at: now, updated_at: now, deleted_at: null, checked: null, run: null, ...overrides,
  };
}

const run = (row: number, key: string, over: Partial<RunRow> = {}): RunRow => ({ row, key, status: 'allowed', level: 0, change: null, ...over });

/** The MonitorStore conformance suite: every adapter passes it unchanged. */
export function monitorsStoreContract(adapter: string, open: () => Promise<MonitorStoreHarness>): void {
  describe(`MonitorStore contract (${adapter})`, () => {
    const harness = useHarness(open);

    it('creates once, reads only within its organisation and mode, and survives a reopen', async () => {
      const { store, reopen } = harness();
      const m = makeMonitor();
      await store.createMonitor(m);
      await expect(store.createMonitor(m)).rejects.toBeInstanceOf(MonitorExistsError);
      expect(await store.getMonitor({ org_id: m.org_id, mode: 'live' }, m.id)).toEqual(m);
      expect(await store.getMonitor({ org_id: m.org_id, mode: 'test' }, m.id)).toBeNull();
      expect(await store.getMonitor({ org_id: 'other', mode: 'live' }, m.id)).toBeNull();
      expect(await (await reopen()).getMonitorById(m.id)).toEqual(m);
    });

    it('lists a scope in creation order with an after-cursor, and active monitors by id', async () => {
      const { store } = harness();
      const org = `org-${randomUUID()}`;
      const made: MonitorRecord[] = [];
      for (let i = 0; i < 3; i++) {
        const m = makeMonitor({ org_id: org, created_at: `2026-01-0${i + 1}T00:00:00.000Z` });
        made.push(m);
        await store.createMonitor(m);
      }
      await store.createMonitor(makeMonitor({ org_id: org, mode: 'test' }));
      const first = await store.listMonitors({ org_id: org, mode: 'live' }, { limit: 2 });
      expect(first.map((m) => m.id)).toEqual([made[0].id, made[1].id]);
      const rest = await store.listMonitors({ org_id: org, mode: 'live' }, { after: made[1].id, limit: 2 });
      expect(rest.map((m) => m.id)).toEqual([made[2].id]);
      await store.deleteMonitor(made[0].id, new Date().toISOString());
      expect((await store.listMonitors({ org_id: org, mode: 'live' }, { limit: 10 })).map((m) => m.id)).toEqual([made[1].id, made[2].id]);
      const active: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: MonitorRecord[] = await store.listActiveMonitors({ after, limit: 1000 });
        if (page.length === 0) break;
        active.push(...page.map((m) => m.id));
        after = page[page.length - 1].id;
      }
      expect(active).toContain(made[1].id);
      expect(active).not.toContain(made[0].id);
      expect([...active].sort()).toEqual(active);
    });

    it('updates the latest record; a deleted monitor stays deleted, without key, contacts or runs', async () => {
      const { store, reopen } = harness();
      const m = makeMonitor();
      await store.createMonitor(m);
      const run1 = { job_id: randomUUID(), list_version_id: randomUUID(), generation: 1, state: 'publishing' as const, started_at: m.created_at };
      const updated = await store.updateMonitor(m.id, { run: run1, contact_count: 2 });
      expect(updated).toMatchObject({ run: run1, contact_count: 2 });
      await store.putContactBlocks(m.id, 1, [{ block: 0, keys: ['k1', 'k2'], sealed: 'c2VhbGVk' }]);
      await store.putRunRows(m.id, run1.job_id, [run(0, 'k1')]);
      const deleted = await store.deleteMonitor(m.id, '2026-02-01T00:00:00.000Z');
      expect(deleted).toMatchObject({ deleted_at: '2026-02-01T00:00:00.000Z', data_key: null, run: null });
      expect(await store.getMonitor({ org_id: m.org_id, mode: 'live' }, m.id)).toBeNull();
      expect(await store.updateMonitor(m.id, { contact_count: 9 })).toMatchObject({ deleted_at: '2026-02-01T00:00:00.000Z', contact_count: 2 });
      const again = await reopen();
      expect(await again.readContactBlocks(m.id, 1, { from: 0, to: 10 })).toEqual([]);
      expect((await again.readVerdicts(m.id, run1.job_id, ['k1'])).size).toBe(0);
      expect(await store.updateMonitor(randomUUID(), {})).toBeNull();
    });

    it('concurrent updates from two processes both land: the API\'s new generation beside the monitor service\'s run', async () => {
      const { store, reopen } = harness();
      const other = await reopen();
      const m = makeMonitor();
      await store.createMonitor(m);
      // Each round starts both read-modify-writes at once: unguarded, both read one revision and
      // the later write carries the other's stale fields (the API's replaced contacts were lost).
      for (let generation = 2; generation <= 6; generation++) {
        const run1 = { job_id: randomUUID(), list_version_id: randomUUID(), generation: generation - 1, state: 'publishing' as const, started_at: m.created_at };
        await Promise.all([
          store.updateMonitor(m.id, { generation, contact_count: generation }),
          other.updateMonitor(m.id, { run: run1 }),
        ]);
        for (const reader of [store, other]) {
          expect(await reader.getMonitorById(m.id)).toMatchObject({ generation, contact_count: generation, run: run1 });
        }
      }
    });

    it('keeps contact blocks per generation, reads ranges in order and drops old generations', async () => {
      const { store } = harness();
      const m = makeMonitor();
      await store.createMonitor(m);
      await store.putContactBlocks(m.id, 1, [{ block: 1, keys: ['b'], sealed: 'MQ==' }, { block: 0, keys: ['a'], sealed: 'MA==' }]);
      await store.putContactBlocks(m.id, 2, [{ block: 0, keys: ['c', 'd'], sealed: 'Mg==' }]);
      // A block written again (a retried replacement) is still one block.
      await store.putContactBlocks(m.id, 1, [{ block: 0, keys: ['a'], sealed: 'MA==' }]);
      expect(await store.readContactBlocks(m.id, 1, { from: 0, to: 2 })).toEqual([
        { block: 0, keys: ['a'], sealed: 'MA==' }, { block: 1, keys: ['b'], sealed: 'MQ==' },
      ]);
      expect(await store.readContactBlocks(m.id, 1, { from: 1, to: 2 })).toEqual([{ block: 1, keys: ['b'], sealed: 'MQ==' }]);
      expect(await store.readContactKeys(m.id, 1, { from: 0, to: 5 })).toEqual([{ block: 0, keys: ['a'] }, { block: 1, keys: ['b'] }]);
      await store.putContactBlocks(m.id, 3, [{ block: 0, keys: ['e'], sealed: 'Mw==' }]);
      await store.dropContactGeneration(m.id, 3);
      expect(await store.readContactBlocks(m.id, 3, { from: 0, to: 1 })).toEqual([]);
      expect(await store.readContactBlocks(m.id, 2, { from: 0, to: 1 })).toHaveLength(1);
      await store.dropContactGenerations(m.id, [2]);
      expect(await store.readContactBlocks(m.id, 1, { from: 0, to: 2 })).toEqual([]);
      expect(await store.readContactBlocks(m.id, 2, { from: 0, to: 1 })).toHaveLength(1);
    });

    it('run rows are idempotent per (job, key): verdicts and change counts are exact; old runs drop', async () => {
      const { store, reopen } = harness();
      const m = makeMonitor();
      await store.createMonitor(m);
      const [j1, j2] = [randomUUID(), randomUUID()];
      const rows = [
        run(0, 'k0', { status: 'blocked', level: 5, change: 'newly_blocked' }),
        run(1, 'k1', { status: 'allowed', level: 0, change: 'released' }),
        run(2, 'k2', { status: 'manual', level: null, change: null }),
        run(3, 'k3', { status: 'blocked', level: 4, change: 'changed_level' }),
        run(4, 'k4', { status: 'blocked', level: 5, change: 'newly_blocked' }),
      ];
      await store.putRunRows(m.id, j1, rows);
      await store.putRunRows(m.id, j1, rows.slice(0, 3)); // a redelivered chunk
      await store.putRunRows(m.id, j2, [run(0, 'k0')]);
      expect(await store.countRunChanges(m.id, j1)).toEqual({ newly_blocked: 2, released: 1, changed_level: 1 });
      const verdicts = await (await reopen()).readVerdicts(m.id, j1, ['k0', 'k2', 'missing']);
      expect(Object.fromEntries(verdicts)).toEqual({ k0: { status: 'blocked', level: 5 }, k2: { status: 'manual', level: null } });
      // By position: a range of rows with their keys, once each after the redelivery; rows outside or absent are not there.
      const byRow = await (await reopen()).readRunRows(m.id, j1, { from: 1, to: 4 });
      expect([...byRow.entries()].sort(([a], [b]) => a - b)).toEqual([
        [1, { key: 'k1', status: 'allowed', level: 0 }], [2, { key: 'k2', status: 'manual', level: null }], [3, { key: 'k3', status: 'blocked', level: 4 }],
      ]);
      expect((await store.readRunRows(m.id, j1, { from: 5, to: 100 })).size).toBe(0);
      expect((await store.readRunRows(m.id, j2, { from: 0, to: 100 })).get(0)?.key).toBe('k0');
      // Many keys at once (a projection batch of 16 chunks): every one found.
      const many = Array.from({ length: 3000 }, (_, i) => run(10 + i, `many-${i}-${'x'.repeat(16)}`, { status: 'blocked', level: 5 }));
      await store.putRunRows(m.id, j2, many);
      const manyFound = await store.readVerdicts(m.id, j2, many.map((r) => r.key));
      expect(manyFound.size).toBe(3000);
      await store.dropRuns(m.id, [j2]);
      expect((await store.readVerdicts(m.id, j1, ['k0'])).size).toBe(0);
      expect(await store.countRunChanges(m.id, j1)).toEqual({ newly_blocked: 0, released: 0, changed_level: 0 });
      expect((await store.readVerdicts(m.id, j2, ['k0'])).get('k0')).toEqual({ status: 'allowed', level: 0 });
    });
  });
}
