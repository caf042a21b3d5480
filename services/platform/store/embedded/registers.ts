import type { DatabaseSync } from 'node:sqlite';
import {
  RegisterVersionNotFoundError, RegisterVersionNotSealedError, RegisterVersionSealedError,
  type RegisterStore, type RegisterVersion, type RegisterKind,
} from '../registers-port.ts';
import { inTransaction } from './database.ts';

/**
 * RegisterStore on the embedded database, in blocks of JSON arrays like the list store
 * (embedded/lists.ts): a 2,000,000-company extract is 2,000 rows. Activating is one transaction
 * that clears the old active flag and sets the new one.
 */
const BLOCK_SIZE = 1000;
const DEFAULT_CHUNK_SIZE = 10_000;
const BLOCKS_PER_FETCH = 20;

export function createEmbeddedRegisterStore(db: DatabaseSync): RegisterStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS register_versions (
      vkey INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL,
      published_on TEXT NOT NULL,
      created_at TEXT NOT NULL,
      activated_at TEXT,
      active INTEGER NOT NULL DEFAULT 0,
      sealed INTEGER NOT NULL DEFAULT 0,
      appended_count INTEGER NOT NULL DEFAULT 0,
      block_count INTEGER NOT NULL DEFAULT 0,
      record_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS register_versions_active ON register_versions (kind, active);
    CREATE TABLE IF NOT EXISTS register_record_blocks (
      vkey INTEGER NOT NULL,
      block INTEGER NOT NULL,
      records TEXT NOT NULL,
      PRIMARY KEY (vkey, block)
    ) WITHOUT ROWID;
  `);
  const insertVersion = db.prepare(`INSERT INTO register_versions (id, kind, published_on, created_at) VALUES (?, ?, ?, ?)`);
  const selectVersion = db.prepare('SELECT * FROM register_versions WHERE id = ?');
  const selectVersions = db.prepare('SELECT * FROM register_versions WHERE kind = ? ORDER BY vkey');
  const selectActive = db.prepare('SELECT * FROM register_versions WHERE kind = ? AND active = 1');
  const insertBlock = db.prepare('INSERT INTO register_record_blocks (vkey, block, records) VALUES (?, ?, ?)');
  const recordAppend = db.prepare('UPDATE register_versions SET appended_count = ?, block_count = ? WHERE vkey = ?');
  const seal = db.prepare('UPDATE register_versions SET sealed = 1, record_count = appended_count WHERE vkey = ?');
  const deactivate = db.prepare('UPDATE register_versions SET active = 0 WHERE kind = ? AND active = 1');
  const activate = db.prepare('UPDATE register_versions SET active = 1, activated_at = ? WHERE vkey = ?');
  const selectBlocks = db.prepare(`SELECT block, records FROM register_record_blocks
    WHERE vkey = ? AND block > ? ORDER BY block LIMIT ?`);

  function requireRow(id: string): VersionRow {
    const row = selectVersion.get(id) as VersionRow | undefined;
    if (!row) throw new RegisterVersionNotFoundError(id);
    return row;
  }

  return {
    async createRegisterVersion(version) {
      insertVersion.run(version.id, version.kind, version.published_on, version.created_at);
    },

    async appendRegisterRecords(versionId, records) {
      if (records.length === 0) return;
      inTransaction(db, () => {
        const row = requireRow(versionId);
        if (row.sealed === 1) throw new RegisterVersionSealedError(versionId);
        let block = row.block_count;
        for (let start = 0; start < records.length; start += BLOCK_SIZE) {
          insertBlock.run(row.vkey, block, JSON.stringify(records.slice(start, start + BLOCK_SIZE)));
          block += 1;
        }
        recordAppend.run(row.appended_count + records.length, block, row.vkey);
      });
    },

    async sealRegisterVersion(versionId) {
      seal.run(requireRow(versionId).vkey);
      return toVersion(requireRow(versionId));
    },

    async *readRegisterRecords<T>(versionId: string, chunkSize = DEFAULT_CHUNK_SIZE): AsyncIterable<T[]> {
      if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      const { vkey } = requireRow(versionId);
      let pending: T[] = [];
      let lastBlock = -1;
      for (;;) {
        const rows = selectBlocks.all(vkey, lastBlock, BLOCKS_PER_FETCH) as Array<{ block: number; records: string }>;
        if (rows.length === 0) break;
        for (const row of rows) {
          for (const record of JSON.parse(row.records) as T[]) {
            pending.push(record);
            if (pending.length === chunkSize) {
              yield pending;
              pending = [];
            }
          }
          lastBlock = row.block;
        }
        // Let other work (HTTP requests) run between fetches of a large version.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (pending.length > 0) yield pending;
    },

    async activateRegisterVersion(versionId, at) {
      inTransaction(db, () => {
        const row = requireRow(versionId);
        if (row.sealed !== 1) throw new RegisterVersionNotSealedError(versionId);
        deactivate.run(row.kind);
        activate.run(at, row.vkey);
      });
      return toVersion(requireRow(versionId));
    },

    async getActiveRegisterVersion(kind: RegisterKind) {
      const row = selectActive.get(kind) as VersionRow | undefined;
      return row ? toVersion(row) : null;
    },

    async getRegisterVersion(id) {
      const row = selectVersion.get(id) as VersionRow | undefined;
      return row ? toVersion(row) : null;
    },

    async listRegisterVersions(kind) {
      return (selectVersions.all(kind) as unknown as VersionRow[]).map(toVersion);
    },
  };
}

interface VersionRow {
  vkey: number;
  id: string;
  kind: RegisterKind;
  published_on: string;
  created_at: string;
  activated_at: string | null;
  sealed: number;
  appended_count: number;
  block_count: number;
  record_count: number;
}

function toVersion(row: VersionRow): RegisterVersion {
  return {
    id: row.id, kind: row.kind, published_on: row.published_on, created_at: row.created_at,
    activated_at: row.activated_at, record_count: row.record_count,
  };
}
