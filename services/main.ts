import type { ListEntry, PersonInput } from './domain/types.ts';
import { seedDemoIfEmpty, type DemoSeed } from './admin/demo-seed.ts';
import { runEntryPoint } from './entry-point.ts';
import { createServiceContext, startApi, startInbound, startMonitorService, startServiceInWorker } from './processes.ts';
import { generateCprFileChunks } from './synthetic/generate.ts';

/**
 * The embedded default (`npm start`): every service in one process on one database file,
 * DATA_DIR/robinson.sqlite: the API, a matcher and the projection, joined by the embedded event
 * log in the same file. No servers to install; a restart keeps every organisation, key, list
 * version and job (a job cut short resumes from the log's committed offsets). On the very first
 * start it seeds a demo organisation, keys and list (demo-seed.ts). With KAFKA_BROKERS and
 * CLICKHOUSE_URL set, the same process runs all services on the distributed adapters.
 */
const DEMO_LIST_ENTRIES = 5000;
const DEMO_LIST_SEED = 20260101;

await runEntryPoint({
  async start({ platform, config, logger, running }) {
    const context = createServiceContext(platform, config, logger);
    const seed = config.DEMO_SEED
      ? await seedDemoIfEmpty({ accounts: platform.accounts, lists: platform.lists, logger }, () => demoListFile())
      : null;
    // Consumers first, so jobs left from the last run continue while the API starts; the API
    // builds the index before listening, so the first live check does not meet list_not_ready.
    // Matching and projecting run in worker threads (the second core), on the same file.
    running.push(await startServiceInWorker('projection', config));
    running.push(await startServiceInWorker('matcher', config));
    const api = await startApi(context);
    running.push(api);
    // Monitors (docs/monitors.md): re-checks at every new list version, on the main thread (it
    // mostly waits; the matching and projecting of its jobs run in the workers).
    running.push(await startMonitorService(context));
    // The inbound channels run when configured: SFTP drop folders need the key that seals their
    // credentials, email needs the mailbox (docs/inbound.md).
    if (config.INBOUND_SECRET_KEY) running.push(await startInbound('sftp', context));
    // Connectors' auth headers are sealed with the same key (docs/connectors.md).
    if (config.INBOUND_SECRET_KEY) running.push(await startInbound('connectors', context));
    if (config.IMAP_HOST) running.push(await startInbound('email', context));
    printBanner(api.address, platform.databasePath, seed);
  },
});

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

