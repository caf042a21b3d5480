import { errorFields, type Logger } from '../platform/logger.ts';
import type { JobRecord, JobStore } from '../platform/store/jobs-port.ts';
import {
  initialDeliveryState, type CallbackSender, type DeliveryState,
} from './callbacks/index.ts';
import type { JobSerializer } from './job-serializer.ts';

/**
 * Delivers the completion callback of jobs that reached `done` or `failed` (DECISIONS §9), with
 * the state persisted on the job (`callback`) after every attempt.
 *
 * The projection writes the delivery's initial state (its Service-Delivery id and event) in the
 * same job write that records the transition, then calls `dispatch`. After a restart,
 * `resumePending` finds every job whose delivery is still pending and continues its schedule
 * where the stored state left it: one event per job, one delivery id, across any number of
 * restarts. The body is the job as it was at completion (its `callback` showing the initial
 * state), rendered again from the stored record on every attempt, so every retry sends the same
 * bytes: nothing else of a finished job changes.
 */
export interface CallbackDispatcher {
  /** Starts delivering the job's pending callback in the background; a no-op when one runs. */
  dispatch(job: JobRecord): void;
  /** Dispatches every stored pending delivery; returns how many were found. */
  resumePending(): Promise<number>;
  /** Stops waiting between attempts and waits for attempts in flight; pending stays pending. */
  stop(): Promise<void>;
}

export interface CallbackDispatcherDeps {
  jobs: JobStore;
  sender: CallbackSender;
  /** The CheckJob JSON text of a record, exactly as GET /v2/check-jobs/{id} answers. */
  renderJob: (job: JobRecord) => string;
  serializer: JobSerializer;
  logger: Logger;
}

export function createCallbackDispatcher(deps: CallbackDispatcherDeps): CallbackDispatcher {
  const logger = deps.logger.child({ module: 'projection.callbacks' });
  const running = new Map<string, Promise<void>>();
  const abort = new AbortController();

  /** The body as it was at completion: the record with the delivery's initial state. */
  function bodyOf(job: JobRecord, state: DeliveryState): string {
    return deps.renderJob({ ...job, callback: initialDeliveryState(state.delivery_id, state.event) });
  }

  async function persist(jobId: string, state: DeliveryState): Promise<void> {
    await deps.serializer.run(jobId, () => deps.jobs.updateJob(jobId, { callback: state }));
  }

  async function deliver(job: JobRecord): Promise<void> {
    const state = job.callback as DeliveryState | null;
    if (state?.state !== 'pending' || !job.callback_url) return;
    if (job.status === 'deleted') {
      // Its personal data is gone; a body without it would not be the job at completion.
      await persist(job.id, { ...state, state: 'failed', last_error: 'job_deleted', next_attempt_at: null });
      return;
    }
    const final = await deps.sender.deliver(
      { url: job.callback_url, event: state.event, deliveryId: state.delivery_id, body: bodyOf(job, state), secret: job.key_hash },
      { state, signal: abort.signal, onAttempt: (next) => persist(job.id, next) },
    );
    if (final.state === 'pending') logger.info({ job_id: job.id, delivery_id: state.delivery_id }, 'callback.suspended');
  }

  function dispatch(job: JobRecord): void {
    if (abort.signal.aborted || running.has(job.id)) return;
    const task = deliver(job)
      .catch((error: unknown) => {
        // The stored state stays pending: the next start resumes it.
        logger.error({ job_id: job.id, ...errorFields(error) }, 'callback.dispatch_failed');
      })
      .finally(() => running.delete(job.id));
    running.set(job.id, task);
  }

  return {
    dispatch,
    async resumePending() {
      // Pending deliveries are few (each lasts minutes at most), so one page covers them.
      const jobs = await deps.jobs.listPendingCallbacks(10_000);
      for (const job of jobs) dispatch(job);
      if (jobs.length > 0) logger.info({ count: jobs.length }, 'callback.resumed');
      return jobs.length;
    },
    async stop() {
      abort.abort();
      await Promise.all(running.values());
    },
  };
}
