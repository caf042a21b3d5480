import { ConfigError, loadConfig } from '../../config.ts';
import { createLogger, logFormatFor } from '../../logger.ts';
import { openClickHouseStores } from './stores.ts';

/**
 * `node services/platform/store/clickhouse/migrate-main.ts`: applies pending ClickHouse migrations
 * to CLICKHOUSE_URL / CLICKHOUSE_DATABASE and exits (docker-compose runs it once before the
 * services; they migrate on start too, which is a no-op by then). Exit 78 on bad configuration.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 78;
    return;
  }
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'clickhouse-migrate', format: logFormatFor(config.LOG_FORMAT, process.stdout) });
  if (!config.CLICKHOUSE_URL) {
    logger.error({ variable: 'CLICKHOUSE_URL' }, 'clickhouse.url_missing');
    process.exitCode = 78;
    return;
  }
  const stores = await openClickHouseStores({ ...config, CLICKHOUSE_URL: config.CLICKHOUSE_URL }, { logger });
  await stores.close();
  logger.info({ database: stores.connection.database }, 'clickhouse.schema_current');
}

await main();
