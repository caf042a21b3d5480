/**
 * The pure side of callback delivery (docs/decisions.md §9): when the next attempt is due and how one
 * attempt changes the persisted delivery state. The projection stores the state after every
 * attempt (it is the job's `callback` field), so after a restart it resumes the schedule where it
 * stopped instead of starting it again: together with the job state machine (one `complete`, one
 * `fail`) that keeps one completion event per job, delivered at least once, with one delivery id.
 */
import type { CallbackOutcome } from '../../domain/check-job.ts';

/** First attempt, then a retry 10 s, 60 s and 300 s after the attempt before it. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000];
/** "No answer within 5 seconds" (docs/contract.md Events rule 4). */
export const DEFAULT_TIMEOUT_MS = 5_000;

export type CallbackEvent = 'check_job.completed' | 'check_job.failed';

/**
 * The job's `callback` field: CallbackOutcome (check-job.ts) plus why the last attempt failed, when
 * the next one is due and when it was delivered. Timestamps are ISO 8601 (UTC).
 */
export interface DeliveryState extends CallbackOutcome {
  event: CallbackEvent;
  /** Short machine text (`timeout`, `http_status`, `connect_error:ECONNREFUSED`...), never a body. */
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  /**
   * Until when one projection process holds the delivery (docs/callbacks.md "Several projection
   * processes"); absent or past: any process may take it. Never rendered.
   */
  lease_until?: string | null;
}

/** What one attempt came to. */
export interface AttemptResult {
  /** When the attempt started, epoch ms. */
  at: number;
  ok: boolean;
  /** The HTTP status received; null when there was no answer. */
  statusCode: number | null;
  error: string | null;
  /** False when trying again cannot help (the URL is refused): delivery fails at once. */
  retriable: boolean;
}

export function initialDeliveryState(deliveryId: string, event: CallbackEvent): DeliveryState {
  return {
    delivery_id: deliveryId,
    event,
    state: 'pending',
    attempts: 0,
    last_status: null,
    last_error: null,
    last_attempt_at: null,
    next_attempt_at: null,
    delivered_at: null,
  };
}

/**
 * When attempt number `attempts + 1` is due, in epoch ms: at once (0) when none was made yet,
 * `lastAttemptAt + retryDelaysMs[attempts - 1]` while retries remain, else null.
 */
export function nextAttemptAt(attempts: number, lastAttemptAt: number | null, retryDelaysMs: readonly number[]): number | null {
  if (attempts <= 0) return 0;
  if (attempts > retryDelaysMs.length) return null;
  return (lastAttemptAt ?? 0) + retryDelaysMs[attempts - 1];
}

/** The state after one more attempt. Pure. */
export function recordAttempt(state: DeliveryState, attempt: AttemptResult, retryDelaysMs: readonly number[]): DeliveryState {
  const attempts = state.attempts + 1;
  const common = {
    ...state,
    attempts,
    last_status: attempt.statusCode,
    last_error: attempt.ok ? null : attempt.error,
    last_attempt_at: new Date(attempt.at).toISOString(),
  };
  if (attempt.ok) {
    return { ...common, state: 'delivered', next_attempt_at: null, delivered_at: new Date(attempt.at).toISOString() };
  }
  const next = attempt.retriable ? nextAttemptAt(attempts, attempt.at, retryDelaysMs) : null;
  if (next === null) return { ...common, state: 'failed', next_attempt_at: null };
  return { ...common, state: 'pending', next_attempt_at: new Date(next).toISOString() };
}

/** When the state's next attempt is due (epoch ms), or null when delivery is over. */
export function dueAt(state: DeliveryState, retryDelaysMs: readonly number[]): number | null {
  if (state.state !== 'pending') return null;
  const last = state.last_attempt_at === null ? null : Date.parse(state.last_attempt_at);
  return nextAttemptAt(state.attempts, last, retryDelaysMs);
}

/**
 * CALLBACK_RETRY_DELAYS_MS as configured: comma-separated milliseconds, e.g. `10000,60000,300000`;
 * empty means no retries. Throws RangeError naming the variable for anything else.
 */
export function parseRetryDelays(text: string | undefined): number[] {
  if (text === undefined) return [...DEFAULT_RETRY_DELAYS_MS];
  const parts = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  const delays = parts.map(Number);
  if (parts.some((part) => !/^\d{1,9}$/.test(part)) || delays.length > 10) {
    throw new RangeError('CALLBACK_RETRY_DELAYS_MS: expected up to 10 comma-separated whole milliseconds');
  }
  return delays;
}
