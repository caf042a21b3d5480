import { errorFields, type Logger } from '../platform/logger.ts';
import type { UsageStore } from '../platform/store/usage-port.ts';
import type { MonitorRunResults } from '../ingest/monitors/run-results.ts';
import type { JobRecord, JobStore, ResultRow } from '../platform/store/jobs-port.ts';
import type { JobStateChangedEvent, PipelineEvent, PipelineEvents } from '../pipeline/events.ts';
import { createCallbackDispatcher, DEFAULT_CALLBACK_LEASE_MS } from './callback-dispatcher.ts';
import type { CallbackSender } from './callbacks/index.ts';
import { createJobSerializer } from './job-serializer.ts';
import { createStalledIntakeSweeper } from './intake-sweeper.ts';
import { createJobTracker } from './job-tracker.ts';
import { createRetentionSweeper } from './retention.ts';

/**
 * The projection (docs/architecture.md "Flow"): consumes checks.results and jobs.events and turns them into
 * the job records and result rows the API serves, sends completion callbacks, sweeps retention and
 * fails jobs whose intake died mid-publish (intake-sweeper.ts).
 *
 * `handle(events)` is the whole consumer side, independent of the event log: the process wiring
 * (projection-process.ts) calls it with each decoded batch and commits the batch's offsets only
 * after it resolves. Delivery is at least once; every step is idempotent: results on (job_id,
 * row), counts copied from the store's exact counts, transitions refused when already made.
 *
 * One projection per job at a time: everything about a job is keyed by its id, so one partition
 * of each topic owns it; within the process, work on one job is serialised.
 */
export interface Projection {
  /** Fails a job for a reason found outside its events (an unreadable message); idempotent. */
  fail(jobId: string, error: string): Promise<void>;
  /** Applies one batch of decoded events, in order; resolves when they are durable. */
  handle(events: PipelineEvent[]): Promise<void>;
  /** Resumes pending callback deliveries and starts the timers (count refresh, stalled intakes). */
  start(): Promise<void>;
  /** Stops timers and callback waits; waits for work in flight. Pending deliveries stay pending. */
  stop(): Promise<void>;
  /** One retention pass: the process runs it on its retention timer (services/platform/retention.ts, `job-purge`). */
  sweepRetention(): Promise<number>;
  /** One pass failing jobs whose intake died (also run on a timer by start()); returns how many. */
  sweepStalledIntakes(): Promise<number>;
}

export interface ProjectionDeps {
  jobs: JobStore;
  /** To publish JobStateChanged (running, done, failed, deleted) for other consumers. */
  events: Pick<PipelineEvents, 'publish'>;
  callbacks: CallbackSender;
  /** The CheckJob JSON text of a record (api/check-job-json.ts renderCheckJob). */
  renderJob: (job: JobRecord) => string;
  logger: Logger;
  clock?: () => Date;
  /** Least time between two exact counts of one job while its rows arrive. Default 1000 ms. */
  countIntervalMs?: number;
  /**
   * An intake silent this long is dead and its job failed (intake-sweeper.ts). Default 600 s.
   * Checked every quarter of it, between 1 s and 60 s.
   */
  intakeStaleMs?: number;
  /** Signs done jobs' certificates (platform/keys/certificate-keys.ts); absent: none. */
  signCertificate?: (claims: object) => Promise<string>;
  /** Billable usage: live jobs' rows at completion, CheckUsage events of usage.events. */
  usage?: UsageStore;
  /** Monitor re-checks' changes (services/ingest/monitors/run-results.ts); absent: monitor jobs are plain jobs. */
  monitorRuns?: MonitorRunResults;
  /**
   * How long a callback delivery stays with this process beyond its next attempt (callback-dispatcher.ts);
   * pending deliveries of other, dead processes are looked for every four of it. Default 30 s.
   */
  callbackLeaseMs?: number;
  /**
   * Only results are handed to this projection (the embedded matcher storing what it matched,
   * docs/architecture.md "Projection"): `start` runs the count refresh alone. Pending callbacks
   * and stalled intakes are the projection service's, which runs beside it.
   */
  resultsOnly?: boolean;
  /** How many processes store one job's rows side by side (job-tracker.ts); default 1. */
  rowWriters?: number;
}

export const DEFAULT_INTAKE_STALE_MS = 600_000;

