/**
 * The projection's side of a monitor re-check (docs/monitors.md "How a re-check reports"): before
 * a result chunk of a `source: monitor` job is stored, each result gets its `change` against the
 * contact's verdict in the monitor's previous completed check, and the contact's new verdict is
 * written as a run row; the completing write of the job carries the change counts.
 *
 * Why in the projection: the job's callback is sent by the projection at completion and must
 * carry the changes, and results are stored once, by it. Exactly once: the previous check (the
 * baseline) is fixed on the job at creation and never changes while the job runs, so a
 * redelivered chunk gets the same changes; run rows are idempotent on (job, contact key).
 * Cost per chunk: the contact keys of its rows (one or two blocks) and one verdict lookup per
 * row in the previous check: proportional to the contacts, never to the history.
 */
import { changeOf, verdictOf, type MonitorChangeCounts, type MonitorVerdict } from '../../domain/monitor-change.ts';
import type { Logger } from '../../platform/logger.ts';
import type { JobRecord, ResultRow } from '../../platform/store/jobs-port.ts';
import { CONTACT_BLOCK_SIZE, type MonitorStore, type RunRow } from '../../platform/store/monitors-port.ts';

export interface MonitorRunResults {
  /** The rows with `change` set on each result (and the run rows written); other jobs' rows unchanged. */
  annotate(job: JobRecord, rows: ResultRow[]): Promise<ResultRow[]>;
  /** Contacts per change of a monitor job whose rows are all stored. */
  count(job: JobRecord): Promise<MonitorChangeCounts | null>;
}

export function createMonitorRunResults(deps: { monitors: MonitorStore; logger: Logger }): MonitorRunResults {
  const logger = deps.logger.child({ module: 'monitors.results' });
  // The keys of the last blocks read (a chunk's rows lie in one or two blocks; chunks of a job
  // mostly come in order): a small cache, never the whole contact set.
  const cached = new Map<string, string[]>();
  const CACHE_BLOCKS = 32;

  /** The contact key of every row, or null when a block is missing (the monitor was deleted). */
  async function keysOf(monitorId: string, generation: number, rows: number[]): Promise<Map<number, string> | null> {
    const needed = new Map<number, string[] | undefined>();
    for (const row of rows) {
      const block = Math.floor(row / CONTACT_BLOCK_SIZE);
      if (!needed.has(block)) needed.set(block, cached.get(`${monitorId}/${generation}/${block}`));
    }
    const missing = [...needed].filter(([, keys]) => keys === undefined).map(([block]) => block);
    if (missing.length > 0) {
      const read = await deps.monitors.readContactKeys(monitorId, generation, { from: Math.min(...missing), to: Math.max(...missing) + 1 });
      for (const block of read) {
        if (needed.has(block.block)) needed.set(block.block, block.keys);
        cached.set(`${monitorId}/${generation}/${block.block}`, block.keys);
        if (cached.size > CACHE_BLOCKS) cached.delete(cached.keys().next().value as string);
      }
    }
    const keys = new Map<number, string>();
    for (const row of rows) {
      const key = needed.get(Math.floor(row / CONTACT_BLOCK_SIZE))?.[row % CONTACT_BLOCK_SIZE];
      if (key === undefined) return null;
      keys.set(row, key);
    }
    return keys;
  }

  /**
   * The contacts' verdicts in the previous check: first by position (a range read per run of
   * neighbouring blocks; a re-check of the same contacts finds every one there), then by key for
   * the contacts that moved or are new (a replaced contact set). Hundreds of random keys per
   * lookup touch nearly all of the previous run in ClickHouse; a row range a granule or two.
   */
  async function previousVerdicts(monitorId: string, previousJobId: string, keys: Map<number, string>): Promise<Map<string, MonitorVerdict>> {
    const blocks = [...new Set([...keys.keys()].map((row) => Math.floor(row / CONTACT_BLOCK_SIZE)))].sort((a, b) => a - b);
    const byRow = new Map<number, MonitorVerdict & { key: string }>();
    for (let i = 0; i < blocks.length;) {
      let j = i;
      while (j + 1 < blocks.length && blocks[j + 1] === blocks[j] + 1) j++;
      const range = { from: blocks[i] * CONTACT_BLOCK_SIZE, to: (blocks[j] + 1) * CONTACT_BLOCK_SIZE };
      for (const [row, verdict] of await deps.monitors.readRunRows(monitorId, previousJobId, range)) byRow.set(row, verdict);
      i = j + 1;
    }
    const found = new Map<string, MonitorVerdict>();
    const moved: string[] = [];
    for (const [row, key] of keys) {
      const before = byRow.get(row);
      if (before && before.key === key) found.set(key, { status: before.status, level: before.level });
      else moved.push(key);
    }
    if (moved.length > 0) for (const [key, verdict] of await deps.monitors.readVerdicts(monitorId, previousJobId, moved)) found.set(key, verdict);
    return found;
  }

  return {
    async annotate(job, rows) {
      const ref = job.monitor;
      if (!ref || rows.length === 0) return rows;
      const keys = await keysOf(ref.id, ref.generation, rows.map((r) => r.row));
      if (!keys) {
        // The monitor was deleted meanwhile (its contacts are gone): the job is being purged.
        logger.warn({ job_id: job.id, monitor_id: ref.id }, 'monitor.contacts_gone');
        return rows;
      }
      const previous = ref.previous_job_id ? await previousVerdicts(ref.id, ref.previous_job_id, keys) : new Map<string, MonitorVerdict>();
      const runRows: RunRow[] = [];
      const annotated = rows.map((r) => {
        const key = keys.get(r.row) as string;
        const verdict = verdictOf(r.result);
        const change = changeOf(previous.get(key) ?? null, verdict);
        runRows.push({ row: r.row, key, ...verdict, change });
        return { ...r, result: { ...r.result, change } };
      });
      await deps.monitors.putRunRows(ref.id, job.id, runRows);
      return annotated;
    },
    async count(job) {
      if (!job.monitor) return null;
      return deps.monitors.countRunChanges(job.monitor.id, job.id);
    },
  };
}
