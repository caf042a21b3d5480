import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { VersionMisuse } from '../versioned-blocks.ts';
import { inTransaction } from './database.ts';

/**
 * The versioned-block store on the embedded database, shared by the list, address and register
 * stores (embedded/lists.ts, embedded/addresses.ts, embedded/registers.ts), which differ only in
 * names, scope and what one item looks like.
 *
 * Items are stored in blocks: one row holds up to `blockSize` items as one JSON array, keyed by
 * (version, block number). A 2,000,000-item version is then 2,000 rows, which appends and reads
 * back far faster than one row per item and needs no per-item key. Reads re-cut blocks into the
 * caller's chunk size.
 *
 * Rules: items may be appended only to an unsealed version; only a sealed version can be
 * activated; activating is one transaction that clears the active flag of the version active
 * before in the same scope (the national list, one organisation's list, one register kind) and
 * sets the new one; re-activating an older version (a rollback) is allowed and stamps a new
 * `activated_at`.
 */
export interface EmbeddedVersionedBlocksSpec<Item> {
  /** Table of versions, e.g. `list_versions`. */
  versions: string;
  /** Table of blocks, e.g. `list_entry_blocks`. */
  blocks: string;
  /** Column of a block row that holds the JSON array, e.g. `entries`. */
  blockColumn: string;
  /** Column of a version row that holds the sealed item count, e.g. `entry_count`. */
  countColumn: string;
  /**
   * Columns that name the scope of one active version, each with its DDL (e.g. `kind TEXT NOT
   * NULL`); none for a store with one active version.
   */
  scope: ReadonlyArray<{ column: string; ddl: string }>;
  blockSize: number;
  /** Blocks fetched per query while reading; between fetches the event loop gets a turn. */
  blocksPerFetch: number;
  /** Stored form of one item (addresses are packed into arrays); the item itself when absent. */
  pack?: (item: Item) => unknown;
  unpack?: (stored: unknown) => Item;
  misuse: VersionMisuse;
}

/** The columns every version row has; a store's own row adds its scope and count columns. */
export interface EmbeddedVersionRow {
  vkey: number;
  id: string;
  published_on: string;
  created_at: string;
  activated_at: string | null;
  sealed: number;
  appended_count: number;
  block_count: number;
}

export interface EmbeddedVersionedBlocks<Item, Row extends EmbeddedVersionRow> {
  create(id: string, scope: readonly SQLInputValue[], publishedOn: string, createdAt: string): void;
  append(id: string, items: readonly Item[]): void;
  seal(id: string): Row;
  read(id: string, chunkSize: number | undefined): AsyncIterable<Item[]>;
  activate(id: string, at: string): Row;
  getActive(scope: readonly SQLInputValue[]): Row | null;
  get(id: string): Row | null;
  /** Every version in creation order, or those of one scope. */
  list(scope?: readonly SQLInputValue[]): Row[];
}

const DEFAULT_CHUNK_SIZE = 10_000;

