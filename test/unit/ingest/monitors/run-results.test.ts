import { describe, expect, it } from 'vitest';
import type { CheckResult, Status } from '../../../../services/domain/types.ts';
import { createMonitorRunResults } from '../../../../services/ingest/monitors/run-results.ts';
import { silentLogger } from '../../../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../../../services/platform/store/embedded/database.ts';
import { createEmbeddedMonitorStore } from '../../../../services/platform/store/embedded/monitors.ts';
import type { JobRecord, ResultRow } from '../../../../services/platform/store/jobs-port.ts';
import type { MonitorStore } from '../../../../services/platform/store/monitors-port.ts';

/**
 * The projection's side of a re-check (services/ingest/monitors/run-results.ts) on the embedded store:
 * the previous verdicts are found by position when a contact is where it was, and looked up by
 * key only for contacts that moved or are new (what keeps a re-check of 1,000,000 contacts from
 * reading the previous run again for every few hundred keys in ClickHouse).
 */
function countingStore(): { store: MonitorStore; keyLookups: string[][] } {
  const store = createEmbeddedMonitorStore(openEmbeddedDatabase(':memory:'));
  const keyLookups: string[][] = [];
  const readVerdicts = store.readVerdicts.bind(store);
  store.readVerdicts = async (monitorId, jobId, keys) => {
    keyLookups.push([...keys]);
    return readVerdicts(monitorId, jobId, keys);
  };
  return { store, keyLookups };
}

const result = (status: Status, level: number | null) => ({ status, match: { level } }) as unknown as CheckResult;
const rowsOf = (verdicts: Array<[Status, number | null]>): ResultRow[] =>
  verdicts.map(([status, level], row) => ({ row, result: result(status, level) }) as ResultRow);
const job = (id: string, generation: number, previous: string | null) =>
  ({ id, monitor: { id: 'm1', generation, previous_job_id: previous, changes: null } }) as unknown as JobRecord;

describe('monitor run results: previous verdicts by position, by key only for contacts that moved', () => {
  it('a re-check of the same contacts finds every previous verdict at its row, with no key lookup', async () => {
    const { store, keyLookups } = countingStore();
    await store.putContactBlocks('m1', 1, [{ block: 0, keys: ['k0', 'k1', 'k2'], sealed: 'unused here' }]);
    const runs = createMonitorRunResults({ monitors: store, logger: silentLogger() });
    await runs.annotate(job('j1', 1, null), rowsOf([['blocked', 5], ['allowed', 0], ['allowed', 0]]));

    const annotated = await runs.annotate(job('j2', 1, 'j1'), rowsOf([['allowed', 0], ['allowed', 1], ['blocked', 5]]));
    expect(annotated.map((r) => r.result.change)).toEqual(['released', 'changed_level', 'newly_blocked']);
    expect(keyLookups).toEqual([]);
    expect(await store.countRunChanges('m1', 'j2')).toEqual({ newly_blocked: 1, released: 1, changed_level: 1 });
  });

  it('a replaced contact set: contacts at their old row by position, moved and new ones by key', async () => {
    const { store, keyLookups } = countingStore();
    await store.putContactBlocks('m1', 1, [{ block: 0, keys: ['k0', 'k1', 'k2'], sealed: 'unused here' }]);
    await store.putContactBlocks('m1', 2, [{ block: 0, keys: ['k2', 'k1', 'new'], sealed: 'unused here' }]);
    const runs = createMonitorRunResults({ monitors: store, logger: silentLogger() });
    await runs.annotate(job('j1', 1, null), rowsOf([['allowed', 0], ['allowed', 0], ['blocked', 5]]));

    const annotated = await runs.annotate(job('j2', 2, 'j1'), rowsOf([['blocked', 5], ['blocked', 5], ['blocked', 5]]));
    // k2 moved from row 2 to row 0 and stays blocked; k1 (same row) became blocked; `new` was never checked.
    expect(annotated.map((r) => r.result.change)).toEqual([null, 'newly_blocked', 'newly_blocked']);
    expect(keyLookups).toEqual([['k2', 'new']]);
  });
});
