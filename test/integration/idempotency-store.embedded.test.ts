import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedIdempotencyStore } from '../../services/platform/store/embedded/idempotency.ts';
import { idempotencyStoreContract } from '../contract/idempotency-store.contract.ts';

idempotencyStoreContract('embedded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'robinson-idempotency-'));
  const path = join(dir, 'robinson.db');
  const handles: DatabaseSync[] = [openEmbeddedDatabase(path)];
  return {
    store: createEmbeddedIdempotencyStore(handles[0]),
    async reopen() {
      const db = openEmbeddedDatabase(path);
      handles.push(db);
      return createEmbeddedIdempotencyStore(db);
    },
    async close() {
      for (const db of handles) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
