import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createEmbeddedEventLog } from '../../services/platform/log/embedded.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { eventLogContract } from '../contract/event-log.contract.ts';

// Every client opens its own connection to one database file, as a restarted process would.
const dir = mkdtempSync(join(tmpdir(), 'event-log-embedded-'));
const path = join(dir, 'log.sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventLogContract('embedded', async () => {
  const db = openEmbeddedDatabase(path);
  const log = createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 50 });
  return {
    ...log,
    close: async () => {
      await log.close();
      db.close();
    },
  };
});
