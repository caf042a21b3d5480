import { createClickHouseAccountStore } from '../../services/platform/store/clickhouse/accounts.ts';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { createClickHouseJobStore } from '../../services/platform/store/clickhouse/jobs.ts';
import { createClickHouseListStore } from '../../services/platform/store/clickhouse/lists.ts';
import { accountsStoreContract } from '../contract/accounts-store.contract.ts';
import { jobsStoreContract } from '../contract/jobs-store.contract.ts';
import { listsStoreContract } from '../contract/lists-store.contract.ts';
import { openTestClickHouse } from '../support/clickhouse.ts';
import { servers } from '../support/servers.ts';

/**
 * The store contracts against a real ClickHouse (infra/local/clickhouse.sh: 18.16 here), each
 * suite on a database of its own. Fails, never skips, when the server is missing. `reopen` opens
 * a second connection to the same database, as a restarted process would.
 */
async function openWithReopen(label: string) {
  const { conn, drop } = await openTestClickHouse(label);
  const extra: ClickHouseConnection[] = [];
  return {
    conn,
    reopen(): ClickHouseConnection {
      const second = createClickHouseConnection({ url: servers.clickhouseUrl, database: conn.database });
      extra.push(second);
      return second;
    },
    async close() {
      for (const c of extra) await c.close();
      await drop();
    },
  };
}

jobsStoreContract('clickhouse', async () => {
  const { conn, close } = await openWithReopen('jobs');
  return { store: createClickHouseJobStore(conn), close };
});

accountsStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('accounts');
  return { store: createClickHouseAccountStore(conn), reopen: async () => createClickHouseAccountStore(reopen()), close };
});

listsStoreContract('clickhouse', async () => {
  const { conn, reopen, close } = await openWithReopen('lists');
  return { store: createClickHouseListStore(conn), reopen: async () => createClickHouseListStore(reopen()), close };
});
