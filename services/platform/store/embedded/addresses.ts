import type { DatabaseSync } from 'node:sqlite';
import type { RegisterAddress } from '../../../domain/address-register.ts';
import {
  AddressVersionError, packAddress, unpackAddress, type AddressStore, type AddressVersion,
} from '../addresses-port.ts';
import { inTransaction } from './database.ts';

/**
 * AddressStore on the embedded database, built like the list store (embedded/lists.ts): unit
 * addresses in blocks of BLOCK_SIZE packed rows (packAddress) as one JSON text, keyed by
 * (version, block), so a 3,000,000-address register is 1,500 rows.
 */
const BLOCK_SIZE = 2000;
const DEFAULT_CHUNK_SIZE = 10_000;
const BLOCKS_PER_FETCH = 10;

interface VersionRow {
  vkey: number;
  id: string;
  published_on: string;
  created_at: string;
  activated_at: string | null;
  sealed: number;
  appended_count: number;
  block_count: number;
  address_count: number;
}

function toVersion(row: VersionRow): AddressVersion {
  return {
    id: row.id, published_on: row.published_on, created_at: row.created_at, activated_at: row.activated_at,
    address_count: row.address_count,
  };
}

export function createEmbeddedAddressStore(db: DatabaseSync): AddressStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS address_versions (
      vkey INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      published_on TEXT NOT NULL,
      created_at TEXT NOT NULL,
      activated_at TEXT,
      active INTEGER NOT NULL DEFAULT 0,
      sealed INTEGER NOT NULL DEFAULT 0,
      appended_count INTEGER NOT NULL DEFAULT 0,
      block_count INTEGER NOT NULL DEFAULT 0,
      address_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS address_blocks (
      vkey INTEGER NOT NULL,
      block INTEGER NOT NULL,
      addresses TEXT NOT NULL,
      PRIMARY KEY (vkey, block)
    ) WITHOUT ROWID;
  `);
  const insertVersion = db.prepare(
    'INSERT INTO address_versions (id, published_on, created_at) VALUES (?, ?, ?)',
  );
  const selectVersion = db.prepare('SELECT * FROM address_versions WHERE id = ?');
  const selectVersions = db.prepare('SELECT * FROM address_versions ORDER BY vkey');
  const selectActive = db.prepare('SELECT * FROM address_versions WHERE active = 1');
  const insertBlock = db.prepare('INSERT INTO address_blocks (vkey, block, addresses) VALUES (?, ?, ?)');
  const recordAppend = db.prepare('UPDATE address_versions SET appended_count = ?, block_count = ? WHERE vkey = ?');
  const seal = db.prepare('UPDATE address_versions SET sealed = 1, address_count = appended_count WHERE vkey = ?');
  const deactivate = db.prepare('UPDATE address_versions SET active = 0 WHERE active = 1');
  const activate = db.prepare('UPDATE address_versions SET active = 1, activated_at = ? WHERE vkey = ?');
  const selectBlocks = db.prepare(
    'SELECT block, addresses FROM address_blocks WHERE vkey = ? AND block > ? ORDER BY block LIMIT ?',
  );

  function requireRow(id: string): VersionRow {
    const row = selectVersion.get(id) as VersionRow | undefined;
    if (!row) throw new AddressVersionError('not_found', id);
    return row;
  }

  return {
    async createAddressVersion(version) {
      insertVersion.run(version.id, version.published_on, version.created_at);
    },

    async appendAddresses(versionId, addresses) {
      if (addresses.length === 0) return;
      inTransaction(db, () => {
        const row = requireRow(versionId);
        if (row.sealed === 1) throw new AddressVersionError('sealed', versionId);
        let block = row.block_count;
        for (let start = 0; start < addresses.length; start += BLOCK_SIZE) {
          insertBlock.run(row.vkey, block++, JSON.stringify(addresses.slice(start, start + BLOCK_SIZE).map(packAddress)));
        }
        recordAppend.run(row.appended_count + addresses.length, block, row.vkey);
      });
    },

    async sealAddressVersion(versionId) {
      seal.run(requireRow(versionId).vkey);
      return toVersion(requireRow(versionId));
    },

    async *readAddresses(versionId, chunkSize = DEFAULT_CHUNK_SIZE) {
      if (!Number.isInteger(chunkSize) || chunkSize < 1) {
        throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      }
      const { vkey } = requireRow(versionId);
      let pending: RegisterAddress[] = [];
      let lastBlock = -1;
      for (;;) {
        const rows = selectBlocks.all(vkey, lastBlock, BLOCKS_PER_FETCH) as Array<{ block: number; addresses: string }>;
        if (rows.length === 0) break;
        for (const row of rows) {
          for (const packed of JSON.parse(row.addresses) as unknown[][]) {
            pending.push(unpackAddress(packed));
            if (pending.length === chunkSize) {
              yield pending;
              pending = [];
            }
          }
          lastBlock = row.block;
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (pending.length > 0) yield pending;
    },

    async activateAddressVersion(versionId, at) {
      inTransaction(db, () => {
        const row = requireRow(versionId);
        if (row.sealed !== 1) throw new AddressVersionError('not_sealed', versionId);
        deactivate.run();
        activate.run(at, row.vkey);
      });
      return toVersion(requireRow(versionId));
    },

    async getActiveAddressVersion() {
      const row = selectActive.get() as VersionRow | undefined;
      return row ? toVersion(row) : null;
    },

    async getAddressVersion(id) {
      const row = selectVersion.get(id) as VersionRow | undefined;
      return row ? toVersion(row) : null;
    },

    async listAddressVersions() {
      return (selectVersions.all() as unknown as VersionRow[]).map(toVersion);
    },
  };
}
