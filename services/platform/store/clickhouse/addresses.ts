import type { RegisterAddress } from '../../../domain/address-register.ts';
import {
  AddressVersionError, packAddress, unpackAddress, type AddressStore, type AddressVersion,
} from '../addresses-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * AddressStore on ClickHouse (infra/clickhouse/migrations/007_addresses.sql), built like the list
 * store (clickhouse/lists.ts): versions as ReplacingMergeTree rows rewritten with revision + 1,
 * unit addresses in blocks of packed JSON rows, the active version the one with the highest
 * activation_seq.
 */
const BLOCK_SIZE = 4000;
const DEFAULT_CHUNK_SIZE = 10_000;
const BLOCKS_PER_FETCH = 10;

interface VersionRow {
  id: string;
  revision: number;
  published_on: string;
  created_at: string;
  created_seq: number;
  activated_at: string | null;
  activation_seq: number;
  sealed: number;
  appended_count: number;
  block_count: number;
  address_count: number;
}

/** 64-bit integers arrive as JSON strings; make every counter a number. */
function normalise(row: VersionRow): VersionRow {
  return {
    ...row, revision: Number(row.revision), created_seq: Number(row.created_seq),
    activation_seq: Number(row.activation_seq), sealed: Number(row.sealed), appended_count: Number(row.appended_count),
    block_count: Number(row.block_count), address_count: Number(row.address_count),
  };
}

function toVersion(row: VersionRow): AddressVersion {
  return {
    id: row.id, published_on: row.published_on, created_at: row.created_at, activated_at: row.activated_at ?? null,
    address_count: row.address_count,
  };
}

export function createClickHouseAddressStore(conn: ClickHouseConnection): AddressStore {
  const versions = conn.table('address_versions');
  const blocks = conn.table('address_blocks');
  let lastCreatedSeq = 0;

  async function find(id: string): Promise<VersionRow | null> {
    const [row] = await conn.rows<VersionRow>(sql`SELECT * FROM ${versions} FINAL WHERE id = ${id}`);
    return row ? normalise(row) : null;
  }

  async function requireRow(id: string): Promise<VersionRow> {
    const row = await find(id);
    if (!row) throw new AddressVersionError('not_found', id);
    return row;
  }

  async function write(row: VersionRow): Promise<VersionRow> {
    await conn.insert('address_versions', [row]);
    return row;
  }

  return {
    async createAddressVersion(version) {
      if (await find(version.id)) throw new Error(`address version ${version.id} already exists`);
      lastCreatedSeq = Math.max(Date.now() * 1000, lastCreatedSeq + 1);
      await write({
        id: version.id, revision: 1, published_on: version.published_on, created_at: version.created_at,
        created_seq: lastCreatedSeq, activated_at: null, activation_seq: 0, sealed: 0, appended_count: 0,
        block_count: 0, address_count: 0,
      });
    },

    async appendAddresses(versionId, addresses) {
      if (addresses.length === 0) return;
      const row = await requireRow(versionId);
      if (row.sealed === 1) throw new AddressVersionError('sealed', versionId);
      const rows: Array<{ version_id: string; block: number; addresses: string }> = [];
      for (let start = 0; start < addresses.length; start += BLOCK_SIZE) {
        rows.push({
          version_id: versionId, block: row.block_count + rows.length,
          addresses: JSON.stringify(addresses.slice(start, start + BLOCK_SIZE).map(packAddress)),
        });
      }
      await conn.insert('address_blocks', rows);
      await write({
        ...row, revision: row.revision + 1, appended_count: row.appended_count + addresses.length,
        block_count: row.block_count + rows.length,
      });
    },

    async sealAddressVersion(versionId) {
      const row = await requireRow(versionId);
      return toVersion(await write({ ...row, revision: row.revision + 1, sealed: 1, address_count: row.appended_count }));
    },

    async *readAddresses(versionId, chunkSize = DEFAULT_CHUNK_SIZE) {
      if (!Number.isInteger(chunkSize) || chunkSize < 1) {
        throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      }
      const { block_count: blockCount } = await requireRow(versionId);
      let pending: RegisterAddress[] = [];
      for (let from = 0; from < blockCount; from += BLOCKS_PER_FETCH) {
        const to = Math.min(from + BLOCKS_PER_FETCH, blockCount);
        // TabSeparatedRaw: one block's JSON per line (JSON text holds no raw tab or newline).
        const text = await conn.text(sql`SELECT addresses FROM ${blocks} FINAL
          WHERE version_id = ${versionId} AND block >= ${from} AND block < ${to} ORDER BY block`, 'TabSeparatedRaw');
        const fetched = text.split('\n').filter((line) => line.length > 0);
        if (fetched.length !== to - from) {
          throw new Error(`address version ${versionId}: expected ${to - from} blocks from ${from}, found ${fetched.length}`);
        }
        for (const block of fetched) {
          for (const packed of JSON.parse(block) as unknown[][]) {
            pending.push(unpackAddress(packed));
            if (pending.length === chunkSize) {
              yield pending;
              pending = [];
            }
          }
        }
      }
      if (pending.length > 0) yield pending;
    },

    async activateAddressVersion(versionId, at) {
      const row = await requireRow(versionId);
      if (row.sealed !== 1) throw new AddressVersionError('not_sealed', versionId);
      const [{ seq }] = await conn.rows<{ seq: string }>(sql`SELECT max(activation_seq) AS seq FROM ${versions} FINAL`);
      return toVersion(await write({ ...row, revision: row.revision + 1, activated_at: at, activation_seq: Number(seq) + 1 }));
    },

    async getActiveAddressVersion() {
      const [row] = await conn.rows<VersionRow>(sql`SELECT * FROM ${versions} FINAL ORDER BY activation_seq DESC LIMIT 1`);
      return row && Number(row.activation_seq) > 0 ? toVersion(normalise(row)) : null;
    },

    async getAddressVersion(id) {
      const row = await find(id);
      return row ? toVersion(row) : null;
    },

    async listAddressVersions() {
      const rows = await conn.rows<VersionRow>(sql`SELECT * FROM ${versions} FINAL ORDER BY created_seq, id`);
      return rows.map((row) => toVersion(normalise(row)));
    },
  };
}
