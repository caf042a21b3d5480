import type { ListEntry } from '../domain/types.ts';
import { activateListVersion, importListVersion } from '../registers/lists/import.ts';
import type { Logger } from '../platform/logger.ts';
import type { AccountStore, Organisation } from '../platform/store/accounts-port.ts';
import type { ListStore, ListVersion } from '../platform/store/lists-port.ts';
import { issueApiKey } from './keys.ts';
import { createOrganisation } from './organisations.ts';

/**
 * First start of the embedded default: a demo organisation with one test and one live key, and a
 * small synthetic list version, activated, so `npm start` answers real checks at once.
 *
 * The two halves are independent: the organisation is seeded only when there is no organisation
 * at all, the list only when there is no list version at all. So a first start cut short heals on
 * the next start, and an operator's own data is never joined by demo data of the same kind.
 * Keys exist in clear text only in the returned value, to be shown once.
 */
export interface DemoSeed {
  account: { org: Organisation; testKey: string; liveKey: string } | null;
  list: {
    version: ListVersion;
    /** One current-address entry of the demo list (synthetic), for the example curl command. */
    sampleEntry: ListEntry | null;
  } | null;
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
): Promise<DemoSeed> {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger.child({ module: 'demo-seed' });
  const seed: DemoSeed = { account: null, list: null };

  if ((await deps.lists.listListVersions()).length === 0) {
    const storeDeps = { listStore: deps.lists, logger: deps.logger, now };
    const { version } = await importListVersion(storeDeps, { source: 'cpr', format: 'cpr', chunks: demoList() });
    const activated = await activateListVersion(storeDeps, version.id);
    let sampleEntry: ListEntry | null = null;
    for await (const chunk of deps.lists.readListEntries(version.id, 100)) {
      sampleEntry = chunk.find((e) => !e.previous) ?? null;
      break;
    }
    seed.list = { version: activated, sampleEntry };
    logger.info({ list_version_id: activated.id, entry_count: activated.entry_count }, 'demo.list_seeded');
  }

  if ((await deps.accounts.listOrganisations()).length === 0) {
    const org = await createOrganisation(deps.accounts, { name: 'Demo organisation', addons: ['phone', 'company'] }, now());
    const testKey = (await issueApiKey(deps.accounts, org.id, 'test', now())).key;
    const liveKey = (await issueApiKey(deps.accounts, org.id, 'live', now())).key;
    seed.account = { org, testKey, liveKey };
    logger.info({ org_id: org.id }, 'demo.organisation_seeded');
  }
  return seed;
}
