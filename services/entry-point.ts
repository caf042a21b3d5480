import { ConfigError, loadConfig, type Config } from './platform/config.ts';
import { createLogger, errorFields, logFormatFor, type Logger } from './platform/logger.ts';
import { openPlatform, platformKind, type Platform } from './platform/open-platform.ts';
import {
  createServiceContext, errorName, installShutdown, type RunningService, type ServiceContext, type ServiceOverrides,
} from './processes.ts';

/** What an entry point starts once its platform is open. */
export interface EntryPointStart {
  platform: Platform;
  config: Config;
  logger: Logger;
  /** The services' shared parts (list index, registers) on this platform: one per process. */
  context: ServiceContext;
  /** Push each service as it starts: a failed start stops them, SIGTERM stops them in reverse. */
  running: RunningService[];
}

/**
 * The skeleton both service entry points share (services/main.ts, services/run-service.ts): read
 * the configuration (one line on stderr and exit 78 when it is bad, is half of the distributed
 * one, or `checkConfig` refuses it), open the platform, run `start`, then stop gracefully on
 * SIGTERM. A failed start is one line on stderr and exit 1, after stopping whatever had started.
 */
export async function runEntryPoint(options: {
  loggerName?: string;
  clientId?: string;
  /** Throws a ConfigError for a configuration this entry point cannot run on. */
  checkConfig?: (config: Config) => void;
  start(started: EntryPointStart): Promise<void>;
}): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    // Half of the distributed configuration is bad configuration (78), not a failed start (1).
    platformKind(config);
    options.checkConfig?.(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 78;
    return;
  }
  // Decided once, on the main thread: a worker thread's stdout is never a terminal.
  config = { ...config, LOG_FORMAT: logFormatFor(config.LOG_FORMAT, process.stdout) };
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, ...(options.loggerName ? { name: options.loggerName } : {}) });
  const shutdown = installShutdown(logger);
  try {
    const { platform, running } = await startOnPlatform(config, logger, options.start, options.clientId ? { clientId: options.clientId } : {});
    shutdown.started(running, () => platform.close());
  } catch (error) {
    shutdown.failed();
    // Port in use, unreadable database, ...: one clear line, no stack trace for the operator.
    logger.error(errorFields(error), 'process.start_failed');
    process.stderr.write(`start failed: ${errorName(error)}\n`);
    process.exitCode = 1;
  }
}

/** A platform and the services started on it, in start order. */
export interface StartedPlatform {
  platform: Platform;
  running: RunningService[];
}

/**
 * Open the platform, then start: what every process does, whatever says when it stops (SIGTERM in
 * runEntryPoint, the parent's `stop` in services/service-worker.ts). When either fails, whatever
 * had started is stopped in reverse, the platform closed, and the error thrown.
 */
export async function startOnPlatform(
  config: Config,
  logger: Logger,
  start: (started: EntryPointStart) => Promise<void>,
  options: { clientId?: string; overrides?: ServiceOverrides } = {},
): Promise<StartedPlatform> {
  const running: RunningService[] = [];
  let platform: Platform | undefined;
  try {
    platform = await openPlatform(config, logger, options.clientId ? { clientId: options.clientId } : {});
    await start({ platform, config, logger, running, context: createServiceContext(platform, config, logger, options.overrides) });
    return { platform, running };
  } catch (error) {
    for (const service of running.reverse()) await service.stop().catch(() => undefined);
    await platform?.close().catch(() => undefined);
    throw error;
  }
}

/** Stops the services in reverse start order, then closes their platform. */
export async function stopOnPlatform(started: StartedPlatform): Promise<void> {
  for (const service of [...started.running].reverse()) await service.stop();
  await started.platform.close();
}
