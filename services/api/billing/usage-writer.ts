import type { CheckUsageEvent, PipelineEvents } from '../../pipeline/events.ts';
import { errorFields, type Logger } from '../../platform/logger.ts';

/**
 * The usage events of live synchronous checks, written in groups off the answer path
 * (docs/privacy-and-proof.md "When a check's usage is written"): a check hands its
 * event over and answers; every event handed over within one turn of the event loop goes to
 * usage.events in one publish (one transaction and one fsync on the embedded log, one produce
 * request on Kafka) once that turn's answers are written.
 *
 * What it promises:
 * - Every event taken is published once: a failed publish is tried again with the events of later
 *   turns behind it (same order), and `close` writes what is still waiting. A publish the log
 *   half-did may leave an event twice on the log; the usage store counts a request id once.
 * - While the log refuses writes, `record` throws: a check is then not answered (500, its
 *   idempotency key released) rather than answered without being billed, as before grouping.
 * What it does not promise: an event of an answered check survives the process dying (killed,
 *   power lost) before its turn's publish resolved; a graceful stop loses none.
 */
export interface UsageWriter {
  /** Takes one event; it is published after this turn. Throws while publishing fails or after `close`. */
  record(event: CheckUsageEvent): void;
  /** Resolves once every event taken before the call is published (tests wait on it). */
  written(): Promise<void>;
  /** Publishes what is waiting, then takes no more. A failure is logged with the count left unwritten. */
  close(): Promise<void>;
}

export interface UsageWriterOptions {
  events: Pick<PipelineEvents, 'publish'>;
  logger: Logger;
  /** Runs a publish after the current turn; default `setImmediate`. Tests hold it to stop before any publish. */
  afterTurn?: (publish: () => void) => void;
  /** Pause before trying a failed publish again; default 200 ms, doubled up to 5 s. */
  retryDelayMs?: number;
}

const MAX_RETRY_DELAY_MS = 5_000;

export function createUsageWriter(options: UsageWriterOptions): UsageWriter {
  const logger = options.logger.child({ module: 'usage-writer' });
  const afterTurn = options.afterTurn ?? ((publish: () => void) => void setImmediate(publish));
  const firstDelay = options.retryDelayMs ?? 200;
  let waiting: CheckUsageEvent[] = [];
  /** Events taken and events published so far: `written()` waits for the first to be reached by the second. */
  let taken = 0;
  let published = 0;
  let waiters: Array<{ upTo: number; resolve: () => void; reject: (error: Error) => void }> = [];
  let scheduled = false;
  let inFlight: Promise<void> | null = null;
  let failure: unknown = null;
  let retryDelay = firstDelay;
  let retryTimer: NodeJS.Timeout | null = null;
  let closed = false;

  function schedule(): void {
    if (scheduled || inFlight || retryTimer) return;
    scheduled = true;
    afterTurn(() => {
      scheduled = false;
      void publishWaiting();
    });
  }

  /** One publish at a time, so a key's events stay in the order they were taken. */
  function publishWaiting(): Promise<void> {
    if (inFlight) return inFlight;
    if (waiting.length === 0) return Promise.resolve();
    const group = waiting;
    waiting = [];
    inFlight = options.events.publish(group.map((value) => ({ type: 'CheckUsage' as const, value }))).then(
      () => {
        inFlight = null;
        failure = null;
        retryDelay = firstDelay;
        published += group.length;
        settleWaiters();
        if (waiting.length > 0 && !closed) schedule();
      },
      (error: unknown) => {
        inFlight = null;
        // Back in front, so the events keep their order; checks are refused until a publish succeeds.
        waiting = group.concat(waiting);
        failure = error;
        logger.error({ ...errorFields(error), events: waiting.length, retry_in_ms: retryDelay }, 'usage.publish_failed');
        if (!closed) retryLater();
      },
    );
    return inFlight;
  }

  function retryLater(): void {
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void publishWaiting();
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, MAX_RETRY_DELAY_MS);
  }

  function settleWaiters(): void {
    const done = waiters.filter((w) => w.upTo <= published);
    waiters = waiters.filter((w) => w.upTo > published);
    for (const w of done) w.resolve();
  }

  return {
    record(event) {
      if (closed) throw new Error('the usage writer is closed');
      if (failure !== null) throw new Error('usage events cannot be written now', { cause: failure });
      waiting.push(event);
      taken += 1;
      schedule();
    },

    written() {
      if (published >= taken) return Promise.resolve();
      return new Promise((resolve, reject) => waiters.push({ upTo: taken, resolve, reject }));
    },

    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      // A publish in flight first (its events may come back to `waiting` if it fails), then the rest.
      if (inFlight) await inFlight;
      await publishWaiting();
      if (waiting.length > 0) {
        logger.error({ events: waiting.length }, 'usage.unwritten_at_close');
        const error = new Error(`${waiting.length} usage events were not written`);
        for (const w of waiters.splice(0)) w.reject(error);
      }
    },
  };
}
