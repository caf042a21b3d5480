import type { RateTotal, RateUsageStore } from '../rate-usage-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/** RateUsageStore on ClickHouse (migration 012, rate_usage; rows expire by TTL after 10 minutes). */
export function createClickHouseRateUsageStore(conn: ClickHouseConnection): RateUsageStore {
  const table = conn.table('rate_usage');
  return {
    async publish(process, totals, atMs) {
      await conn.insert('rate_usage', totals.map((t) => ({ key: t.key, process, total: t.total, at_ms: atMs })));
    },
    async othersSince(process, sinceMs) {
      const rows = await conn.rows<{ key: string; process: string; total: string }>(sql`SELECT key, process, max(total) AS total
        FROM ${table} WHERE at_ms >= ${sinceMs} AND process != ${process} GROUP BY key, process`);
      return rows.map((r): RateTotal => ({ key: r.key, process: r.process, total: Number(r.total) }));
    },
  };
}
