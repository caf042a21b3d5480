import {
  RegisterVersionNotFoundError, RegisterVersionNotSealedError, RegisterVersionSealedError,
  type RegisterKind, type RegisterStore, type RegisterVersion,
} from '../registers-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * RegisterStore on ClickHouse (infra/clickhouse/migrations/006_registers.sql), built exactly like
 * the list store (clickhouse/lists.ts): records in blocks of JSON arrays, a version row rewritten
 * with a higher revision, and the active version of a kind the one with the highest
 * activation_seq, so a swap is one insert and readers see the old or the new version.
 */
const BLOCK_SIZE = 2000;
const DEFAULT_CHUNK_SIZE = 10_000;
const BLOCKS_PER_FETCH = 25;

export function createClickHouseRegisterStore(conn: ClickHouseConnection): RegisterStore {
  const versions = conn.table('register_versions');
  const blocks = conn.table('register_record_blocks');
  let lastCreatedSeq = 0;

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
    if (!row) throw new RegisterVersionNotFoundError(id);
    return row;
  }

  async function write(row: VersionRow): Promise<VersionRow> {
    await conn.insert('register_versions', [row]);
    return row;
  }

  return {
    async createRegisterVersion(version) {
      if (await find(version.id)) throw new Error(`register version ${version.id} already exists`);
      await write({
        id: version.id, revision: 1, kind: version.kind, published_on: version.published_on,
        created_at: version.created_at, created_seq: nextCreatedSeq(), activated_at: null, activation_seq: 0,
        sealed: 0, appended_count: 0, block_count: 0, record_count: 0,
      });
    },

    async appendRegisterRecords(versionId, records) {
      if (records.length === 0) return;
      const row = await requireRow(versionId);
      if (row.sealed === 1) throw new RegisterVersionSealedError(versionId);
      const rows: Array<{ version_id: string; block: number; records: string }> = [];
      for (let start = 0; start < records.length; start += BLOCK_SIZE) {
        rows.push({ version_id: versionId, block: row.block_count + rows.length, records: JSON.stringify(records.slice(start, start + BLOCK_SIZE)) });
      }
      await conn.insert('register_record_blocks', rows);
      await write({
        ...row, revision: row.revision + 1,
        appended_count: row.appended_count + records.length, block_count: row.block_count + rows.length,
      });
    },

    async sealRegisterVersion(versionId) {
      const row = await requireRow(versionId);
      return toVersion(await write({ ...row, revision: row.revision + 1, sealed: 1, record_count: row.appended_count }));
    },

    async *readRegisterRecords<T>(versionId: string, chunkSize = DEFAULT_CHUNK_SIZE): AsyncIterable<T[]> {
      if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      const { block_count: blockCount } = await requireRow(versionId);
      let pending: T[] = [];
      for (let from = 0; from < blockCount; from += BLOCKS_PER_FETCH) {
        const to = Math.min(from + BLOCKS_PER_FETCH, blockCount);
        // TabSeparatedRaw: one block's JSON per line, unescaped (JSON text holds no raw tab or newline).
        const text = await conn.text(sql`SELECT records FROM ${blocks} FINAL
          WHERE version_id = ${versionId} AND block >= ${from} AND block < ${to} ORDER BY block`, 'TabSeparatedRaw');
        const fetched = text.split('\n').filter((line) => line.length > 0);
        if (fetched.length !== to - from) {
          throw new Error(`register version ${versionId}: expected ${to - from} record blocks from ${from}, found ${fetched.length}`);
        }
        for (const block of fetched) {
          for (const record of JSON.parse(block) as T[]) {
            pending.push(record);
            if (pending.length === chunkSize) {
              yield pending;
              pending = [];
            }
          }
        }
      }
      if (pending.length > 0) yield pending;
    },

    async activateRegisterVersion(versionId, at) {
      const row = await requireRow(versionId);
      if (row.sealed !== 1) throw new RegisterVersionNotSealedError(versionId);
      const [{ seq }] = await conn.rows<{ seq: string }>(sql`SELECT max(activation_seq) AS seq
        FROM ${versions} FINAL WHERE kind = ${row.kind}`);
      return toVersion(await write({ ...row, revision: row.revision + 1, activated_at: at, activation_seq: Number(seq) + 1 }));
    },

    async getActiveRegisterVersion(kind: RegisterKind) {
      const [row] = await conn.rows<VersionRow>(sql`SELECT * FROM ${versions} FINAL
        WHERE kind = ${kind} ORDER BY activation_seq DESC LIMIT 1`);
      return row && Number(row.activation_seq) > 0 ? toVersion(normalise(row)) : null;
    },

    async getRegisterVersion(id) {
      const row = await find(id);
      return row ? toVersion(row) : null;
    },

    async listRegisterVersions(kind) {
      const rows = await conn.rows<VersionRow>(sql`SELECT * FROM ${versions} FINAL WHERE kind = ${kind} ORDER BY created_seq, id`);
      return rows.map((row) => toVersion(normalise(row)));
    },
  };
}

interface VersionRow {
  id: string;
  revision: number;
  kind: RegisterKind;
  published_on: string;
  created_at: string;
  created_seq: number;
  activated_at: string | null;
  activation_seq: number;
  sealed: number;
  appended_count: number;
  block_count: number;
  record_count: number;
}

/** 64-bit integers arrive as JSON strings; make every counter a number. */
function normalise(row: VersionRow): VersionRow {
  return {
    ...row,
    revision: Number(row.revision), created_seq: Number(row.created_seq), activation_seq: Number(row.activation_seq),
    sealed: Number(row.sealed), appended_count: Number(row.appended_count), block_count: Number(row.block_count),
    record_count: Number(row.record_count),
  };
}

function toVersion(row: VersionRow): RegisterVersion {
  return {
    id: row.id, kind: row.kind, published_on: row.published_on, created_at: row.created_at,
    activated_at: row.activated_at ?? null, record_count: row.record_count,
  };
}
