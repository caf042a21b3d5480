import { emptyChangeCounts, MONITOR_CHANGES, type MonitorChange, type MonitorVerdict } from '../../../domain/monitor-change.ts';
import type { Status } from '../../../domain/types.ts';
import { applyMonitorPatch, MonitorExistsError, type MonitorRecord, type MonitorStore } from '../monitors-port.ts';
import { tsvEscape, type ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * MonitorStore on ClickHouse (infra/clickhouse/migrations/010_monitors.sql; promises in
 * monitors-port.ts). Records are versioned rows read with FINAL; run rows are deduplicated on
 * (monitor, job, row) by FINAL (a job's rows and contact keys are one to one), so a redelivered
 * chunk never counts twice. Deletions are
 * lightweight DELETEs that no read sees once they return (lightweight_deletes_sync = 2).
 *
 * A change is a read-modify-write of the whole record by any process (the API replaces contacts
 * while the monitor service moves a run on), and ClickHouse has no compare-and-set. So revision n
 * of a monitor is inserted with the deduplication token `id/n` (the table remembers recent tokens,
 * migration 022): of two writers of revision n exactly one row is stored. Each reads revision n
 * back; the one whose row is not there applies its patch again to the winner's, as revision n + 1.
 * Without it the later insert of the same revision won whole and the earlier patch was lost.
 */
const RUN_COLUMNS = ['monitor_id', 'job_id', 'key', 'row', 'status', 'level', 'change'] as const;
const SYNC_DELETE = { lightweight_deletes_sync: '2' } as const;
const VERDICT_KEYS_PER_QUERY = 500;
/** Writers of one monitor are the API and the monitor service: two in a row losing is already rare. */
const MAX_WRITE_ATTEMPTS = 20;

export function createClickHouseMonitorStore(conn: ClickHouseConnection): MonitorStore {
  const monitors = conn.table('monitors');
  const blocks = conn.table('monitor_contact_blocks');
  const runs = conn.table('monitor_run_rows_by_row');

  async function readVersioned(id: string): Promise<{ revision: number; monitor: MonitorRecord } | null> {
    const [row] = await conn.rows<{ revision: string; doc: string }>(sql`SELECT revision, doc FROM ${monitors} FINAL WHERE id = ${id}`);
    return row ? { revision: Number(row.revision), monitor: JSON.parse(row.doc) as MonitorRecord } : null;
  }

  /** Inserts revision `revision` of the record; whether this writer's row is the one stored. */
  async function write(m: MonitorRecord, revision: number): Promise<boolean> {
    const doc = JSON.stringify(m);
    await conn.client.insert({
      table: monitors.name,
      format: 'JSONEachRow',
      values: [{ id: m.id, revision, org_id: m.org_id, mode: m.mode, deleted: m.deleted_at === null ? 0 : 1, created_at: m.created_at, doc }],
      clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: `monitor\u0000${m.id}\u0000${revision}` },
    });
    const stored = await conn.rows<{ doc: string }>(sql`SELECT doc FROM ${monitors} WHERE id = ${m.id} AND revision = ${revision}`);
    return stored.some((row) => row.doc === doc);
  }

  /**
   * `change` applied to the latest record and written as the next revision, again on the record a
   * concurrent writer stored first; null when there is no such monitor. `change` returns the
   * record unchanged to write nothing.
   */
  async function modify(id: string, change: (current: MonitorRecord) => MonitorRecord): Promise<MonitorRecord | null> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const current = await readVersioned(id);
      if (!current) return null;
      const next = change(current.monitor);
      if (next === current.monitor || await write(next, current.revision + 1)) return next;
    }
    throw new Error(`monitor ${id}: ${MAX_WRITE_ATTEMPTS} concurrent writers in a row took the next revision`);
  }

  const docs = (rows: Array<{ doc: string }>) => rows.map((r) => JSON.parse(r.doc) as MonitorRecord);

  return {
    async createMonitor(m) {
      if (await readVersioned(m.id)) throw new MonitorExistsError(m.id);
      if (!(await write(m, 1))) throw new MonitorExistsError(m.id);
    },
    async getMonitor(scope, id) {
      const m = (await readVersioned(id))?.monitor ?? null;
      return m && m.org_id === scope.org_id && m.mode === scope.mode && m.deleted_at === null ? m : null;
    },
    async getMonitorById(id) {
      return (await readVersioned(id))?.monitor ?? null;
    },
    async listMonitors(scope, page) {
      const limit = clampLimit(page.limit);
      const after = page.after ? await readVersioned(page.after) : null;
      const [afterCreated, afterId] = after ? [after.monitor.created_at, after.monitor.id] : ['', ''];
      return docs(await conn.rows<{ doc: string }>(sql`SELECT doc FROM (
          SELECT id, created_at, deleted, doc FROM ${monitors} FINAL WHERE org_id = ${scope.org_id} AND mode = ${scope.mode}
        ) WHERE deleted = 0 AND (created_at, id) > (${afterCreated}, ${afterId})
        ORDER BY created_at, id LIMIT ${limit}`));
    },
    async listActiveMonitors(page) {
      const limit = clampLimit(page.limit);
      return docs(await conn.rows<{ doc: string }>(sql`SELECT doc FROM (
          SELECT id, deleted, doc FROM ${monitors} FINAL WHERE id > ${page.after ?? ''}
        ) WHERE deleted = 0 ORDER BY id LIMIT ${limit}`));
    },
    async updateMonitor(id, patch) {
      return modify(id, (current) => applyMonitorPatch(current, patch, new Date().toISOString()));
    },
    async deleteMonitor(id, at) {
      // The key first: whatever of the blocks a crash leaves behind can no longer be opened.
      const next = await modify(id, (current) => ({ ...current, deleted_at: current.deleted_at ?? at, data_key: null, run: null, updated_at: at }));
      if (!next) return null;
      await conn.command(sql`DELETE FROM ${blocks} WHERE monitor_id = ${id}`, SYNC_DELETE);
      await conn.command(sql`DELETE FROM ${runs} WHERE monitor_id = ${id}`, SYNC_DELETE);
      return next;
    },

    async putContactBlocks(monitorId, generation, list) {
      await conn.insert('monitor_contact_blocks', list.map((b) => ({
        monitor_id: monitorId, generation, block: b.block, keys: JSON.stringify(b.keys), sealed: b.sealed,
      })));
    },
    async readContactBlocks(monitorId, generation, range) {
      const rows = await conn.rows<{ block: number; keys: string; sealed: string }>(sql`SELECT block, any(keys) AS keys, any(sealed) AS sealed
        FROM ${blocks} WHERE monitor_id = ${monitorId} AND generation = ${generation} AND block >= ${range.from} AND block < ${range.to}
        GROUP BY block ORDER BY block`);
      return rows.map((r) => ({ block: Number(r.block), keys: JSON.parse(r.keys) as string[], sealed: r.sealed }));
    },
    async readContactKeys(monitorId, generation, range) {
      const rows = await conn.rows<{ block: number; keys: string }>(sql`SELECT block, any(keys) AS keys
        FROM ${blocks} WHERE monitor_id = ${monitorId} AND generation = ${generation} AND block >= ${range.from} AND block < ${range.to}
        GROUP BY block ORDER BY block`);
      return rows.map((r) => ({ block: Number(r.block), keys: JSON.parse(r.keys) as string[] }));
    },
    async dropContactGenerations(monitorId, keep) {
      await conn.command(sql`DELETE FROM ${blocks} WHERE monitor_id = ${monitorId} AND NOT has(${keep.length ? keep.map((g) => BigInt(g)) : [-1n]}, toInt64(generation))`, SYNC_DELETE);
    },

    async dropContactGeneration(monitorId, generation) {
      await conn.command(sql`DELETE FROM ${blocks} WHERE monitor_id = ${monitorId} AND generation = ${generation}`, SYNC_DELETE);
    },

    async putRunRows(monitorId, jobId, rows) {
      let text = '';
      for (const r of rows) {
        text += `${tsvEscape(monitorId)}\t${tsvEscape(jobId)}\t${tsvEscape(r.key)}\t${r.row}\t${r.status}\t${r.level === null ? '\\N' : r.level}\t${r.change ?? ''}\n`;
      }
      await conn.insertTabSeparated('monitor_run_rows_by_row', RUN_COLUMNS, text);
    },
    async readRunRows(monitorId, jobId, range) {
      // The table's order (monitor, job, row): a range of rows is a range of the primary key.
      const rows = await conn.rows<{ row: number; key: string; status: Status; level: number | null }>(sql`SELECT row, any(key) AS key,
          any(status) AS status, any(level) AS level
        FROM ${runs} WHERE monitor_id = ${monitorId} AND job_id = ${jobId} AND row >= ${range.from} AND row < ${range.to} GROUP BY row`);
      return new Map(rows.map((r) => [Number(r.row), { key: r.key, status: r.status, level: r.level === null ? null : Number(r.level) }]));
    },
    async readVerdicts(monitorId, jobId, keys) {
      const found = new Map<string, MonitorVerdict>();
      // Keys travel as a query parameter (in the URL): a few hundred at a time keeps it short.
      for (let i = 0; i < keys.length; i += VERDICT_KEYS_PER_QUERY) {
        const some = keys.slice(i, i + VERDICT_KEYS_PER_QUERY);
        // Duplicates of a run row carry the same values (monitors-port.ts), so no FINAL is needed.
        const rows = await conn.rows<{ key: string; status: Status; level: number | null }>(sql`SELECT key, any(status) AS status, any(level) AS level
          FROM ${runs} WHERE monitor_id = ${monitorId} AND job_id = ${jobId} AND key IN ${some} GROUP BY key`);
        for (const r of rows) found.set(r.key, { status: r.status, level: r.level === null ? null : Number(r.level) });
      }
      return found;
    },
    async countRunChanges(monitorId, jobId) {
      const counts = emptyChangeCounts();
      const rows = await conn.rows<{ change: MonitorChange; count: string }>(sql`SELECT change, count() AS count
        FROM ${runs} FINAL WHERE monitor_id = ${monitorId} AND job_id = ${jobId} AND change != '' GROUP BY change`);
      for (const r of rows) if (MONITOR_CHANGES.includes(r.change)) counts[r.change] = Number(r.count);
      return counts;
    },
    async dropRuns(monitorId, keep) {
      await conn.command(sql`DELETE FROM ${runs} WHERE monitor_id = ${monitorId} AND NOT has(${keep.length ? keep : ['']}, job_id)`, SYNC_DELETE);
    },
  };
}

function clampLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RangeError('limit must be 1..1000');
  return limit;
}