export function createEmbeddedVersionedBlocks<Item, Row extends EmbeddedVersionRow>(
  db: DatabaseSync, spec: EmbeddedVersionedBlocksSpec<Item>,
): EmbeddedVersionedBlocks<Item, Row> {
  const { versions, blocks, blockColumn, countColumn, scope, misuse } = spec;
  const scopeColumns = scope.map((s) => s.column);
  // `IS` rather than `=`: a scope column may be NULL (the national list has no owner).
  const inScope = scopeColumns.map((c) => `${c} IS ?`).join(' AND ');
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${versions} (
      vkey INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      ${scope.map((s) => `${s.ddl},`).join('\n      ')}
      published_on TEXT NOT NULL,
      created_at TEXT NOT NULL,
      activated_at TEXT,
      active INTEGER NOT NULL DEFAULT 0,
      sealed INTEGER NOT NULL DEFAULT 0,
      appended_count INTEGER NOT NULL DEFAULT 0,
      block_count INTEGER NOT NULL DEFAULT 0,
      ${countColumn} INTEGER NOT NULL DEFAULT 0
    );
    ${scope.length > 0 ? `CREATE INDEX IF NOT EXISTS ${versions}_active ON ${versions} (${scopeColumns.join(', ')}, active);` : ''}
    CREATE TABLE IF NOT EXISTS ${blocks} (
      vkey INTEGER NOT NULL,
      block INTEGER NOT NULL,
      ${blockColumn} TEXT NOT NULL,
      PRIMARY KEY (vkey, block)
    ) WITHOUT ROWID;
  `);
  const insertColumns = ['id', ...scopeColumns, 'published_on', 'created_at'];
  const insertVersion = db.prepare(
    `INSERT INTO ${versions} (${insertColumns.join(', ')}) VALUES (${insertColumns.map(() => '?').join(', ')})`,
  );
  const selectVersion = db.prepare(`SELECT * FROM ${versions} WHERE id = ?`);
  const selectVersions = db.prepare(`SELECT * FROM ${versions} ORDER BY vkey`);
  const selectScopeVersions = scope.length > 0
    ? db.prepare(`SELECT * FROM ${versions} WHERE ${inScope} ORDER BY vkey`) : selectVersions;
  const selectActive = db.prepare(`SELECT * FROM ${versions} WHERE ${scope.length > 0 ? `${inScope} AND ` : ''}active = 1`);
  const insertBlock = db.prepare(`INSERT INTO ${blocks} (vkey, block, ${blockColumn}) VALUES (?, ?, ?)`);
  const recordAppend = db.prepare(`UPDATE ${versions} SET appended_count = ?, block_count = ? WHERE vkey = ?`);
  const seal = db.prepare(`UPDATE ${versions} SET sealed = 1, ${countColumn} = appended_count WHERE vkey = ?`);
  const deactivate = db.prepare(`UPDATE ${versions} SET active = 0 WHERE ${scope.length > 0 ? `${inScope} AND ` : ''}active = 1`);
  const activate = db.prepare(`UPDATE ${versions} SET active = 1, activated_at = ? WHERE vkey = ?`);
  const selectBlocks = db.prepare(`SELECT block, ${blockColumn} AS items FROM ${blocks}
    WHERE vkey = ? AND block > ? ORDER BY block LIMIT ?`);
  const pack = spec.pack;
  const unpack = spec.unpack;

  function find(id: string): Row | null {
    return (selectVersion.get(id) as Row | undefined) ?? null;
  }

  function requireRow(id: string): Row {
    const row = find(id);
    if (!row) throw misuse.notFound(id);
    return row;
  }

  return {
    create(id, scopeValues, publishedOn, createdAt) {
      insertVersion.run(id, ...scopeValues, publishedOn, createdAt);
    },

    append(id, items) {
      if (items.length === 0) return;
      inTransaction(db, () => {
        const row = requireRow(id);
        if (row.sealed === 1) throw misuse.sealed(id);
        let block = row.block_count;
        for (let start = 0; start < items.length; start += spec.blockSize) {
          const slice = items.slice(start, start + spec.blockSize);
          insertBlock.run(row.vkey, block++, JSON.stringify(pack ? slice.map(pack) : slice));
        }
        recordAppend.run(row.appended_count + items.length, block, row.vkey);
      });
    },

    seal(id) {
      seal.run(requireRow(id).vkey);
      return requireRow(id);
    },

    async *read(id, chunkSize = DEFAULT_CHUNK_SIZE) {
      if (!Number.isInteger(chunkSize) || chunkSize < 1) {
        throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      }
      const { vkey } = requireRow(id);
      let pending: Item[] = [];
      let lastBlock = -1;
      for (;;) {
        const rows = selectBlocks.all(vkey, lastBlock, spec.blocksPerFetch) as Array<{ block: number; items: string }>;
        if (rows.length === 0) break;
        for (const row of rows) {
          for (const stored of JSON.parse(row.items) as unknown[]) {
            pending.push(unpack ? unpack(stored) : stored as Item);
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

    activate(id, at) {
      inTransaction(db, () => {
        const row = requireRow(id);
        if (row.sealed !== 1) throw misuse.notSealed(id);
        deactivate.run(...scopeColumns.map((c) => (row as unknown as Record<string, SQLInputValue>)[c]));
        activate.run(at, row.vkey);
      });
      return requireRow(id);
    },

    getActive(scopeValues) {
      return (selectActive.get(...scopeValues) as Row | undefined) ?? null;
    },

    get: find,

    list(scopeValues) {
      const rows = scopeValues ? selectScopeVersions.all(...scopeValues) : selectVersions.all();
      return rows as unknown as Row[];
    },
  };
}
