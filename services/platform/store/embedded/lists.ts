import type { DatabaseSync } from 'node:sqlite';
import type { ListEntry } from '../../../domain/types.ts';
import type { ListStore, ListVersion } from '../lists-port.ts';
import { inTransaction } from './database.ts';
import {
  ListVersionNotFoundError,
  ListVersionNotSealedError,
  ListVersionSealedError,
} from '../list-errors.ts';

/**
 * ListStore on the embedded database.
 *
 * Entries are stored in blocks: one row holds up to BLOCK_SIZE entries as one JSON array, keyed by
 * (version, block number). A 2,000,000-entry version is then 2,000 rows, which appends and reads
 * back far faster than one row per entry and needs no per-entry key. Reads re-cut blocks into the
 * caller's chunk size.
 *
 * Rules beyond the port: entries may be appended only to an unsealed version; only a sealed
 * version can be activated; re-activating an older version (a rollback) is allowed and stamps a
 * new `activated_at`.
 */
const BLOCK_SIZE = 1000;
const DEFAULT_CHUNK_SIZE = 10_000;
/** Blocks fetched per query while reading; between fetches the event loop gets a turn. */
const BLOCKS_PER_FETCH = 20;

export function createEmbeddedListStore(db: DatabaseSync): ListStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS list_versions (
      vkey INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      source TEXT NOT NULL,
      org_id TEXT,
      published_on TEXT NOT NULL,
      created_at TEXT NOT NULL,
      activated_at TEXT,
      active INTEGER NOT NULL DEFAULT 0,
      sealed INTEGER NOT NULL DEFAULT 0,
      appended_count INTEGER NOT NULL DEFAULT 0,
      block_count INTEGER NOT NULL DEFAULT 0,
      entry_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS list_versions_active ON list_versions (source, org_id, active);
    CREATE TABLE IF NOT EXISTS list_entry_blocks (
      vkey INTEGER NOT NULL,
      block INTEGER NOT NULL,
      entries TEXT NOT NULL,
      PRIMARY KEY (vkey, block)
    ) WITHOUT ROWID;
  `);

  const insertVersion = db.prepare(`INSERT INTO list_versions
    (id, source, org_id, published_on, created_at, activated_at, entry_count)
    VALUES (?, ?, ?, ?, ?, NULL, 0)`);
  const selectVersion = db.prepare('SELECT * FROM list_versions WHERE id = ?');
  const selectVersions = db.prepare('SELECT * FROM list_versions ORDER BY vkey');
  const selectActive = db.prepare(
    'SELECT * FROM list_versions WHERE source = ? AND org_id IS ? AND active = 1',
  );
  const insertBlock = db.prepare(
    'INSERT INTO list_entry_blocks (vkey, block, entries) VALUES (?, ?, ?)',
  );
  const recordAppend = db.prepare(
    'UPDATE list_versions SET appended_count = ?, block_count = ? WHERE vkey = ?',
  );
  const seal = db.prepare(
    'UPDATE list_versions SET sealed = 1, entry_count = appended_count WHERE vkey = ?',
  );
  const deactivate = db.prepare(
    'UPDATE list_versions SET active = 0 WHERE source = ? AND org_id IS ? AND active = 1',
  );
  const activate = db.prepare(
    'UPDATE list_versions SET active = 1, activated_at = ? WHERE vkey = ?',
  );
  const selectBlocks = db.prepare(`SELECT block, entries FROM list_entry_blocks
    WHERE vkey = ? AND block > ? ORDER BY block LIMIT ?`);

  function requireRow(id: string): VersionRow {
    const row = selectVersion.get(id) as VersionRow | undefined;
    if (!row) throw new ListVersionNotFoundError(id);
    return row;
  }

  return {
    async createListVersion(version) {
      insertVersion.run(
        version.id, version.source, version.org_id, version.published_on, version.created_at,
      );
    },

    async appendListEntries(versionId, entries) {
      if (entries.length === 0) return;
      inTransaction(db, () => {
        const row = requireRow(versionId);
        if (row.sealed === 1) throw new ListVersionSealedError(versionId);
        let block = row.block_count;
        for (let start = 0; start < entries.length; start += BLOCK_SIZE) {
          insertBlock.run(row.vkey, block, JSON.stringify(entries.slice(start, start + BLOCK_SIZE)));
          block += 1;
        }
        recordAppend.run(row.appended_count + entries.length, block, row.vkey);
      });
    },

    async sealListVersion(versionId) {
      const row = requireRow(versionId);
      seal.run(row.vkey);
      return toVersion(requireRow(versionId));
    },

    async *readListEntries(versionId, chunkSize = DEFAULT_CHUNK_SIZE) {
      if (!Number.isInteger(chunkSize) || chunkSize < 1) {
        throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      }
      const { vkey } = requireRow(versionId);
      let pending: ListEntry[] = [];
      let lastBlock = -1;
      for (;;) {
        const rows = selectBlocks.all(vkey, lastBlock, BLOCKS_PER_FETCH) as Array<{ block: number; entries: string }>;
        if (rows.length === 0) break;
        for (const row of rows) {
          for (const entry of JSON.parse(row.entries) as ListEntry[]) {
            pending.push(entry);
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

    async activateListVersion(versionId, at) {
      inTransaction(db, () => {
        const row = requireRow(versionId);
        if (row.sealed !== 1) throw new ListVersionNotSealedError(versionId);
        deactivate.run(row.source, row.org_id);
        activate.run(at, row.vkey);
      });
      return toVersion(requireRow(versionId));
    },

    async getActiveListVersion(source, orgId = null) {
      // The national list has no owner whatever the caller passes; customer lists are per org.
      const owner = source === 'cpr' ? null : orgId;
      const row = selectActive.get(source, owner) as VersionRow | undefined;
      return row ? toVersion(row) : null;
    },

    async getListVersion(id) {
      const row = selectVersion.get(id) as VersionRow | undefined;
      return row ? toVersion(row) : null;
    },

    async listListVersions() {
      return (selectVersions.all() as unknown as VersionRow[]).map(toVersion);
    },
  };
}

interface VersionRow {
  vkey: number;
  id: string;
  source: 'cpr' | 'customer';
  org_id: string | null;
  published_on: string;
  created_at: string;
  activated_at: string | null;
  sealed: number;
  appended_count: number;
  block_count: number;
  entry_count: number;
}

function toVersion(row: VersionRow): ListVersion {
  return {
    id: row.id,
    source: row.source,
    org_id: row.org_id,
    published_on: row.published_on,
    created_at: row.created_at,
    activated_at: row.activated_at,
    entry_count: row.entry_count,
  };
}
