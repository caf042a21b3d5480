import type { ListEntry, PersonInput } from './domain/types.ts';
import { seedDemoIfEmpty, type DemoSeed } from './admin/demo-seed.ts';
import { runEntryPoint } from './entry-point.ts';
import { embeddedServices, startPlanned, type RunningApi } from './processes.ts';
import { generateCprFileChunks } from './synthetic/generate.ts';

/**
 * The embedded default (`npm start`): every service in one process on one database file,
 * DATA_DIR/robinson.sqlite: the API, the matchers (which store their results themselves) and the
 * projection, joined by the embedded event log. No servers to install; a restart keeps every
 * organisation, key, list version and job (a job cut short resumes from the log's committed offsets). On the very first
 * start it seeds a demo organisation, keys and list (demo-seed.ts). With KAFKA_BROKERS and
 * CLICKHOUSE_URL set, the same process runs all services on the distributed adapters. Which
 * services run, in which order and thread, is `embeddedServices` (processes.ts).
 */
const DEMO_LIST_ENTRIES = 5000;
const DEMO_LIST_SEED = 20260101;

await runEntryPoint({
  async start({ platform, config, logger, running, context }) {
    const seed = config.DEMO_SEED
      ? await seedDemoIfEmpty({ accounts: platform.accounts, lists: platform.lists, logger }, () => demoListFile())
      : null;
    let address = '';
    for (const planned of embeddedServices(config)) {
      const service = await startPlanned(planned, context);
      running.push(service);
      if (planned.name === 'api') address = (service as RunningApi).address;
    }
    printBanner(address, platform.databasePath, seed);
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
      `People sign in to the page at ${baseUrl}/ once invited (an SMTP relay is needed, docs/people.md):`,
      `  npm run admin -- users invite --org ${account.org.id} --email you@example.dk`,
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