export function createProjection(deps: ProjectionDeps): Projection {
  const logger = deps.logger.child({ module: 'projection' });
  const now = deps.clock ?? (() => new Date());
  const countIntervalMs = deps.countIntervalMs ?? 1000;
  const serializer = createJobSerializer();
  const publishState = (value: JobStateChangedEvent) => deps.events.publish({ type: 'JobStateChanged', value });

  const dispatcher = createCallbackDispatcher({
    jobs: deps.jobs, sender: deps.callbacks, renderJob: deps.renderJob, serializer, logger,
    ...(deps.callbackLeaseMs !== undefined ? { leaseMs: deps.callbackLeaseMs } : {}),
  });
  const callbackLeaseMs = deps.callbackLeaseMs ?? DEFAULT_CALLBACK_LEASE_MS;
  const tracker = createJobTracker({
    jobs: deps.jobs, logger, now, countIntervalMs, onStateChanged: publishState, onFinished: (job) => dispatcher.dispatch(job),
    ...(deps.signCertificate ? { signCertificate: deps.signCertificate } : {}),
    ...(deps.usage ? { usage: deps.usage } : {}),
    ...(deps.monitorRuns ? { monitorRuns: deps.monitorRuns } : {}),
    ...(deps.rowWriters ? { rowWriters: deps.rowWriters } : {}),
  });
  const retention = createRetentionSweeper({ jobs: deps.jobs, serializer, logger, now, onDeleted: publishState });
  const intakeStaleMs = deps.intakeStaleMs ?? DEFAULT_INTAKE_STALE_MS;
  const intakes = createStalledIntakeSweeper({
    jobs: deps.jobs, serializer, logger, now, staleMs: intakeStaleMs, fail: (jobId, error) => tracker.onFailed(jobId, error),
  });

  const timers: NodeJS.Timeout[] = [];
  let sweeping: Promise<unknown> | null = null;
  let sweepingIntakes: Promise<unknown> | null = null;

  /** Rows of consecutive ResultsChunks of one job go to the store in one write. */
  async function handleResults(jobId: string, rows: ResultRow[]): Promise<void> {
    await serializer.run(jobId, () => tracker.onResults(jobId, rows));
  }

  async function handleOne(event: PipelineEvent): Promise<void> {
    switch (event.type) {
      case 'RowsComplete':
        await serializer.run(event.value.job_id, () => tracker.onRowsComplete(event.value));
        return;
      case 'JobStateChanged':
        // Only failures and payments reported by other parts move a job; the projection's own
        // events (running, done, failed, deleted; never queued) echo back and change nothing.
        if (event.value.status === 'failed') {
          const { job_id, error } = event.value;
          await serializer.run(job_id, () => tracker.onFailed(job_id, error ?? 'failed'));
        }
        if (event.value.status === 'queued') {
          const { job_id } = event.value;
          await serializer.run(job_id, () => tracker.onPaid(job_id));
        }
        return;
      case 'CheckUsage': {
        // Synchronous checks' usage (published by the API right after it answers); idempotent on the request.
        const { org_id, kind, count, at, request_id, job_id } = event.value;
        const ref = request_id ?? job_id;
        if (deps.usage && ref) await deps.usage.record({ org_id, month: at.slice(0, 7), kind, count, ref });
        return;
      }
      default:
        // JobCreated: the record exists already (the intake creates it before publishing).
        return;
    }
  }

  async function handle(events: PipelineEvent[]): Promise<void> {
    let jobId: string | null = null;
    let rows: ResultRow[] = [];
    const flush = async () => {
      if (jobId !== null && rows.length > 0) await handleResults(jobId, rows);
      jobId = null;
      rows = [];
    };
    for (const event of events) {
      if (event.type === 'ResultsChunk') {
        if (event.value.forgotten) continue; // its job was deleted: nothing of it is stored again
        if (event.value.job_id !== jobId) await flush();
        jobId = event.value.job_id;
        // A decoded RowResult is a ResultRow already (row, result, cells): no object made per row.
        for (const r of event.value.results) rows.push(r);
        continue;
      }
      await flush();
      await handleOne(event);
    }
    await flush();
  }

  function refreshStale(): void {
    const at = Date.now();
    for (const { jobId, at: due } of tracker.dueRefreshes()) {
      if (due > at) continue;
      serializer.run(jobId, () => tracker.refreshIfStale(jobId)).catch((error: unknown) => {
        logger.warn({ job_id: jobId, ...errorFields(error) }, 'projection.count_failed');
      });
    }
  }

  /**
   * The sweep in flight, for stop() to wait on. Its failure is the caller's to handle (the timer
   * logs it); the bookkeeping copy must never reject, or a store that is down (ClickHouse
   * restarting) becomes an unhandled rejection that ends the process.
   */
  function settledCopy(run: Promise<number>, done: () => void): Promise<void> {
    return run.then(() => undefined, () => undefined).finally(done);
  }

  function sweep(): Promise<number> {
    const run = retention.sweep();
    sweeping = settledCopy(run, () => {
      sweeping = null;
    });
    return run;
  }

  function sweepIntakes(): Promise<number> {
    const run = intakes.sweep();
    sweepingIntakes = settledCopy(run, () => {
      sweepingIntakes = null;
    });
    return run;
  }

  return {
    handle,
    fail: (jobId, error) => serializer.run(jobId, () => tracker.onFailed(jobId, error)),
    sweepRetention: sweep,
    sweepStalledIntakes: sweepIntakes,
    async start() {
      if (!deps.resultsOnly) await dispatcher.resumePending();
      timers.push(setInterval(refreshStale, Math.max(50, Math.floor(countIntervalMs / 2))));
      if (!deps.resultsOnly) {
        // Deliveries left by a projection process that died: taken over once their lease ran out.
        // Looked for every four lease periods (a minute by default): the look is a scan of every
        // job record, and a process dying mid-delivery is rare.
        timers.push(setInterval(() => {
          dispatcher.resumePending().catch((error: unknown) => logger.warn(errorFields(error), 'callback.resume_failed'));
        }, 4 * callbackLeaseMs));
        timers.push(setInterval(() => {
          if (sweepingIntakes) return;
          sweepIntakes().catch((error: unknown) => logger.warn(errorFields(error), 'intake.sweep_failed'));
        }, Math.min(60_000, Math.max(1000, Math.floor(intakeStaleMs / 4)))));
      }
      for (const timer of timers) timer.unref();
    },
    async stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
      await dispatcher.stop();
      await sweeping;
      await sweepingIntakes;
      await serializer.idle();
      tracker.clear();
    },
  };
}
