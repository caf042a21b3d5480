import { ConfigError } from './platform/config.ts';
import { platformKind } from './platform/open-platform.ts';
import { runEntryPoint } from './entry-point.ts';
import { SERVICE_NAMES, startService, type ServiceName } from './processes.ts';

/**
 * `npm run service -- <api|matcher|projection>`: one service of the distributed deployment in
 * its own process, against Kafka (KAFKA_BROKERS), ClickHouse (CLICKHOUSE_URL) and the Confluent
 * registry (SCHEMA_REGISTRY_URL, else the static one). Several names run several services in one
 * process (`-- matcher projection`). Exit codes: 0 after a graceful SIGTERM, 1 when start fails,
 * 2 for an unknown service name, 78 for bad configuration. The embedded default is `npm start`.
 */
const names = process.argv.slice(2);
const unknown = names.filter((name) => !SERVICE_NAMES.includes(name as ServiceName));
if (names.length === 0 || unknown.length > 0) {
  process.stderr.write(`usage: npm run service -- <${SERVICE_NAMES.join('|')}>...${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}\n`);
  process.exitCode = 2;
} else {
  await runEntryPoint({
    loggerName: `robinson-${names.join('+')}`,
    clientId: `robinson-${names.join('-')}`,
    checkConfig(config) {
      if (platformKind(config) !== 'distributed') {
        throw new ConfigError('npm run service needs KAFKA_BROKERS and CLICKHOUSE_URL (the embedded default is npm start)');
      }
    },
    async start({ logger, running, context }) {
      let address: string | undefined;
      for (const name of names as ServiceName[]) {
        const service = await startService(name, context);
        running.push(service);
        if ('address' in service) address = service.address as string;
      }
      // The API's address too: with PORT=0 this is the only place it is told.
      logger.info({ services: names, pid: process.pid, ...(address ? { address } : {}) }, 'process.started');
    },
  });
}
