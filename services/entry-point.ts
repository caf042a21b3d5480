import { ConfigError, loadConfig, type Config } from './platform/config.ts';
import { createLogger, errorFields, logFormatFor, type Logger } from './platform/logger.ts';
import { openPlatform, platformKind, type Platform } from './platform/open-platform.ts';
import { errorName, installShutdown, type RunningService } from './processes.ts';

/** What an entry point starts once its platform is open. */
export interface EntryPointStart {
  platform: Platform;
  config: Config;
  logger: Logger;
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
  const running: RunningService[] = [];
  let platform: Platform | undefined;
  try {
    platform = await openPlatform(config, logger, options.clientId ? { clientId: options.clientId } : {});
    await options.start({ platform, config, logger, running });
    const opened = platform;
    installShutdown(() => running, () => opened.close(), logger);
  } catch (error) {
    // Port in use, unreadable database, ...: one clear line, no stack trace for the operator.
    logger.error(errorFields(error), 'process.start_failed');
    process.stderr.write(`start failed: ${errorName(error)}\n`);
    for (const service of running.reverse()) await service.stop().catch(() => undefined);
    await platform?.close().catch(() => undefined);
    process.exitCode = 1;
  }
}
