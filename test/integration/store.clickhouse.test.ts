import { createClickHouseJobStore } from '../../services/platform/store/clickhouse/jobs.ts';
import { jobsStoreContract } from '../contract/jobs-store.contract.ts';
import { openTestClickHouse } from '../support/clickhouse.ts';

/**
 * The store contracts against a real ClickHouse (infra/local/clickhouse.sh: 18.16 here), each on
 * a database of its own. Fails, never skips, when the server is missing.
 */
jobsStoreContract('clickhouse', async () => {
  const { conn, drop } = await openTestClickHouse('jobs');
  return { store: createClickHouseJobStore(conn), close: drop };
});
