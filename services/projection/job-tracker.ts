import { randomUUID } from 'node:crypto';
import { certificateClaims } from '../domain/certificate.ts';
import { isTerminal, transition, type JobCounts } from '../domain/job-state.ts';
import type { JobStatus } from '../domain/check-job.ts';
import { errorFields, type Logger } from '../platform/logger.ts';
import type { JobPatch, JobRecord, JobStore, ResultCounts, ResultRow } from '../platform/store/jobs-port.ts';
import type { UsageStore } from '../platform/store/usage-port.ts';
import type { JobStateChangedEvent, RowsCompleteEvent } from '../pipeline/events.ts';
import { initialDeliveryState, type CallbackEvent } from './callbacks/index.ts';
import type { MonitorRunResults } from '../ingest/monitors/run-results.ts';

/**
 * The projection's view of each job in progress: stores its results, keeps its counts exact and
 * moves it queued → running → done | failed. Every method must run inside the job's serializer
 * slot (job-serializer.ts); the tracker itself does no locking.
 *
 * Counts. The job's counts are always a copy of the store's exact counts (countResults counts
 * distinct rows), never sums of chunks, so a redelivered chunk cannot count twice. Counting costs
 * a query, so it is throttled: at most one per `countIntervalMs` per job while rows arrive. To see
 * completion at once anyway, the tracker keeps an upper bound of the stored rows (the last exact
 * count plus every row written since, duplicates included); only when that bound reaches the row
 * count is an exact count needed to decide. A 1,000,000-row job costs a few dozen counts, not one
 * per chunk.
 *
 * Completion. The job is done when RowsComplete has given its final `row_count` (recorded with
 * `input_sha256`; a job whose input hash is known has its final row count) and the exact count of
 * stored rows reaches it. The transition, final counts, preview, finished_at and the callback's
 * initial delivery state (new Service-Delivery id) are one job write; the state machine refuses a
 * second `complete`, so a redelivered event never completes a job twice.
 */
export interface JobTracker {
  /** Stores result rows; moves a queued job to running; may complete the job. */
  onResults(jobId: string, rows: ResultRow[]): Promise<void>;
  onRowsComplete(event: RowsCompleteEvent): Promise<void>;
  /** Another part of the pipeline (intake, matcher) failed the job. */
  onFailed(jobId: string, error: string): Promise<void>;
  /**
   * A payment was recorded (webhook or admin tool): an awaiting_payment job moves to queued and,
   * when its rows are all in already, to done. Anything else is left as it is (a replay).
   */
  onPaid(jobId: string): Promise<void>;
  /** The trailing count of a job whose rows stopped arriving (called by the throttle timer). */
  refreshIfStale(jobId: string): Promise<void>;
  /** Jobs with a refresh still to do, and when it is due (epoch ms). */
  dueRefreshes(): Array<{ jobId: string; at: number }>;
  /** Forgets every job (they are loaded again from the store when next seen). */
  clear(): void;
}

export interface JobTrackerDeps {
  jobs: JobStore;
  logger: Logger;
  now: () => Date;
  countIntervalMs: number;
  /** Called after a job's state changed (published as JobStateChanged). */
  onStateChanged: (event: JobStateChangedEvent) => Promise<void>;
  /** Called after a job reached done/failed with a pending callback. */
  onFinished: (job: JobRecord) => void;
  /** Signs a done job's certificate (docs/decisions.md §10); absent: done jobs get none. */
  signCertificate?: (claims: object) => Promise<string>;
  /** Where a live job's checked rows are counted for billing (docs/decisions.md §8); absent: nowhere. */
  usage?: UsageStore;
  /**
   * Monitor re-checks (source monitor, docs/monitors.md): each result gets its change before it
   * is stored, and the completing write the change counts. Absent: monitor jobs are plain jobs.
   */
  monitorRuns?: MonitorRunResults;
  /**
   * How many processes store one job's rows side by side (the embedded matcher threads,
   * docs/architecture.md "Projection"); default 1. Only when the exact count is taken changes:
   * see onResults.
   */
  rowWriters?: number;
}

