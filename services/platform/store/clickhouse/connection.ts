import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { createByteReader } from './byte-reads.ts';
import { ident, type Identifier, type Statement } from './sql.ts';

/**
 * One ClickHouse client and the database every table of this service lives in. The adapters take
 * a connection as a plain argument; they never read the environment. The database name comes from
 * configuration (code, not requests) and is checked to be a plain identifier.
 *
 * Written for ClickHouse 25.8 (production; tests run the same engine through infra/local/chdb.sh):
 * statements come from sql.ts with their values as typed query parameters, rows travel as
 * JSONEachRow or TabSeparated data, never as SQL text.
 */
export interface ClickHouseConnection {
  client: ClickHouseClient;
  database: string;
  /** `database.name` as an identifier for the sql template. */
  table(name: string): Identifier;
  /** Runs a statement that returns no rows, with optional per-statement settings. */
  command(statement: Statement, settings?: ClickHouseSettings): Promise<void>;
  /** Runs a query and returns its rows. */
  rows<T>(statement: Statement): Promise<T[]>;
  /** Runs a query and returns its output in `format` as text (TabSeparatedRaw for bulk reads). */
  text(statement: Statement, format: 'TabSeparatedRaw'): Promise<string>;
  /**
   * Runs a query and returns its output as RowBinary bytes, undecoded: for bulk reads of stored
   * text that is served as it is (no escaping on the way, no string made of it here). Read over a
   * plain node:http(s) request with the client's settings (byte-reads.ts), not through the client.
   */
  rowBinary(statement: Statement): Promise<Buffer>;
  /** Inserts rows as JSONEachRow (values travel as JSON data, never as SQL text). */
  insert(table: string, rows: object[]): Promise<void>;
  /**
   * Inserts rows as TabSeparated text into `columns` (cheaper to write and to parse than JSON for
   * bulk rows). Each value must already be escaped with `tsvEscape`; lines end with `\n`.
   */
  insertTabSeparated(table: string, columns: readonly string[], text: string): Promise<void>;
  close(): Promise<void>;
}

export interface ClickHouseOptions {
  url: string;
  database: string;
  username?: string;
  password?: string;
  /** Per-request timeout in ms (default 60 s). */
  requestTimeoutMs?: number;
}

export function createClickHouseConnection(options: ClickHouseOptions): ClickHouseConnection {
  ident(options.database);
  const username = options.username ?? 'default';
  const password = options.password ?? '';
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const client = createClient({
    url: options.url,
    username,
    password,
    request_timeout: requestTimeoutMs,
    // No HTTP compression either way (the client's default, written down): the API and the
    // projection sit next to ClickHouse, and gzip cost more than it saved there (a 5 MB results
    // page 86 → 146 ms with gzip responses: docs/performance.md "Measurements").
    compression: { response: false, request: false },
    // The client would otherwise print failed queries (which may hold personal data) to the
    // console; errors reach the caller as exceptions and are logged there, without values.
    log: { level: ClickHouseLogLevel.OFF },
  });
  const bytes = createByteReader({ url: options.url, database: options.database, username, password, requestTimeoutMs });
  return {
    client,
    database: options.database,
    table: (name) => ident(options.database, name),
    async command({ query, params }, settings) {
      await client.command({ query, query_params: params, clickhouse_settings: settings });
    },
    async rows<T>({ query, params }: Statement) {
      const result = await client.query({ query, query_params: params, format: 'JSONEachRow' });
      return result.json<T>();
    },
    async text({ query, params }, format) {
      const result = await client.query({ query, query_params: params, format });
      return result.text();
    },
    rowBinary: (statement) => bytes.rowBinary(statement),
    async insert(table, rows) {
      if (rows.length === 0) return;
      await client.insert({ table: ident(options.database, table).name, format: 'JSONEachRow', values: rows });
    },
    async insertTabSeparated(table, columns, text) {
      if (text.length === 0) return;
      await client.insert({
        table: ident(options.database, table).name,
        columns: [...columns] as [string, ...string[]],
        format: 'TabSeparated',
        values: Readable.from([text], { objectMode: false }),
      });
    },
    async close() {
      bytes.close();
      await client.close();
    },
  };
}

/** A value as TabSeparated text: backslash, tab, newline and carriage return escaped. */
export function tsvEscape(value: string): string {
  if (!/[\\\t\n\r]/.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}
