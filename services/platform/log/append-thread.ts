import { Worker } from 'node:worker_threads';
import { errorFields, type Logger } from '../logger.ts';
import type { EventLog, OutgoingMessage } from './port.ts';

/**
 * Appends to the embedded event log from a worker thread with its own connection to the log's
 * file (append-thread-worker.ts): node:sqlite commits synchronously, so an append on the API
 * thread holds every request for the commit's fsync (0.3-4.7 ms measured under load); here it
 * waits in the worker. The embedded deployment's API appends its usage events this way
 * (docs/privacy-and-proof.md "When a check's usage is written"). Appends wake the log's consumers
 * through the log's wake channel, as the API thread's own appends do.
 *
 * Promises what `EventLog.publish` promises (durable when resolved). Should the thread end
 * unexpectedly, appends in flight fail (the caller tries them again) and every later one goes to
 * `fallback`, the calling thread's own log: slower, never lost.
 */
export interface AppendThread extends Pick<EventLog, 'publish'> {
  /** Ends the thread after its appends in flight; later appends go to the fallback. */
  close(): Promise<void>;
}

export interface AppendThreadData {
  /** The embedded event log's database file (Platform `eventLogPath`). */
  logPath: string;
  /** The log's wake channel (open-platform.ts `eventLogWakeChannel`). */
  wakeChannel: string;
}

export interface AppendRequest {
  id: number;
  topic: string;
  messages: readonly OutgoingMessage[];
}

export interface AppendReply {
  id: number;
  error?: string;
}

export async function startAppendThread(
  options: AppendThreadData & { fallback: Pick<EventLog, 'publish'>; logger: Logger },
): Promise<AppendThread> {
  const logger = options.logger.child({ module: 'append-thread' });
  const worker = new Worker(new URL('./append-thread-worker.ts', import.meta.url), {
    workerData: { logPath: options.logPath, wakeChannel: options.wakeChannel } satisfies AppendThreadData,
  });
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let running = true;
  let closing = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  function stopped(reason: Error): void {
    if (!running) return;
    running = false;
    for (const waiting of pending.values()) waiting.reject(reason);
    pending.clear();
  }

  await new Promise<void>((resolve, reject) => {
    worker.once('message', (message: unknown) => (message === 'ready' ? resolve() : reject(new Error('the append thread did not start'))));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the append thread exited (code ${code})`)));
  });
  worker.on('message', (reply: AppendReply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (reply.error === undefined) waiting.resolve();
    else waiting.reject(new Error(reply.error));
  });
  worker.on('error', (error) => {
    logger.error(errorFields(error), 'event_log.append_thread_failed');
    stopped(error instanceof Error ? error : new Error(String(error)));
  });
  worker.on('exit', (code) => {
    if (!closing) logger.error({ code }, 'event_log.append_thread_failed');
    stopped(new Error(`the append thread exited (code ${code})`));
  });

  return {
    publish(topic, messages) {
      if (!running) return options.fallback.publish(topic, messages);
      const id = nextId++;
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, topic, messages } satisfies AppendRequest);
      });
    },

    async close() {
      if (!running) return;
      closing = true;
      // Appends already sent are answered before the thread reads 'close' (messages keep their
      // order); one still unanswered when it exits fails, and its caller tries it again.
      worker.postMessage('close');
      await exited;
      running = false;
    },
  };
}