interface Tracked {
  job: JobRecord;
  /** Distinct stored rows at the last exact count. */
  exact: number;
  /** Rows written since that count (an upper bound: redeliveries are included). */
  written: number;
  /** Earliest time of the next progress count (countIntervalMs, or longer when counting is slow). */
  nextCountAt: number;
  /** Counts not yet written to the job record. */
  dirty: boolean;
}

const PREVIEW_ROWS = 20;

export function createJobTracker(deps: JobTrackerDeps): JobTracker {
  const { jobs } = deps;
  const logger = deps.logger.child({ module: 'projection.jobs' });
  const tracked = new Map<string, Tracked>();
  const writers = Math.max(1, deps.rowWriters ?? 1);

  /** The job as this process knows it; its first sighting counts its rows exactly once. */
  async function load(jobId: string): Promise<Tracked | null> {
    const known = tracked.get(jobId);
    if (known) return known;
    const job = await jobs.getJobById(jobId);
    if (!job) return null;
    const t: Tracked = { job, exact: 0, written: 0, nextCountAt: 0, dirty: false };
    if (!isTerminal(job.status)) {
      const counts = await jobs.countResults(jobId);
      t.exact = counts.processed;
      t.nextCountAt = Date.now() + deps.countIntervalMs;
      t.dirty = counts.processed !== job.processed_count;
      tracked.set(jobId, t);
    }
    return t;
  }

  function rowsComplete(job: JobRecord): boolean {
    return job.input_sha256 !== null;
  }

  /** Every row is stored. An unpaid job's rows are matched and stored, but it completes only once paid (onPaid). */
  function completes(job: JobRecord, counts: ResultCounts): boolean {
    return rowsComplete(job) && counts.processed >= job.row_count && job.status !== 'awaiting_payment';
  }

  /**
   * Writes `patch` when `guard` holds for the record as stored at the moment of the write (the
   * store's atomic read-modify-write). Several projection processes may hold a copy of one job
   * (docs/architecture.md "Projection": one owns its results' partition, another its jobs.events
   * partition, a third took over after a rebalance), so every write states what it expects of the
   * record instead of trusting this process's copy. The copy becomes the stored record either way;
   * the answer tells whether this write was the one made.
   */
  async function write(t: Tracked, patch: JobPatch, guard: (job: JobRecord) => boolean): Promise<boolean> {
    let applied = false;
    const next = await jobs.updateJob(t.job.id, patch, (job) => (applied = guard(job)));
    if (next) t.job = next;
    return applied && next !== null;
  }

  /**
   * Publishes JobStateChanged. Informational for other consumers: the job record is already
   * written, so a failed publish is logged, not retried (a redelivered batch would find the job
   * moved on and publish nothing anyway).
   */
  async function changed(job: JobRecord): Promise<void> {
    try {
      await deps.onStateChanged({
        job_id: job.id, org_id: job.org_id, status: job.status, error: job.error,
        changed_at: job.updated_at, processed_count: job.processed_count, finished_at: job.finished_at,
      });
    } catch (error) {
      logger.warn({ job_id: job.id, status: job.status, ...errorFields(error) }, 'job.state_event_lost');
    }
  }

  /**
   * Reads the record again before a write of counts: the API may have deleted the job (DELETE
   * purges its rows) or the intake failed it since this process read it, and then its counts must
   * stay as they were. False (and the job forgotten) when it is no longer open.
   */
  async function stillOpen(t: Tracked): Promise<boolean> {
    const fresh = await jobs.getJobById(t.job.id);
    if (fresh) t.job = fresh;
    if (fresh && !isTerminal(fresh.status)) return true;
    tracked.delete(t.job.id);
    return false;
  }

  /** The exact count, then completion when every row is stored, else the counts written. */
  async function count(t: Tracked): Promise<void> {
    const started = Date.now();
    const counts = await jobs.countResults(t.job.id);
    t.exact = counts.processed;
    t.written = 0;
    const countedAt = Date.now();
    // A count of a large job takes a while (it reads every stored row's status and level): the
    // next progress count waits ten times as long, so counting never costs more than a tenth of
    // the projection's time, whatever the job's size. Completion is still seen at once.
    t.nextCountAt = countedAt + Math.max(deps.countIntervalMs, 10 * (countedAt - started));
    if (completes(t.job, counts)) {
      await finish(t, 'done', countsPatch(counts), null);
      return;
    }
    // No read of the record before this write: the write's own read (the store's atomic
    // read-modify-write) checks the job is open and that the counts only grow (another process may
    // have written a later count), and hands back the record as stored. So a count costs the
    // count and one job write, and a job the API deleted or failed meanwhile keeps its counts.
    if (counts.processed !== t.job.processed_count || t.dirty) {
      await write(t, countsPatch(counts), (job) => !isTerminal(job.status) && job.processed_count <= counts.processed);
      if (isTerminal(t.job.status)) {
        tracked.delete(t.job.id);
        return;
      }
      // Its RowsComplete may have been recorded by the process that read it
      // (docs/architecture.md "Several projection processes").
      if (completes(t.job, counts)) {
        await finish(t, 'done', countsPatch(counts), null);
        return;
      }
    }
    t.dirty = false;
  }

  /** Moves the job to done or failed in one write, with the callback's initial state. */
  async function finish(t: Tracked, status: 'done' | 'failed', counts: Partial<JobCounts>, error: string | null): Promise<void> {
    const path = pathTo(t.job.status, status);
    if (path === null) {
      logger.warn({ job_id: t.job.id, from: t.job.status, to: status }, 'job.transition_refused');
      return;
    }
    const event: CallbackEvent = status === 'done' ? 'check_job.completed' : 'check_job.failed';
    const preview = status === 'done' ? await previewOf(t.job.id) : t.job.preview;
    const finishedAt = deps.now().toISOString();
    // The certificate is part of the completing write: a done job never shows without it.
    const claims = status === 'done' ? certificateClaims({ ...t.job, ...counts }, finishedAt) : null;
    const certificate = claims && deps.signCertificate ? await deps.signCertificate(claims) : null;
    // Usage before the completing write: a crash in between redelivers, and the entry is
    // idempotent on the job id. Test jobs are never counted (docs/decisions.md §3).
    // A job with company or phone checks also counts its rows as company / phone checks (one
    // entry per kind, idempotent on the job id; docs/companies.md "Jobs").
    if (status === 'done' && t.job.mode === 'live' && deps.usage) {
      const count = counts.processed_count ?? t.job.processed_count;
      const month = finishedAt.slice(0, 7);
      await deps.usage.record({ org_id: t.job.org_id, month, kind: 'job_row', count, ref: t.job.id });
      if (t.job.options.check_companies) await deps.usage.record({ org_id: t.job.org_id, month, kind: 'company_check', count, ref: t.job.id });
      if (t.job.options.check_phones) await deps.usage.record({ org_id: t.job.org_id, month, kind: 'phone_check', count, ref: t.job.id });
    }
    // A monitor job's change counts are part of the completing write: its callback carries them.
    const monitorChanges = status === 'done' && t.job.monitor && deps.monitorRuns ? await deps.monitorRuns.count(t.job) : null;
    const delivery = t.job.callback_url ? initialDeliveryState(randomUUID(), event) : null;
    // The state machine's check made against the stored record: of two processes completing one
    // job at once (the one storing its last rows, the one reading its RowsComplete), exactly one
    // write is made, and only its maker dispatches the callback.
    const won = await write(t, {
      ...counts,
      ...(monitorChanges && t.job.monitor ? { monitor: { ...t.job.monitor, changes: monitorChanges } } : {}),
      status,
      error,
      preview,
      finished_at: finishedAt,
      ...(certificate ? { certificate_token: certificate } : {}),
      callback: delivery,
    }, (job) => pathTo(job.status, status) !== null);
    tracked.delete(t.job.id);
    if (!won || t.job.status !== status) return; // finished elsewhere, or deleted meanwhile (the store kept it deleted)
    logger.info({ job_id: t.job.id, status, rows: t.job.processed_count }, status === 'done' ? 'job.done' : 'job.failed');
    if (t.job.callback?.state === 'pending') deps.onFinished(t.job);
    await changed(t.job);
  }

  async function previewOf(jobId: string) {
    const page = await jobs.readResults(jobId, { limit: PREVIEW_ROWS });
    return page.rows.map((row) => ({ cells: row.cells ?? [], result: row.result }));
  }

  async function begin(t: Tracked): Promise<void> {
    if (t.job.status !== 'queued') return;
    if (!(await write(t, { status: 'running' }, (job) => job.status === 'queued'))) return;
    if ((t.job.status as JobStatus) === 'running') await changed(t.job);
  }

  return {
    async onResults(jobId, rows) {
      const t = await load(jobId);
      if (!t) {
        logger.warn({ job_id: jobId, rows: rows.length }, 'results.unknown_job');
        return;
      }
      if (isTerminal(t.job.status)) return; // a late redelivery: the job's rows are final
      const stored = t.job.monitor && deps.monitorRuns ? await deps.monitorRuns.annotate(t.job, rows) : rows;
      await jobs.putResults(jobId, t.job.delete_after, stored);
      t.written += rows.length;
      t.dirty = true;
      await begin(t);
      // With several writers of one job's rows, this process's writes do not bound the stored rows:
      // each counts as soon as the others, writing as fast, may have stored the rest.
      const likelyStored = t.exact + t.written * writers;
      const due = Date.now() >= t.nextCountAt;
      if (due || (rowsComplete(t.job) && likelyStored >= t.job.row_count)) await count(t);
    },

    async onRowsComplete(event) {
      const t = await load(event.job_id);
      if (!t || isTerminal(t.job.status)) return;
      if (!rowsComplete(t.job) || t.job.row_count !== event.row_count) {
        await write(t, { row_count: event.row_count, input_sha256: event.input_sha256 }, (job) => !isTerminal(job.status));
      }
      await count(t);
    },

    async onFailed(jobId, error) {
      const t = await load(jobId);
      if (!t || isTerminal(t.job.status) || !(await stillOpen(t))) return;
      const counts = await jobs.countResults(jobId);
      await finish(t, 'failed', countsPatch(counts), error);
    },

    async onPaid(jobId) {
      // Read again: this process may hold a copy from before the payment.
      tracked.delete(jobId);
      const t = await load(jobId);
      if (!t || t.job.status !== 'awaiting_payment') return;
      const paid = transition(t.job.status, 'pay');
      if (!paid.ok) return;
      await write(t, { status: paid.status }, (job) => job.status === 'awaiting_payment');
      if ((t.job.status as JobStatus) !== 'queued') return; // deleted meanwhile
      // No JobStateChanged of its own: the payer's `queued` event is the record of the payment.
      logger.info({ job_id: jobId }, 'job.paid');
      await count(t);
    },

    async refreshIfStale(jobId) {
      const t = tracked.get(jobId);
      if (!t?.dirty || isTerminal(t.job.status)) return;
      await count(t);
    },

    dueRefreshes() {
      const due: Array<{ jobId: string; at: number }> = [];
      for (const [jobId, t] of tracked) if (t.dirty) due.push({ jobId, at: t.nextCountAt });
      return due;
    },

    clear() {
      tracked.clear();
    },
  };
}

function countsPatch(counts: ResultCounts): JobCounts {
  return {
    processed_count: counts.processed,
    allowed_count: counts.allowed,
    blocked_count: counts.blocked,
    manual_count: counts.manual,
    level_counts: counts.level_counts,
  };
}

/** queued may finish directly (begin + complete/fail); null when the machine refuses. */
function pathTo(from: JobStatus, to: 'done' | 'failed'): JobStatus[] | null {
  const event = to === 'done' ? 'complete' : 'fail';
  let status = from;
  const path: JobStatus[] = [];
  if (status === 'queued' && to === 'done') {
    const began = transition(status, 'begin');
    if (!began.ok) return null;
    status = began.status;
    path.push(status);
  }
  const result = transition(status, event);
  if (!result.ok) return null;
  path.push(result.status);
  return path;
}
