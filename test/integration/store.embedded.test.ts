import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedJobStore } from '../../services/platform/store/embedded/jobs.ts';
import { jobsStoreContract } from '../contract/jobs-store.contract.ts';

/** The store contracts against the embedded adapters, each on its own database file. */
function freshDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'robinson-store-'));
  const db = openEmbeddedDatabase(join(dir, 'robinson.db'));
  return {
    db,
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

jobsStoreContract('embedded', async () => {
  const { db, close } = freshDatabase();
  return { store: createEmbeddedJobStore(db), close };
});
