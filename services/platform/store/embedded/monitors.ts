import type { DatabaseSync } from 'node:sqlite';
import { emptyChangeCounts, MONITOR_CHANGES, type MonitorChange, type MonitorVerdict } from '../../../domain/monitor-change.ts';
import type { Status } from '../../../domain/types.ts';
import { applyMonitorPatch, MonitorExistsError, type ContactBlock, type MonitorRecord, type MonitorStore } from '../monitors-port.ts';
import { inTransaction } from './database.ts';

/**
 * MonitorStore on the embedded database (monitors-port.ts has the promises). A monitor is one row
 * (filter columns + the record as JSON); contact blocks one row per (monitor, generation, block);
 * run rows one row per (job, key), INSERT OR IGNORE so a redelivered chunk is a no-op.
 */
export function createEmbeddedMonitorStore(db: DatabaseSync): MonitorStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS monitors (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL,
      mode TEXT NOT NULL,
      deleted INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      doc TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS monitors_scope ON monitors (org_id, mode, deleted, created_at, id);
    CREATE TABLE IF NOT EXISTS monitor_contact_blocks (
      monitor_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      block INTEGER NOT NULL,
      keys TEXT NOT NULL,
      sealed TEXT NOT NULL,
      PRIMARY KEY (monitor_id, generation, block)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS monitor_run_rows (
      monitor_id TEXT NOT NULL,
      job_id TEXT NOT NULL,
      key TEXT NOT NULL,
      row INTEGER NOT NULL,
      status TEXT NOT NULL,
      level INTEGER,
      change TEXT,
      PRIMARY KEY (monitor_id, job_id, key)
    ) WITHOUT ROWID;
    CREATE UNIQUE INDEX IF NOT EXISTS monitor_run_rows_by_row ON monitor_run_rows (monitor_id, job_id, row);
  `);
  const insertMonitor = db.prepare('INSERT OR IGNORE INTO monitors (id, org_id, mode, deleted, created_at, doc) VALUES (?, ?, ?, ?, ?, ?)');
  const selectMonitor = db.prepare('SELECT doc FROM monitors WHERE id = ?');
  const writeMonitor = db.prepare('UPDATE monitors SET deleted = ?, doc = ? WHERE id = ?');
  const selectScope = db.prepare(`SELECT doc FROM monitors WHERE org_id = ? AND mode = ? AND deleted = 0
    AND (created_at, id) > (SELECT coalesce((SELECT created_at FROM monitors WHERE id = ?), ''), coalesce(?, ''))
    ORDER BY created_at, id LIMIT ?`);
  const selectActive = db.prepare('SELECT doc FROM monitors WHERE deleted = 0 AND id > ? ORDER BY id LIMIT ?');
  const insertBlock = db.prepare(`INSERT OR REPLACE INTO monitor_contact_blocks (monitor_id, generation, block, keys, sealed)
    VALUES (?, ?, ?, ?, ?)`);
  const selectBlocks = db.prepare(`SELECT block, keys, sealed FROM monitor_contact_blocks
    WHERE monitor_id = ? AND generation = ? AND block >= ? AND block < ? ORDER BY block`);
  const selectKeys = db.prepare(`SELECT block, keys FROM monitor_contact_blocks
    WHERE monitor_id = ? AND generation = ? AND block >= ? AND block < ? ORDER BY block`);
  const generations = db.prepare('SELECT DISTINCT generation FROM monitor_contact_blocks WHERE monitor_id = ?');
  const deleteGeneration = db.prepare('DELETE FROM monitor_contact_blocks WHERE monitor_id = ? AND generation = ?');
  const deleteBlocks = db.prepare('DELETE FROM monitor_contact_blocks WHERE monitor_id = ?');
  const insertRunRow = db.prepare(`INSERT OR IGNORE INTO monitor_run_rows (monitor_id, job_id, key, row, status, level, change)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const selectRunRows = db.prepare(`SELECT row, key, status, level FROM monitor_run_rows
    WHERE monitor_id = ? AND job_id = ? AND row >= ? AND row < ?`);
  const selectVerdict = db.prepare('SELECT status, level FROM monitor_run_rows WHERE monitor_id = ? AND job_id = ? AND key = ?');
  const selectChanges = db.prepare(`SELECT change, COUNT(*) AS count FROM monitor_run_rows
    WHERE monitor_id = ? AND job_id = ? AND change IS NOT NULL GROUP BY change`);
  const runJobs = db.prepare('SELECT DISTINCT job_id FROM monitor_run_rows WHERE monitor_id = ?');
  const deleteRun = db.prepare('DELETE FROM monitor_run_rows WHERE monitor_id = ? AND job_id = ?');
  const deleteRuns = db.prepare('DELETE FROM monitor_run_rows WHERE monitor_id = ?');

  function read(id: string): MonitorRecord | null {
    const row = selectMonitor.get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as MonitorRecord) : null;
  }
  function write(m: MonitorRecord): void {
    writeMonitor.run(m.deleted_at === null ? 0 : 1, JSON.stringify(m), m.id);
  }
  const docs = (rows: unknown[]) => (rows as Array<{ doc: string }>).map((r) => JSON.parse(r.doc) as MonitorRecord);

  return {
    async createMonitor(m) {
      const inserted = insertMonitor.run(m.id, m.org_id, m.mode, m.deleted_at === null ? 0 : 1, m.created_at, JSON.stringify(m));
      if (Number(inserted.changes) === 0) throw new MonitorExistsError(m.id);
    },
    async getMonitor(scope, id) {
      const m = read(id);
      return m && m.org_id === scope.org_id && m.mode === scope.mode && m.deleted_at === null ? m : null;
    },
    async getMonitorById(id) {
      return read(id);
    },
    async listMonitors(scope, page) {
      const after = page.after ?? null;
      return docs(selectScope.all(scope.org_id, scope.mode, after, after, clampLimit(page.limit)));
    },
    async listActiveMonitors(page) {
      return docs(selectActive.all(page.after ?? '', clampLimit(page.limit)));
    },
    async updateMonitor(id, patch) {
      return inTransaction(db, () => {
        const current = read(id);
        if (!current) return null;
        const next = applyMonitorPatch(current, patch, new Date().toISOString());
        write(next);
        return next;
      });
    },
    async deleteMonitor(id, at) {
      return inTransaction(db, () => {
        const current = read(id);
        if (!current) return null;
        deleteBlocks.run(id);
        deleteRuns.run(id);
        const next: MonitorRecord = { ...current, deleted_at: current.deleted_at ?? at, data_key: null, run: null, updated_at: at };
        write(next);
        return next;
      });
    },

    async putContactBlocks(monitorId, generation, blocks) {
      inTransaction(db, () => {
        for (const b of blocks) insertBlock.run(monitorId, generation, b.block, JSON.stringify(b.keys), b.sealed);
      });
    },
    async readContactBlocks(monitorId, generation, range) {
      return (selectBlocks.all(monitorId, generation, range.from, range.to) as Array<{ block: number; keys: string; sealed: string }>)
        .map((r): ContactBlock => ({ block: Number(r.block), keys: JSON.parse(r.keys) as string[], sealed: r.sealed }));
    },
    async readContactKeys(monitorId, generation, range) {
      return (selectKeys.all(monitorId, generation, range.from, range.to) as Array<{ block: number; keys: string }>)
        .map((r) => ({ block: Number(r.block), keys: JSON.parse(r.keys) as string[] }));
    },
    async dropContactGenerations(monitorId, keep) {
      inTransaction(db, () => {
        for (const { generation } of generations.all(monitorId) as Array<{ generation: number }>) {
          if (!keep.includes(Number(generation))) deleteGeneration.run(monitorId, generation);
        }
      });
    },

    async dropContactGeneration(monitorId, generation) {
      deleteGeneration.run(monitorId, generation);
    },

    async putRunRows(monitorId, jobId, rows) {
      inTransaction(db, () => {
        for (const r of rows) insertRunRow.run(monitorId, jobId, r.key, r.row, r.status, r.level, r.change);
      });
    },
    async readRunRows(monitorId, jobId, range) {
      const rows = selectRunRows.all(monitorId, jobId, range.from, range.to) as Array<{ row: number; key: string; status: Status; level: number | null }>;
      return new Map(rows.map((r) => [Number(r.row), { key: r.key, status: r.status, level: r.level === null ? null : Number(r.level) }]));
    },
    async readVerdicts(monitorId, jobId, keys) {
      const found = new Map<string, MonitorVerdict>();
      for (const key of keys) {
        const row = selectVerdict.get(monitorId, jobId, key) as { status: Status; level: number | null } | undefined;
        if (row) found.set(key, { status: row.status, level: row.level === null ? null : Number(row.level) });
      }
      return found;
    },
    async countRunChanges(monitorId, jobId) {
      const counts = emptyChangeCounts();
      for (const r of selectChanges.all(monitorId, jobId) as Array<{ change: MonitorChange; count: number }>) {
        if (MONITOR_CHANGES.includes(r.change)) counts[r.change] = Number(r.count);
      }
      return counts;
    },
    async dropRuns(monitorId, keep) {
      inTransaction(db, () => {
        for (const { job_id } of runJobs.all(monitorId) as Array<{ job_id: string }>) {
          if (!keep.includes(job_id)) deleteRun.run(monitorId, job_id);
        }
      });
    },
  };
}

function clampLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RangeError('limit must be 1..1000');
  return limit;
}
