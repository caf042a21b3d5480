import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../platform/config.ts';
import { createLogger, logFormatFor } from '../platform/logger.ts';
import { openPlatform, openStores, platformKind, type Stores } from '../platform/open-platform.ts';
import { createPipelineEvents, type PipelineEvents } from '../pipeline/events.ts';
import { createSecretBox, parseSecretKey, SecretKeyError } from '../ingest/inbound/secrets.ts';
import { runAdminCommand, USAGE } from './commands.ts';
import { parseAllowHosts } from '../platform/outbound-http/index.ts';
import { AdminInputError } from './organisations.ts';
import { peopleServiceFromConfig } from '../api/people/from-config.ts';
import { createJobDataKeys } from '../platform/keys/data-keys.ts';

/**
 * `npm run admin -- <command>`: organisations, API keys, list and address register versions, on the stores the
 * services use, chosen by the same configuration (open-platform.ts openStores): the DATA_DIR
 * database of the embedded default (the server may be running: SQLite's WAL and busy timeout let
 * both write), or ClickHouse when KAFKA_BROKERS and CLICKHOUSE_URL are set (Kafka is not used).
 *
 * Exit codes: 0 done; 1 the command failed (not found, refused import, I/O); 2 usage or input
 * error; 78 bad configuration.
 */
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_CONFIG = 78;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      allowNegative: true,
      strict: true,
      options: {
        name: { type: 'string' },
        'stop-level': { type: 'string' },
        plan: { type: 'string' },
        'api-agreement': { type: 'boolean' },
        'retention-days': { type: 'string' },
        addons: { type: 'string' },
        org: { type: 'string' },
        mode: { type: 'string' },
        format: { type: 'string' },
        file: { type: 'string' },
        source: { type: 'string' },
        'published-on': { type: 'string' },
        'max-skipped-lines': { type: 'string' },
        activate: { type: 'boolean' },
        job: { type: 'string' },
        month: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        user: { type: 'string' },
        'key-file': { type: 'string' },
        'password-file': { type: 'string' },
        'host-key': { type: 'string' },
        'host-key-file': { type: 'string' },
        path: { type: 'string' },
        locale: { type: 'string' },
        mapping: { type: 'string' },
        options: { type: 'string' },
        address: { type: 'string' },
        url: { type: 'string' },
        every: { type: 'string' },
        'auth-header-file': { type: 'string' },
        monitor: { type: 'string' },
        json: { type: 'boolean' },
        email: { type: 'string' },
        role: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  const [rawGroup, action, ...args] = parsed.positionals;
  if (parsed.values.help || !rawGroup) {
    process.stdout.write(`${USAGE}\n`);
    return parsed.values.help ? 0 : EXIT_USAGE;
  }
  const group = rawGroup === 'organisations' || rawGroup === 'organizations' ? 'orgs' : rawGroup;

  let config;
  try {
    config = loadConfig();
    platformKind(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return EXIT_CONFIG;
  }
  // Logs go to stderr so that stdout holds only the command's answer (keys, ids, JSON).
  const logger = createLogger({
    name: 'robinson-admin', level: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, stderr: true,
    format: logFormatFor(config.LOG_FORMAT, process.stderr),
  });
  let stores: Stores;
  let events: Pick<PipelineEvents, 'publish'> | undefined;
  try {
    if (group === 'payments') {
      // A payment is an event on jobs.events (services/api/billing/payments.ts): this command alone
      // opens the event log too (the embedded one in DATA_DIR, or Kafka).
      const platform = await openPlatform(config, logger, { clientId: 'robinson-admin' });
      events = createPipelineEvents({ log: platform.log, registry: platform.registry, topicPrefix: platform.topicPrefix, dataKeys: platform.jobKeys });
      stores = platform;
    } else {
      stores = await openStores(config, logger);
    }
  } catch (error) {
    // ClickHouse unreachable or refusing the credentials, unreadable database file.
    process.stderr.write(`error: cannot open the stores: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILED;
  }
  try {
    const lines = await runAdminCommand(
      {
        accounts: stores.accounts, lists: stores.lists, addresses: stores.addresses, registers: stores.registers, keys: stores.keys,
        jobs: stores.jobs, usage: stores.usage, logger, ...(events ? { events } : {}),
        // An invited person's TOTP secret is sealed with their own data key (docs/people.md "Second factor").
        people: peopleServiceFromConfig({
          ...stores, jobKeys: createJobDataKeys({ store: stores.dataKeys, keyring: stores.keys, configured: config.DATA_MASTER_KEYS }),
        }, config, logger),
        inbound: { inbound: stores.inbound, monitors: stores.monitors, secrets: () => createSecretBox(parseSecretKey(config.INBOUND_SECRET_KEY)) },
        connectors: {
          connectors: stores.connectors, secrets: () => createSecretBox(parseSecretKey(config.INBOUND_SECRET_KEY)),
          allowHosts: parseAllowHosts(config.CALLBACK_ALLOW_HOSTS), minIntervalSeconds: config.CONNECTOR_MIN_INTERVAL_SECONDS,
          monitors: stores.monitors,
        },
      },
      group, action, args, parsed.values,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof SecretKeyError) {
      process.stderr.write(`error: ${error.message}\n`);
      return EXIT_CONFIG;
    }
    if (error instanceof AdminInputError) {
      process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
      return EXIT_USAGE;
    }
    // Not found, refused import, unreadable file: the message says what and names no personal data.
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILED;
  } finally {
    await stores.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
