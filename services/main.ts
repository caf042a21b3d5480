import type { FastifyInstance } from 'fastify';
import { buildApp } from './api/app.ts';
import type { ListEntry, PersonInput } from './domain/types.ts';
import { seedDemoIfEmpty, type DemoSeed } from './admin/demo-seed.ts';
import { createActiveListIndex } from './lists/active-index.ts';
import { ConfigError, loadConfig, type Config } from './platform/config.ts';
import { createLogger, type Logger } from './platform/logger.ts';
import { createEmbeddedAccountStore } from './platform/store/embedded/accounts.ts';
import { embeddedDatabasePath, openEmbeddedDatabase } from './platform/store/embedded/database.ts';
import { createEmbeddedIdempotencyStore } from './platform/store/embedded/idempotency.ts';
import { createEmbeddedListStore } from './platform/store/embedded/lists.ts';
import { generateCprFileChunks } from './synthetic/generate.ts';

/**
 * The embedded default (`npm start`): every service in one process on one database file,
 * DATA_DIR/robinson.sqlite. No servers to install; a restart keeps every organisation, key and
 * list version. On the very first start it seeds a demo organisation, keys and list (demo-seed.ts).
 */
const DEMO_LIST_ENTRIES = 5000;
const DEMO_LIST_SEED = 20260101;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 78;
    return;
  }
  const logger = createLogger({ level: config.LOG_LEVEL });
  const dbPath = embeddedDatabasePath(config.DATA_DIR);
  const db = openEmbeddedDatabase(dbPath);
  try {
    const accounts = createEmbeddedAccountStore(db);
    const lists = createEmbeddedListStore(db);
    const activeIndex = createActiveListIndex({ listStore: lists, logger });

    const seed = config.DEMO_SEED ? await seedDemoIfEmpty({ accounts, lists, logger }, () => demoListFile()) : null;
    // Build the index before listening, so the first live check does not meet list_not_ready.
    await activeIndex.refresh();

    const app = buildApp({
      config,
      logger,
      accounts,
      lists,
      activeIndex,
      idempotency: createEmbeddedIdempotencyStore(db),
    });
    const address = await app.listen({ port: config.PORT, host: config.HOST });

    // Refreshing picks up a version activated with the admin tool while the server runs.
    const refreshTimer = setInterval(() => {
      activeIndex.refresh().catch((error: unknown) => logger.error({ err: errorName(error) }, 'list index refresh failed'));
    }, config.LIST_REFRESH_SECONDS * 1000);
    refreshTimer.unref();

    printBanner(address, dbPath, seed);
    installShutdown(app, logger, () => {
      clearInterval(refreshTimer);
      db.close();
    });
  } catch (error) {
    // Port in use, unreadable database, ...: one clear line, no stack trace for the operator.
    logger.error({ err: errorName(error) }, 'start failed');
    process.stderr.write(`start failed: ${errorName(error)}\n`);
    db.close();
    process.exitCode = 1;
  }
}

/** The synthetic demo list as a CPR file, streamed through the real importer. */
async function* demoListFile(): AsyncGenerator<Uint8Array> {
  yield* generateCprFileChunks(DEMO_LIST_ENTRIES, DEMO_LIST_SEED);
}

/**
 * What a person starting the service needs to see. Written to stdout, not the log: the keys are
 * shown this once and must not end up in retained logs.
 */
function printBanner(baseUrl: string, dbPath: string, seed: DemoSeed | null): void {
  const lines = [`Robinson check API listening on ${baseUrl}`, `Data: ${dbPath}`];
  const list = seed?.list;
  const account = seed?.account;
  if (list) {
    lines.push(`Seeded a synthetic demo list: ${list.version.entry_count} made-up entries, version ${list.version.id}, active.`);
  }
  if (account) {
    const bearer = (key: string) => `-H "Authorization: Bearer ${key}"`;
    lines.push(
      '',
      `Created the demo organisation ${account.org.id}. Its keys are shown ONCE; only their SHA-256 is stored:`,
      `  test key: ${account.testKey}`,
      `  live key: ${account.liveKey}`,
      '',
      'Try it:',
      `  curl -s ${baseUrl}/v2/checks ${bearer(account.testKey)} -H 'Content-Type: application/json' \\`,
      `    -d '{"people":[{"name":"Anne Robinson","address":"Vestergade 12, 8000 Aarhus C"}]}'`,
    );
    if (list?.sampleEntry) {
      // The live example checks a person of the demo list itself, so it comes back blocked.
      const body = JSON.stringify({ people: [examplePerson(list.sampleEntry)] }).replaceAll("'", "'\\''");
      lines.push(
        `  curl -s ${baseUrl}/v2/checks ${bearer(account.liveKey)} -H 'Content-Type: application/json' \\`,
        `    -d '${body}'`,
      );
    }
    lines.push(`  curl -s ${baseUrl}/v2/list-versions/current ${bearer(account.liveKey)}`);
  } else {
    lines.push(
      'Existing organisations and keys kept; keys are shown only when created. A new key:',
      '  npm run admin -- orgs list',
      '  npm run admin -- keys create --org <ORG_ID> --mode test|live',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** A list entry as a caller would send it: `Hansen,Anne` becomes `Anne Hansen`. */
function examplePerson(entry: ListEntry): PersonInput {
  const { previous: _previous, kvhx: _kvhx, ...person } = entry;
  if (person.name?.includes(',')) {
    const [surname, given] = person.name.split(',', 2);
    person.name = `${given.trim()} ${surname.trim()}`;
  }
  return person;
}

function installShutdown(app: FastifyInstance, logger: Logger, release: () => void): void {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal }, 'shutting down');
    app.close()
      .then(() => {
        release();
        logger.info({}, 'stopped');
        process.exitCode = 0;
      })
      .catch((error: unknown) => {
        logger.error({ err: errorName(error) }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

function errorName(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

await main();
