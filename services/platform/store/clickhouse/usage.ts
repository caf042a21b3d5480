import type { UsageStore, UsageTotal } from '../usage-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * UsageStore on ClickHouse (migration 009_usage_entries.sql). The sort key holds (kind, ref), so
 * a usage event recorded twice is one row after FINAL; month and org lead it for the monthly sum.
 * An entry's org and month never change for a ref, so the duplicates always share one key.
 */
export function createClickHouseUsageStore(conn: ClickHouseConnection): UsageStore {
  const table = conn.table('usage_entries');
  return {
    async record(entry) {
      await conn.insert('usage_entries', [{ ...entry }]);
    },
    async monthly(month) {
      const rows = await conn.rows<UsageTotal>(sql`SELECT org_id, kind, sum(count) AS count, count() AS entries
        FROM ${table} FINAL WHERE month = ${month} GROUP BY org_id, kind ORDER BY org_id, kind`);
      return rows.map((r) => ({ org_id: r.org_id, kind: r.kind, count: Number(r.count), entries: Number(r.entries) }));
    },
  };
}
