import { mkdtempSync, rmSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { createClickHouseSavedMappingStore } from '../../services/platform/store/clickhouse/saved-mappings.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedSavedMappingStore } from '../../services/platform/store/embedded/saved-mappings.ts';
import { savedMappingStoreContract } from '../contract/saved-mapping-store.contract.ts';
import { openTestClickHouse } from '../support/clickhouse.ts';
import { servers } from '../support/servers.ts';

/** The SavedMappingStore conformance suite on both adapters (ClickHouse 25.8 through the local front, migrated). */
savedMappingStoreContract('embedded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'robinson-saved-mappings-'));
  const path = join(dir, 'robinson.db');
  const handles: DatabaseSync[] = [openEmbeddedDatabase(path)];
  return {
    store: createEmbeddedSavedMappingStore(handles[0]),
    async reopen() {
      const db = openEmbeddedDatabase(path);
      handles.push(db);
      return createEmbeddedSavedMappingStore(db);
    },
    async close() {
      for (const db of handles) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

savedMappingStoreContract('clickhouse', async () => {
  const { conn, drop } = await openTestClickHouse('saved_mappings');
  const extra: ClickHouseConnection[] = [];
  return {
    store: createClickHouseSavedMappingStore(conn),
    async reopen() {
      const second = createClickHouseConnection({ url: servers.clickhouseUrl, database: conn.database });
      extra.push(second);
      return createClickHouseSavedMappingStore(second);
    },
    async close() {
      for (const c of extra) await c.close();
      await drop();
    },
  };
});
