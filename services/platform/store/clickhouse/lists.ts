import type { ListEntry } from '../../../domain/types.ts';
import type { ListStore, ListVersion } from '../lists-port.ts';
import {
  ListVersionNotFoundError, ListVersionNotSealedError, ListVersionSealedError,
} from '../list-errors.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * ListStore on ClickHouse (tables in infra/clickhouse/migrations/002_lists.sql), with the same
 * rules as the embedded adapter: append only to an unsealed version, activate only a sealed one,
 * re-activating an older version (a rollback) is allowed and stamps a new `activated_at`.
 *
 * Entries are stored in blocks of BLOCK_SIZE as JSON arrays, keyed by (version, block): a
 * 2,000,000-entry version is 1,000 rows, appended with one insert per call and read back in
 * block order a few blocks per query. A version row records how many blocks are whole, so blocks
 * of an append that failed half-way are never read (and are overwritten by the next append).
 *
 * The active version of (source, owner) is the one with the highest activation_seq, so
 * activating is one write and a reader never sees two active versions.
 */
const BLOCK_SIZE = 2000;
const DEFAULT_CHUNK_SIZE = 10_000;
const BLOCKS_PER_FETCH = 25;

export function createClickHouseListStore(conn: ClickHouseConnection): ListStore {
  const versions = conn.table('list_versions');
  const blocks = conn.table('list_entry_blocks');
  let lastCreatedSeq = 0;

  /** Creation order within a process, and by clock across processes (microsecond scale). */
  function nextCreatedSeq(): number {
    lastCreatedSeq = Math.max(Date.now() * 1000, lastCreatedSeq + 1);
    return lastCreatedSeq;
  }

  async function find(id: string): Promise<VersionRow | null> {
    const [row] = await conn.rows<VersionRow>(sql`SELECT * FROM ${versions} FINAL WHERE id = ${id}`);
    return row ? normalise(row) : null;
  }

  async function requireRow(id: string): Promise<VersionRow> {
    const row = await find(id);
    if (!row) throw new ListVersionNotFoundError(id);
    return row;
  }

  async function write(row: VersionRow): Promise<VersionRow> {
    await conn.insert('list_versions', [row]);
    return row;
  }

  return {
    async createListVersion(version) {
      if (await find(version.id)) throw new Error(`list version ${version.id} already exists`);
      await write({
        id: version.id, revision: 1, source: version.source, org_id: version.org_id ?? '',
        published_on: version.published_on, created_at: version.created_at, created_seq: nextCreatedSeq(),
        activated_at: null, activation_seq: 0, sealed: 0, appended_count: 0, block_count: 0, entry_count: 0,
      });
    },

    async appendListEntries(versionId, entries) {
      if (entries.length === 0) return;
      const row = await requireRow(versionId);
      if (row.sealed === 1) throw new ListVersionSealedError(versionId);
      const rows: Array<{ version_id: string; block: number; entries: string }> = [];
      for (let start = 0; start < entries.length; start += BLOCK_SIZE) {
        rows.push({
          version_id: versionId,
          block: row.block_count + rows.length,
          entries: JSON.stringify(entries.slice(start, start + BLOCK_SIZE)),
        });
      }
      await conn.insert('list_entry_blocks', rows);
      await write({
        ...row, revision: row.revision + 1,
        appended_count: row.appended_count + entries.length, block_count: row.block_count + rows.length,
      });
    },

    async sealListVersion(versionId) {
      const row = await requireRow(versionId);
      return toVersion(await write({ ...row, revision: row.revision + 1, sealed: 1, entry_count: row.appended_count }));
    },

    async *readListEntries(versionId, chunkSize = DEFAULT_CHUNK_SIZE) {
      if (!Number.isInteger(chunkSize) || chunkSize < 1) {
        throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      }
      const { block_count: blockCount } = await requireRow(versionId);
      let pending: ListEntry[] = [];
      for (let from = 0; from < blockCount; from += BLOCKS_PER_FETCH) {
        const to = Math.min(from + BLOCKS_PER_FETCH, blockCount);
        // TabSeparatedRaw: one block's JSON per line, unescaped (JSON text holds no raw tab or
        // newline), which spares a second JSON layer around every block.
        const text = await conn.text(sql`SELECT entries FROM ${blocks} FINAL
          WHERE version_id = ${versionId} AND block >= ${from} AND block < ${to} ORDER BY block`, 'TabSeparatedRaw');
        const fetched = text.split('\n').filter((line) => line.length > 0);
        if (fetched.length !== to - from) {
          throw new Error(`list version ${versionId}: expected ${to - from} entry blocks from ${from}, found ${fetched.length}`);
        }
        for (const block of fetched) {
          for (const entry of JSON.parse(block) as ListEntry[]) {
            pending.push(entry);
            if (pending.length === chunkSize) {
              yield pending;
              pending = [];
            }
          }
        }
      }
      if (pending.length > 0) yield pending;
    },

    async activateListVersion(versionId, at) {
      const row = await requireRow(versionId);
      if (row.sealed !== 1) throw new ListVersionNotSealedError(versionId);
      const [{ seq }] = await conn.rows<{ seq: string }>(sql`SELECT max(activation_seq) AS seq
        FROM ${versions} FINAL WHERE source = ${row.source} AND org_id = ${row.org_id}`);
      return toVersion(await write({
        ...row, revision: row.revision + 1, activated_at: at, activation_seq: Number(seq) + 1,
      }));
    },

    async getActiveListVersion(source, orgId = null) {
      // The national list has no owner whatever the caller passes; customer lists are per org.
      const owner = source === 'cpr' ? '' : (orgId ?? '');
      if (source === 'customer' && owner === '') return null;
      const [row] = await conn.rows<VersionRow>(sql`SELECT * FROM ${versions} FINAL
        WHERE source = ${source} AND org_id = ${owner}
        ORDER BY activation_seq DESC LIMIT 1`);
      return row && Number(row.activation_seq) > 0 ? toVersion(normalise(row)) : null;
    },

    async getListVersion(id) {
      const row = await find(id);
      return row ? toVersion(row) : null;
    },

    async listListVersions() {
      const rows = await conn.rows<VersionRow>(sql`SELECT * FROM ${versions} FINAL ORDER BY created_seq, id`);
      return rows.map((row) => toVersion(normalise(row)));
    },
  };
}

interface VersionRow {
  id: string;
  revision: number;
  source: 'cpr' | 'customer';
  org_id: string;
  published_on: string;
  created_at: string;
  created_seq: number;
  activated_at: string | null;
  activation_seq: number;
  sealed: number;
  appended_count: number;
  block_count: number;
  entry_count: number;
}

/** 64-bit integers arrive as JSON strings; make every counter a number. */
function normalise(row: VersionRow): VersionRow {
  return {
    ...row,
    revision: Number(row.revision),
    created_seq: Number(row.created_seq),
    activation_seq: Number(row.activation_seq),
    sealed: Number(row.sealed),
    appended_count: Number(row.appended_count),
    block_count: Number(row.block_count),
    entry_count: Number(row.entry_count),
  };
}

function toVersion(row: VersionRow): ListVersion {
  return {
    id: row.id,
    source: row.source,
    org_id: row.org_id === '' ? null : row.org_id,
    published_on: row.published_on,
    created_at: row.created_at,
    activated_at: row.activated_at ?? null,
    entry_count: row.entry_count,
  };
}
