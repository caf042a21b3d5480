import type { ListEntry } from '../domain/types.ts';
import { activateListVersion, importListVersion } from '../lists/import.ts';
import type { Logger } from '../platform/logger.ts';
import type { Organisation } from '../platform/store/accounts-port.ts';
import type { AccountStore } from '../platform/store/accounts-port.ts';
import type { ListStore, ListVersion } from '../platform/store/lists-port.ts';
import { issueApiKey } from './keys.ts';
import { createOrganisation } from './organisations.ts';

/**
 * First start of the embedded default: a demo organisation with one test and one live key, and a
 * small synthetic list version, activated, so `npm start` answers real checks at once. Runs only
 * on an empty database (no organisations, no list versions); afterwards nothing is seeded again
 * and keys are never shown again.
 */
export interface DemoSeed {
  org: Organisation;
  testKey: string;
  liveKey: string;
  version: ListVersion;
  /** One entry of the demo list (synthetic, not a real person), for the example curl command. */
  sampleEntry: ListEntry | null;
}

export interface DemoSeedDeps {
  accounts: AccountStore;
  lists: ListStore;
  logger: Logger;
  now?: () => Date;
}

export async function seedDemoIfEmpty(
  deps: DemoSeedDeps,
  demoList: () => AsyncIterable<Uint8Array>,
): Promise<DemoSeed | null> {
  const now = deps.now ?? (() => new Date());
  const [orgs, versions] = await Promise.all([deps.accounts.listOrganisations(), deps.lists.listListVersions()]);
  if (orgs.length > 0 || versions.length > 0) return null;

  const org = await createOrganisation(deps.accounts, { name: 'Demo organisation', addons: ['phone', 'company'] }, now());
  const testKey = (await issueApiKey(deps.accounts, org.id, 'test', now())).key;
  const liveKey = (await issueApiKey(deps.accounts, org.id, 'live', now())).key;

  const storeDeps = { listStore: deps.lists, logger: deps.logger, now };
  const { version } = await importListVersion(storeDeps, { source: 'cpr', format: 'cpr', chunks: demoList() });
  const activated = await activateListVersion(storeDeps, version.id);
  let sampleEntry: ListEntry | null = null;
  for await (const chunk of deps.lists.readListEntries(version.id, 100)) {
    sampleEntry = chunk.find((e) => !e.previous) ?? null;
    break;
  }
  deps.logger.info({ org_id: org.id, list_version_id: activated.id, entry_count: activated.entry_count }, 'demo organisation and list seeded');
  return { org, testKey, liveKey, version: activated, sampleEntry };
}
