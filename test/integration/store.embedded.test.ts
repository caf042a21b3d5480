import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { createEmbeddedAccountStore } from '../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedInboundStore } from '../../services/platform/store/embedded/inbound.ts';
import { createEmbeddedJobStore } from '../../services/platform/store/embedded/jobs.ts';
import { createEmbeddedKeyRing } from '../../services/platform/store/embedded/keyring.ts';
import { createEmbeddedListStore } from '../../services/platform/store/embedded/lists.ts';
import { createEmbeddedAddressStore } from '../../services/platform/store/embedded/addresses.ts';
import { addressesStoreContract } from '../contract/addresses-store.contract.ts';
import { createEmbeddedRegisterStore } from '../../services/platform/store/embedded/registers.ts';
import { accountsStoreContract } from '../contract/accounts-store.contract.ts';
import { inboundStoreContract } from '../contract/inbound-store.contract.ts';
import { jobsStoreContract } from '../contract/jobs-store.contract.ts';
import { keyRingContract } from '../contract/keyring.contract.ts';
import { dataKeyStoreContract } from '../contract/data-keys.contract.ts';
import { rateUsageStoreContract } from '../contract/rate-usage.contract.ts';
import { createEmbeddedRateUsageStore } from '../../services/platform/store/embedded/rate-usage.ts';
import { createEmbeddedDataKeyStore } from '../../services/platform/store/embedded/data-keys.ts';
import { usageStoreContract } from '../contract/usage-store.contract.ts';
import { createEmbeddedUsageStore } from '../../services/platform/store/embedded/usage.ts';
import { listsStoreContract } from '../contract/lists-store.contract.ts';
import { monitorsStoreContract } from '../contract/monitors-store.contract.ts';
import { createEmbeddedMonitorStore } from '../../services/platform/store/embedded/monitors.ts';
import { registersStoreContract } from '../contract/registers-store.contract.ts';

/**
 * The store contracts against the embedded adapters, each suite on its own database file.
 * `reopen` opens the same file again, as a restarted process would.
 */
function freshDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'robinson-store-'));
  const path = join(dir, 'robinson.db');
  const handles: DatabaseSync[] = [openEmbeddedDatabase(path)];
  return {
    db: handles[0],
    path,
    reopen(): DatabaseSync {
      const db = openEmbeddedDatabase(path);
      handles.push(db);
      return db;
    },
    async close() {
      for (const db of handles) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

jobsStoreContract('embedded', async () => {
  const { db, close } = freshDatabase();
  return { store: createEmbeddedJobStore(db), close };
});

accountsStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedAccountStore(db), reopen: async () => createEmbeddedAccountStore(reopen()), close };
});

listsStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedListStore(db), reopen: async () => createEmbeddedListStore(reopen()), close };
});

inboundStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedInboundStore(db), reopen: async () => createEmbeddedInboundStore(reopen()), close };
});

registersStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedRegisterStore(db), reopen: async () => createEmbeddedRegisterStore(reopen()), close };
});

keyRingContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { keys: createEmbeddedKeyRing(db), reopen: async () => createEmbeddedKeyRing(reopen()), close };
});

dataKeyStoreContract('embedded', async () => {
  const { db, reopen, close, path } = freshDatabase();
  const raw = (file: string) => (existsSync(file) ? readFileSync(file).toString('latin1') : '');
  return {
    store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db),
    reopen: async () => {
      const second = reopen();
      return { store: createEmbeddedDataKeyStore(second), keyring: createEmbeddedKeyRing(second) };
    },
    rawContent: async () => raw(path) + raw(`${path}-wal`),
    close,
  };
});

rateUsageStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedRateUsageStore(db), reopen: async () => createEmbeddedRateUsageStore(reopen()), close };
});

addressesStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedAddressStore(db), reopen: async () => createEmbeddedAddressStore(reopen()), close };
});

usageStoreContract('embedded', async () => {
  const { db, close } = freshDatabase();
  return { usage: createEmbeddedUsageStore(db), close };
});

monitorsStoreContract('embedded', async () => {
  const { db, reopen, close } = freshDatabase();
  return { store: createEmbeddedMonitorStore(db), reopen: async () => createEmbeddedMonitorStore(reopen()), close };
});
