/**
 * The webhook sender (docs/decisions.md §9): POSTs a job's completion event to its `callback_url`, signed,
 * retrying on the schedule until a 2xx or the schedule is exhausted.
 *
 * Promises: every attempt re-checks the URL (https, public addresses only, unless allow-listed)
 * and connects to the address it checked; every attempt carries the same `Service-Delivery` id and
 * body, with a fresh signature timestamp; `attemptDelivery` never throws; `deliver` reports each
 * attempt to `onAttempt` before it sleeps, so the caller can persist it and, after a restart, pass
 * the stored state back to resume the schedule. Does not promise: exactly-once delivery (a receiver
 * that got the request but whose answer was lost sees it again: it should dedupe on the id).
 */
import { isPermanent } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import { httpsPost } from './https-post.ts';
import {
  DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS, dueAt, initialDeliveryState, recordAttempt,
  type AttemptResult, type CallbackEvent, type DeliveryState,
} from './schedule.ts';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signCallback } from '../../platform/webhook-signature.ts';
import { CallbackUrlError, checkCallbackUrl, type LookupAll } from '../../platform/outbound-http/index.ts';

export interface CallbackClock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`, or early (without error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: CallbackClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

const TIMED_OUT = Symbol('timed out');

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface CallbackRequest {
  url: string;
  event: CallbackEvent;
  /** The Service-Delivery id: one per event, the same on every retry. */
  deliveryId: string;
  /** The CheckJob JSON, exactly as sent and signed. */
  body: string;
  /** Hex SHA-256 of the API key that created the job (the stored key hash). */
  secret: string;
}

export interface DeliverOptions {
  /** A stored state to resume from (after a restart); a new delivery starts without one. */
  state?: DeliveryState;
  /** Called after every attempt with the new state; awaited before the next sleep. */
  onAttempt?: (state: DeliveryState) => void | Promise<void>;
  /** Stops waiting for the next attempt (shutdown); `deliver` then returns the pending state. */
  signal?: AbortSignal;
}

export interface CallbackSender {
  attemptDelivery(request: CallbackRequest): Promise<AttemptResult>;
  deliver(request: CallbackRequest, options?: DeliverOptions): Promise<DeliveryState>;
}

export interface CallbackSenderDeps {
  clock?: CallbackClock;
  logger: Logger;
  timeoutMs?: number;
  retryDelaysMs?: readonly number[];
  /** Hosts exempt from the address check (CALLBACK_ALLOW_HOSTS), for test receivers. */
  allowHosts?: readonly string[];
  /** Extra trusted CA certificates (test receivers with their own certificate). */
  ca?: string | Buffer | Array<string | Buffer>;
  lookup?: LookupAll;
  userAgent?: string;
}

export function createCallbackSender(deps: CallbackSenderDeps): CallbackSender {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger.child({ module: 'callbacks' });
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retryDelaysMs = deps.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const userAgent = deps.userAgent ?? 'robinson-check-callbacks/1';

  async function attemptDelivery(request: CallbackRequest): Promise<AttemptResult> {
    const at = clock.now();
    const started = performance.now();
    let target;
    try {
      // Resolving the host counts against the attempt's time: a DNS server that does not answer
      // is no answer.
      target = await withTimeout(
        checkCallbackUrl(request.url, { allowHosts: deps.allowHosts, lookup: deps.lookup }),
        timeoutMs,
      );
    } catch (error) {
      if (error === TIMED_OUT) return { at, ok: false, statusCode: null, error: 'timeout', retriable: true };
      if (!(error instanceof CallbackUrlError)) throw error;
      const detail = error.detail ? `:${error.detail}` : '';
      return { at, ok: false, statusCode: null, error: `url_${error.reason}${detail}`, retriable: !isPermanent(error) };
    }
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': userAgent,
      [SIGNATURE_HEADER]: signCallback(request.body, request.secret, Math.floor(at / 1000), { deliveryId: request.deliveryId, event: request.event }),
      [EVENT_HEADER]: request.event,
      [DELIVERY_HEADER]: request.deliveryId,
    };
    const remainingMs = Math.max(1, timeoutMs - (performance.now() - started));
    const result = await httpsPost(target, headers, request.body, { timeoutMs: remainingMs, ca: deps.ca });
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const error = ok ? null : (result.error ?? 'http_status');
    return { at, ok, statusCode: result.statusCode, error, retriable: true };
  }

  async function deliver(request: CallbackRequest, options: DeliverOptions = {}): Promise<DeliveryState> {
    let state = options.state ?? initialDeliveryState(request.deliveryId, request.event);
    for (;;) {
      const due = dueAt(state, retryDelaysMs);
      if (due === null) return state;
      const wait = due - clock.now();
      if (wait > 0) await clock.sleep(wait, options.signal);
      if (options.signal?.aborted) return state;
      const attempt = await attemptDelivery(request);
      state = recordAttempt(state, attempt, retryDelaysMs);
      const log = { delivery_id: request.deliveryId, event: request.event, attempt: state.attempts, status_code: attempt.statusCode, error: attempt.error, state: state.state };
      if (state.state === 'failed') logger.warn(log, 'callback.failed');
      else if (state.state === 'delivered') logger.info(log, 'callback.delivered');
      else logger.info(log, 'callback.attempt_failed');
      await options.onAttempt?.(state);
    }
  }

  return { attemptDelivery, deliver };
}
