import { ConfigError, loadConfig } from './platform/config.ts';
import { createLogger } from './platform/logger.ts';
import { openPlatform, platformKind } from './platform/open-platform.ts';
import {
  createServiceContext, errorName, installShutdown, SERVICE_NAMES, startService, type RunningService, type ServiceName,
} from './processes.ts';

/**
 * `npm run service -- <api|matcher|projection>`: one service of the distributed deployment in
 * its own process, against Kafka (KAFKA_BROKERS), ClickHouse (CLICKHOUSE_URL) and the Confluent
 * registry (SCHEMA_REGISTRY_URL, else the static one). Several names run several services in one
 * process (`-- matcher projection`). Exit codes: 0 after a graceful SIGTERM, 1 when start fails,
 * 2 for an unknown service name, 78 for bad configuration. The embedded default is `npm start`.
 */
async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !SERVICE_NAMES.includes(name as ServiceName));
  if (names.length === 0 || unknown.length > 0) {
    process.stderr.write(`usage: npm run service -- <${SERVICE_NAMES.join('|')}>...${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}\n`);
    process.exitCode = 2;
    return;
  }
  let config;
  try {
    config = loadConfig();
    if (platformKind(config) !== 'distributed') {
      throw new ConfigError('npm run service needs KAFKA_BROKERS and CLICKHOUSE_URL (the embedded default is npm start)');
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 78;
    return;
  }
  const logger = createLogger({ level: config.LOG_LEVEL, name: `robinson-${names.join('+')}` });
  const running: RunningService[] = [];
  let platform;
  try {
    platform = await openPlatform(config, logger, { clientId: `robinson-${names.join('-')}` });
    const context = createServiceContext(platform, config, logger);
    for (const name of names as ServiceName[]) running.push(await startService(name, context));
    logger.info({ services: names, pid: process.pid }, 'services started');
    const opened = platform;
    installShutdown(() => running, () => opened.close(), logger);
  } catch (error) {
    logger.error({ err: errorName(error) }, 'start failed');
    process.stderr.write(`start failed: ${errorName(error)}\n`);
    for (const service of running.reverse()) await service.stop().catch(() => undefined);
    await platform?.close().catch(() => undefined);
    process.exitCode = 1;
  }
}

await main();
