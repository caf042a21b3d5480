import { mkdtempSync, rmSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { createClickHouseConnectorStore } from '../../services/platform/store/clickhouse/connectors.ts';
import { createEmbeddedConnectorStore } from '../../services/platform/store/embedded/connectors.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { connectorStoreContract } from '../contract/connector-store.contract.ts';
import { openTestClickHouse } from '../support/clickhouse.ts';
import { servers } from '../support/servers.ts';

/** The ConnectorStore conformance suite on both adapters (ClickHouse 25.8 through the local front). */
connectorStoreContract('embedded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'robinson-connectors-'));
  const path = join(dir, 'robinson.db');
  const handles: DatabaseSync[] = [openEmbeddedDatabase(path)];
  return {
    store: createEmbeddedConnectorStore(handles[0]),
    async reopen() {
      const db = openEmbeddedDatabase(path);
      handles.push(db);
      return createEmbeddedConnectorStore(db);
    },
    async close() {
      for (const db of handles) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

connectorStoreContract('clickhouse', async () => {
  const { conn, drop } = await openTestClickHouse('connectors');
  const extra: ClickHouseConnection[] = [];
  return {
    store: createClickHouseConnectorStore(conn),
    async reopen() {
      const second = createClickHouseConnection({ url: servers.clickhouseUrl, database: conn.database });
      extra.push(second);
      return createClickHouseConnectorStore(second);
    },
    async close() {
      for (const c of extra) await c.close();
      await drop();
    },
  };
});
