import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from './platform/config.ts';
import { createLogger } from './platform/logger.ts';
import { startOnPlatform, stopOnPlatform, type StartedPlatform } from './entry-point.ts';
import { errorName, startService, type ServiceName, type ServiceOverrides } from './processes.ts';

/**
 * Entry point of a worker thread running one consumer service (matcher or projection) of the
 * embedded default, so that `npm start` uses both cores: the API and intake on the main thread,
 * matching and projecting beside it. The worker opens its own connection to the same database
 * file and its own embedded event log on it; consumer groups are coordinated per event-log
 * instance, so a group lives in exactly one thread (the main thread does not subscribe the
 * worker's group), or its threads split the partitions by a fixed share (the matcher threads,
 * SubscribeOptions.share). Messages: the parent sends `stop`; the worker answers `started`,
 * `stopped` or `failed`. Opening and starting are the entry points' (services/entry-point.ts
 * startOnPlatform); only how the outcome is told differs: messages here, exit codes there.
 */
export interface ServiceWorkerData {
  name: ServiceName;
  config: Config;
  overrides: ServiceOverrides;
}

export type ServiceWorkerMessage = { type: 'started' } | { type: 'stopped' } | { type: 'failed'; error: string };

const data = workerData as ServiceWorkerData;
const port = parentPort!;
const logger = createLogger({ level: data.config.LOG_LEVEL, format: data.config.LOG_FORMAT, name: `robinson-${data.name}` });
let started: StartedPlatform | undefined;

function send(message: ServiceWorkerMessage): void {
  port.postMessage(message);
}

port.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  (started ? stopOnPlatform(started) : Promise.resolve())
    .then(() => send({ type: 'stopped' }))
    .catch((error: unknown) => send({ type: 'failed', error: errorName(error) }))
    .finally(() => port.close());
});

try {
  started = await startOnPlatform(data.config, logger, async ({ context, running }) => {
    running.push(await startService(data.name, context));
  }, { overrides: data.overrides });
  send({ type: 'started' });
} catch (error) {
  send({ type: 'failed', error: errorName(error) });
  port.close();
}
