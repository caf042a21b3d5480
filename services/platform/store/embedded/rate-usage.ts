import type { DatabaseSync } from 'node:sqlite';
import type { RateTotal, RateUsageStore } from '../rate-usage-port.ts';

/** RateUsageStore on the embedded database (rate-usage-port.ts); rows older than 10 minutes go on publish. */
export function createEmbeddedRateUsageStore(db: DatabaseSync): RateUsageStore {
  db.exec(`CREATE TABLE IF NOT EXISTS rate_usage (
    key TEXT NOT NULL, process TEXT NOT NULL, total INTEGER NOT NULL, at_ms INTEGER NOT NULL,
    PRIMARY KEY (key, process)
  ) WITHOUT ROWID`);
  const upsert = db.prepare(`INSERT INTO rate_usage (key, process, total, at_ms) VALUES (?, ?, ?, ?)
    ON CONFLICT (key, process) DO UPDATE SET total = max(total, excluded.total), at_ms = max(at_ms, excluded.at_ms)`);
  const others = db.prepare('SELECT key, process, total FROM rate_usage WHERE process != ? AND at_ms >= ?');
  const prune = db.prepare('DELETE FROM rate_usage WHERE at_ms < ?');
  return {
    async publish(process, totals, atMs) {
      for (const t of totals) upsert.run(t.key, process, t.total, atMs);
      prune.run(atMs - 600_000);
    },
    async othersSince(process, sinceMs) {
      return (others.all(process, sinceMs) as unknown as RateTotal[]).map((r) => ({ key: r.key, process: r.process, total: Number(r.total) }));
    },
  };
}
