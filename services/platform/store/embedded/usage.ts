import type { DatabaseSync } from 'node:sqlite';
import type { UsageStore, UsageTotal } from '../usage-port.ts';

/** UsageStore on the embedded database (see usage-port.ts); INSERT OR IGNORE keeps the first entry. */
export function createEmbeddedUsageStore(db: DatabaseSync): UsageStore {
  db.exec(`CREATE TABLE IF NOT EXISTS usage_entries (
    kind TEXT NOT NULL,
    ref TEXT NOT NULL,
    org_id TEXT NOT NULL,
    month TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (kind, ref)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS usage_entries_month ON usage_entries (month, org_id)`);
  const insert = db.prepare('INSERT OR IGNORE INTO usage_entries (kind, ref, org_id, month, count) VALUES (?, ?, ?, ?, ?)');
  const select = db.prepare(`SELECT org_id, kind, SUM(count) AS count, COUNT(*) AS entries FROM usage_entries
    WHERE month = ? GROUP BY org_id, kind ORDER BY org_id, kind`);
  return {
    async record(entry) {
      insert.run(entry.kind, entry.ref, entry.org_id, entry.month, entry.count);
    },
    async monthly(month) {
      return (select.all(month) as unknown as UsageTotal[]).map((r) => ({ org_id: r.org_id, kind: r.kind, count: Number(r.count), entries: Number(r.entries) }));
    },
  };
}
