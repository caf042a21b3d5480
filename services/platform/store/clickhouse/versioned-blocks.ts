import type { VersionMisuse } from '../versioned-blocks.ts';
import type { ClickHouseConnection } from './connection.ts';
import { ident, parameterType, sql, type SqlScalar, type Statement } from './sql.ts';

/**
 * The versioned-block store on ClickHouse, shared by the list, address and register stores
 * (clickhouse/lists.ts, clickhouse/addresses.ts, clickhouse/registers.ts; tables in
 * infra/clickhouse/migrations/), with the same rules as the embedded one
 * (embedded/versioned-blocks.ts): append only to an unsealed version, activate only a sealed one,
 * re-activating an older version (a rollback) is allowed and stamps a new `activated_at`.
 *
 * Items are stored in blocks of `blockSize` as JSON arrays, keyed by (version, block): a
 * 2,000,000-item version is 1,000 rows, appended with one insert per call and read back in block
 * order a few blocks per query. A version row is rewritten with revision + 1 on every change
 * (ReplacingMergeTree) and records how many blocks are whole, so blocks of an append that failed
 * half-way are never read (and are overwritten by the next append).
 *
 * The active version of a scope is the one with the highest activation_seq, so activating is one
 * write and a reader sees the old or the new version, never none and never both.
 */
export interface ClickHouseVersionedBlocksSpec<Item> {
  /** What a version is called in error messages: `list`, `address`, `register`. */
  noun: string;
  versions: string;
  blocks: string;
  /** Column of a block row that holds the JSON array, e.g. `entries`. */
  blockColumn: string;
  /** Column of a version row that holds the sealed item count, e.g. `entry_count`. */
  countColumn: string;
  /** Columns that name the scope of one active version; none for a store with one active version. */
  scope: readonly string[];
  blockSize: number;
  blocksPerFetch: number;
  /** Stored form of one item (addresses are packed into arrays); the item itself when absent. */
  pack?: (item: Item) => unknown;
  unpack?: (stored: unknown) => Item;
  misuse: VersionMisuse;
}

/** The columns every version row has; a store's own row adds its scope and count columns. */
export interface ClickHouseVersionRow {
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
}

export interface ClickHouseVersionedBlocks<Item, Row extends ClickHouseVersionRow> {
  create(id: string, scope: readonly SqlScalar[], publishedOn: string, createdAt: string): Promise<void>;
  append(id: string, items: readonly Item[]): Promise<void>;
  seal(id: string): Promise<Row>;
  read(id: string, chunkSize: number | undefined): AsyncIterable<Item[]>;
  activate(id: string, at: string): Promise<Row>;
  getActive(scope: readonly SqlScalar[]): Promise<Row | null>;
  get(id: string): Promise<Row | null>;
  /** Every version in creation order, or those of one scope. */
  list(scope?: readonly SqlScalar[]): Promise<Row[]>;
}

const DEFAULT_CHUNK_SIZE = 10_000;
const COUNTERS = ['revision', 'created_seq', 'activation_seq', 'sealed', 'appended_count', 'block_count'] as const;

