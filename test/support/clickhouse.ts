import { randomBytes } from 'node:crypto';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { migrate } from '../../services/platform/store/clickhouse/migrate.ts';
import { ident, sql } from '../../services/platform/store/clickhouse/sql.ts';
import { servers, startHint } from './servers.ts';

/**
 * A migrated database of its own on the test ClickHouse (servers.clickhouseUrl), dropped by
 * `drop()`. Throws, never skips, when the server does not answer: the message says how to start it.
 */
export async function openTestClickHouse(label: string): Promise<{ conn: ClickHouseConnection; drop(): Promise<void> }> {
  const url = servers.clickhouseUrl;
  try {
    const response = await fetch(new URL('/ping', url), { signal: AbortSignal.timeout(3000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  } catch (error) {
    throw new Error(`ClickHouse does not answer at ${url} (${(error as Error).message}); ${startHint}`);
  }
  const database = `robinson_test_${label}_${randomBytes(5).toString('hex')}`;
  const conn = createClickHouseConnection({ url, database });
  await migrate(conn);
  return {
    conn,
    async drop() {
      await conn.command(sql`DROP DATABASE IF EXISTS ${ident(database)}`);
      await conn.close();
    },
  };
}
