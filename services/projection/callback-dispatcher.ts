import { errorFields, type Logger } from '../platform/logger.ts';
import type { JobRecord, JobStore } from '../platform/store/jobs-port.ts';
import {
  initialDeliveryState, type CallbackSender, type DeliveryState,
} from './callbacks/index.ts';
import type { JobSerializer } from './job-serializer.ts';

/**
 * Delivers the completion callback of jobs that reached `done` or `failed` (docs/decisions.md §9), with
 * the state persisted on the job (`callback`) after every attempt.
 *
 * The projection writes the delivery's initial state (its Service-Delivery id and event) in the
 * same job write that records the transition, then calls `dispatch`. After a restart,
 * `resumePending` finds every job whose delivery is still pending and continues its schedule
 * where the stored state left it: one event per job, one delivery id, across any number of
 * restarts. The body is the job as it was at completion (its `callback` showing the initial
 * state), rendered again from the stored record on every attempt, so every retry sends the same
 * bytes: nothing else of a finished job changes.
 *
 * Several projection processes may run (docs/callbacks.md "Several projection processes"): a
 * delivery is made by the process holding its lease (`lease_until` in the stored state, taken by
 * an atomic write that only succeeds when no live lease is there, renewed with every attempt to
 * the next attempt's time plus `leaseMs`). Every process looks for pending deliveries at start and
 * every four `leaseMs` (projection.ts), so one whose process died is taken over once its lease ran out.
 */
export interface CallbackDispatcher {
  /** Starts delivering the job's pending callback in the background; a no-op when one runs. */
  dispatch(job: JobRecord): void;
  /** Dispatches every stored pending delivery no live process holds; returns how many were found. */
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
  /**
   * How long a delivery stays this process's beyond its next attempt's time: longer than one
   * attempt (the callback timeout) plus the write of its outcome. Default 30 s.
   */
  leaseMs?: number;
  /** Epoch ms; default Date.now. */
  now?: () => number;
}

export const DEFAULT_CALLBACK_LEASE_MS = 30_000;

/** Whether a delivery is held by a process (its lease has not run out). */
function held(state: DeliveryState, now: number): boolean {
  return typeof state.lease_until === 'string' && Date.parse(state.lease_until) > now;
}

/** The same delivery at the same point of its schedule (no attempt made since it was read). */
function sameStep(stored: JobRecord['callback'], state: DeliveryState): stored is DeliveryState {
  return stored?.state === 'pending' && stored.delivery_id === state.delivery_id && stored.attempts === state.attempts;
}

export function createCallbackDispatcher(deps: CallbackDispatcherDeps): CallbackDispatcher {
  const logger = deps.logger.child({ module: 'projection.callbacks' });
  const running = new Map<string, Promise<void>>();
  const abort = new AbortController();
  const leaseMs = deps.leaseMs ?? DEFAULT_CALLBACK_LEASE_MS;
  const now = deps.now ?? Date.now;

  /** The lease to store with `state`: to its next attempt plus leaseMs; none once it is over. */
  function leaseFor(state: DeliveryState): string | null {
    if (state.state !== 'pending') return null;
    const next = state.next_attempt_at === null ? now() : Math.max(now(), Date.parse(state.next_attempt_at));
    return new Date(next + leaseMs).toISOString();
  }

  /**
   * Takes the delivery for this process: written only when the stored delivery is still pending at
   * the step `state` was read at and no live lease is on it, so of processes racing for it one
   * wins. The record as taken, or null when another process has it (or it moved on).
   */
  async function claim(jobId: string, state: DeliveryState): Promise<JobRecord | null> {
    let won = false;
    const taken = { ...state, lease_until: leaseFor(state) };
    const job = await deps.serializer.run(jobId, () => deps.jobs.updateJob(jobId, { callback: taken }, (stored) => {
      won = sameStep(stored.callback, state) && !held(stored.callback, now());
      return won;
    }));
    return won ? job : null;
  }

  /** The body as it was at completion: the record with the delivery's initial state. */
  function bodyOf(job: JobRecord, state: DeliveryState): string {
    return deps.renderJob({ ...job, callback: initialDeliveryState(state.delivery_id, state.event) });
  }

  /** Stores the state after an attempt (its lease renewed, or ended), for this delivery only. */
  async function persist(jobId: string, state: DeliveryState, lease: string | null = leaseFor(state)): Promise<void> {
    const stored = { ...state, lease_until: lease };
    await deps.serializer.run(jobId, () => deps.jobs.updateJob(jobId, { callback: stored }, (job) => job.callback?.delivery_id === state.delivery_id));
  }

  async function deliver(listed: JobRecord): Promise<void> {
    const pending = listed.callback as DeliveryState | null;
    if (pending?.state !== 'pending' || !listed.callback_url) return;
    const job = await claim(listed.id, pending);
    if (!job?.callback_url) return; // another process delivers it
    const state = job.callback as DeliveryState;
    if (job.status === 'deleted') {
      // Its personal data is gone; a body without it would not be the job at completion.
      await persist(job.id, { ...state, state: 'failed', last_error: 'job_deleted', next_attempt_at: null });
      return;
    }
    const final = await deps.sender.deliver(
      { url: job.callback_url, event: state.event, deliveryId: state.delivery_id, body: bodyOf(job, state), secret: job.key_hash },
      { state, signal: abort.signal, onAttempt: (next) => persist(job.id, next) },
    );
    if (final.state === 'pending') {
      // Stopped between attempts: the lease goes, so the next process to look resumes it at once.
      await persist(job.id, final, null);
      logger.info({ job_id: job.id, delivery_id: state.delivery_id }, 'callback.suspended');
    }
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
      const listed = await deps.jobs.listPendingCallbacks(10_000);
      const free = listed.filter((job) => !running.has(job.id) && !held(job.callback as DeliveryState, now()));
      for (const job of free) dispatch(job);
      if (free.length > 0) logger.info({ count: free.length }, 'callback.resumed');
      return free.length;
    },
    async stop() {
      abort.abort();
      await Promise.all(running.values());
    },
  };
}