export function createClickHouseVersionedBlocks<Item, Row extends ClickHouseVersionRow>(
  conn: ClickHouseConnection, spec: ClickHouseVersionedBlocksSpec<Item>,
): ClickHouseVersionedBlocks<Item, Row> {
  const { noun, misuse } = spec;
  const versions = conn.table(spec.versions);
  const blocks = conn.table(spec.blocks);
  const blockColumn = ident(spec.blockColumn);
  const pack = spec.pack;
  const unpack = spec.unpack;
  let lastCreatedSeq = 0;

  /** Creation order within a process, and by clock across processes (microsecond scale). */
  function nextCreatedSeq(): number {
    lastCreatedSeq = Math.max(Date.now() * 1000, lastCreatedSeq + 1);
    return lastCreatedSeq;
  }

  /** 64-bit integers arrive as JSON strings; make every counter a number. */
  function normalise(row: Row): Row {
    const counted = { ...row } as unknown as Record<string, unknown>;
    for (const column of [...COUNTERS, spec.countColumn]) counted[column] = Number(counted[column]);
    counted.activated_at = row.activated_at ?? null;
    return counted as unknown as Row;
  }

  /** ` AND source = {s0:String} AND …` for a scope's values, to append to a WHERE clause. */
  function inScope(values: readonly SqlScalar[]): Statement {
    const params: Record<string, SqlScalar> = {};
    const query = spec.scope.map((column, i) => {
      params[`s${i}`] = values[i];
      return ` AND ${ident(column).name} = {s${i}:${parameterType(values[i])}}`;
    }).join('');
    return { query, params };
  }

  /** Joins statements; their parameter names must differ (sql`` writes p0…, inScope s0…). */
  function joined(...parts: Statement[]): Statement {
    return {
      query: parts.map((p) => p.query).join(''),
      params: Object.assign({}, ...parts.map((p) => p.params)) as Statement['params'],
    };
  }

  function scopeOf(row: Row): SqlScalar[] {
    return spec.scope.map((column) => (row as unknown as Record<string, SqlScalar>)[column]);
  }

  async function find(id: string): Promise<Row | null> {
    const [row] = await conn.rows<Row>(sql`SELECT * FROM ${versions} FINAL WHERE id = ${id}`);
    return row ? normalise(row) : null;
  }

  async function requireRow(id: string): Promise<Row> {
    const row = await find(id);
    if (!row) throw misuse.notFound(id);
    return row;
  }

  async function write(row: Row): Promise<Row> {
    await conn.insert(spec.versions, [row]);
    return row;
  }

  return {
    async create(id, scope, publishedOn, createdAt) {
      if (await find(id)) throw new Error(`${noun} version ${id} already exists`);
      const row: Record<string, unknown> = {
        id, revision: 1, published_on: publishedOn, created_at: createdAt, created_seq: nextCreatedSeq(),
        activated_at: null, activation_seq: 0, sealed: 0, appended_count: 0, block_count: 0, [spec.countColumn]: 0,
      };
      spec.scope.forEach((column, i) => { row[column] = scope[i]; });
      await write(row as unknown as Row);
    },

    async append(id, items) {
      if (items.length === 0) return;
      const row = await requireRow(id);
      if (row.sealed === 1) throw misuse.sealed(id);
      const rows: Array<Record<string, string | number>> = [];
      for (let start = 0; start < items.length; start += spec.blockSize) {
        const slice = items.slice(start, start + spec.blockSize);
        rows.push({
          version_id: id, block: row.block_count + rows.length,
          [spec.blockColumn]: JSON.stringify(pack ? slice.map(pack) : slice),
        });
      }
      await conn.insert(spec.blocks, rows);
      await write({
        ...row, revision: row.revision + 1,
        appended_count: row.appended_count + items.length, block_count: row.block_count + rows.length,
      });
    },

    async seal(id) {
      const row = await requireRow(id);
      return write({ ...row, revision: row.revision + 1, sealed: 1, [spec.countColumn]: row.appended_count });
    },

    async *read(id, chunkSize = DEFAULT_CHUNK_SIZE) {
      if (!Number.isInteger(chunkSize) || chunkSize < 1) {
        throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
      }
      const { block_count: blockCount } = await requireRow(id);
      let pending: Item[] = [];
      for (let from = 0; from < blockCount; from += spec.blocksPerFetch) {
        const to = Math.min(from + spec.blocksPerFetch, blockCount);
        // TabSeparatedRaw: one block's JSON per line, unescaped (JSON text holds no raw tab or
        // newline), which spares a second JSON layer around every block.
        const text = await conn.text(sql`SELECT ${blockColumn} FROM ${blocks} FINAL
          WHERE version_id = ${id} AND block >= ${from} AND block < ${to} ORDER BY block`, 'TabSeparatedRaw');
        const fetched = text.split('\n').filter((line) => line.length > 0);
        if (fetched.length !== to - from) {
          throw new Error(`${noun} version ${id}: expected ${to - from} blocks from ${from}, found ${fetched.length}`);
        }
        for (const block of fetched) {
          for (const stored of JSON.parse(block) as unknown[]) {
            pending.push(unpack ? unpack(stored) : stored as Item);
            if (pending.length === chunkSize) {
              yield pending;
              pending = [];
            }
          }
        }
      }
      if (pending.length > 0) yield pending;
    },

    async activate(id, at) {
      const row = await requireRow(id);
      if (row.sealed !== 1) throw misuse.notSealed(id);
      const [{ seq }] = await conn.rows<{ seq: string }>(joined(
        sql`SELECT max(activation_seq) AS seq FROM ${versions} FINAL WHERE true`, inScope(scopeOf(row)),
      ));
      return write({ ...row, revision: row.revision + 1, activated_at: at, activation_seq: Number(seq) + 1 });
    },

    async getActive(scope) {
      const [row] = await conn.rows<Row>(joined(
        sql`SELECT * FROM ${versions} FINAL WHERE true`, inScope(scope), sql` ORDER BY activation_seq DESC LIMIT 1`,
      ));
      return row && Number(row.activation_seq) > 0 ? normalise(row) : null;
    },

    get: find,

    async list(scope) {
      const rows = await conn.rows<Row>(joined(
        sql`SELECT * FROM ${versions} FINAL WHERE true`, scope ? inScope(scope) : { query: '', params: {} },
        sql` ORDER BY created_seq, id`,
      ));
      return rows.map(normalise);
    },
  };
}
