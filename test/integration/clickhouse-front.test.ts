import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { createClient, ClickHouseError, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ident, sql } from '../../services/platform/store/clickhouse/sql.ts';
import { openTestClickHouse } from '../support/clickhouse.ts';
import { servers } from '../support/servers.ts';

/**
 * What the service needs from ClickHouse's HTTP interface, asserted against the test ClickHouse
 * (infra/local/chdb.sh: the 25.8 engine behind its HTTP front; the same assertions hold for a real
 * 25.8 server). The store contracts cover the adapter's queries; this file covers what they take
 * for granted: values survive the parameter path exactly, errors arrive in ClickHouse's format,
 * gzip both ways, and concurrent clients (other databases, settings, sessions) never see each
 * other's state through the one engine.
 */
let db: Awaited<ReturnType<typeof openTestClickHouse>>;
const clients: ClickHouseClient[] = [];

function client(options: Parameters<typeof createClient>[0] = {}): ClickHouseClient {
  const made = createClient({ url: servers.clickhouseUrl, log: { level: ClickHouseLogLevel.OFF }, ...options });
  clients.push(made);
  return made;
}

beforeAll(async () => {
  db = await openTestClickHouse('front');
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await db?.drop();
});

describe('values as typed query parameters', () => {
  const awkward = [
    "'; DROP TABLE jobs; --",
    "x' OR '1'='1",
    "\\'; DROP TABLE jobs; --",
    'back\\slash at the end\\',
    '\\',
    "'",
    'NUL\u0000inside',
    'new\nline\r\ttab',
    '\u007f delete char',
    'Søren Ærø Åbenrå é 😀 漢字',
    '\u2028\u2029 line separators',
    '{p0:String} looks like a placeholder',
    '\\x27 looks like an escape',
    '',
  ];

  it('round-trip every string exactly and find it again by equality', async () => {
    const table = db.conn.table('awkward');
    await db.conn.command(sql`CREATE TABLE ${table} (i UInt32, s String) ENGINE = MergeTree ORDER BY i`);
    await db.conn.insert('awkward', awkward.map((s, i) => ({ i, s })));
    for (const [i, value] of awkward.entries()) {
      const rows = await db.conn.rows<{ i: number; s: string }>(sql`SELECT i, s FROM ${table} WHERE s = ${value}`);
      expect(rows, JSON.stringify(value)).toEqual([{ i, s: value }]);
      const [echo] = await db.conn.rows<{ v: string }>(sql`SELECT ${value} AS v`);
      expect(echo.v).toBe(value);
    }
  });

  it('compare with narrower columns (UInt32, Enum8, LowCardinality) and arrays', async () => {
    const table = db.conn.table('typed');
    await db.conn.command(sql`CREATE TABLE ${table} (
      n UInt32, e Enum8('a' = 1, 'b' = 2), l LowCardinality(String)) ENGINE = MergeTree ORDER BY n`);
    await db.conn.insert('typed', [{ n: 1, e: 'a', l: 'x' }, { n: 2, e: 'b', l: 'y' }, { n: 3, e: 'b', l: 'x' }]);
    const found = await db.conn.rows<{ n: number }>(sql`SELECT n FROM ${table}
      WHERE n > ${1} AND e = ${'b'} AND l IN ${['x', 'z']} ORDER BY n`);
    expect(found).toEqual([{ n: 3 }]);
  });
});

describe("ClickHouse's error format", () => {
  it('a bad query: code and message from the server, nothing else', async () => {
    const error = await db.conn.rows(sql`SELECT no_such_column FROM system.one`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClickHouseError);
    expect((error as ClickHouseError).code).toBe('47');
    expect((error as ClickHouseError).type).toBe('UNKNOWN_IDENTIFIER');
  });

  it('status code, X-ClickHouse-Exception-Code header and `Code: N. DB::Exception:` body over plain HTTP', async () => {
    const response = await fetch(new URL('/', servers.clickhouseUrl), {
      method: 'POST', body: `SELECT * FROM ${db.conn.database}.no_such_table`,
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-clickhouse-exception-code')).toBe('60');
    expect(await response.text()).toMatch(/^Code: 60\. DB::Exception: .*no_such_table.*UNKNOWN_TABLE/);
  });

  it('a missing parameter is an error, never an earlier request\'s value', async () => {
    await db.conn.rows(sql`SELECT ${'first'} AS v`);
    const response = await fetch(new URL('/', servers.clickhouseUrl), { method: 'POST', body: 'SELECT {p0:String}' });
    expect(response.status).not.toBe(200);
    expect(response.headers.get('x-clickhouse-exception-code')).toBe('456'); // UNKNOWN_QUERY_PARAMETER
  });
});

describe('HTTP details the client relies on', () => {
  it('gzip request and response bodies', async () => {
    const zipped = client({ database: db.conn.database, compression: { request: true, response: true } });
    const table = ident(db.conn.database, 'zipped');
    await zipped.command({ query: `CREATE TABLE ${table.name} (i UInt32, s String) ENGINE = MergeTree ORDER BY i` });
    const values = Array.from({ length: 5000 }, (_, i) => ({ i, s: `row ${i} ${'x'.repeat(i % 50)}` }));
    await zipped.insert({ table: table.name, values, format: 'JSONEachRow' });
    const result = await zipped.query({ query: `SELECT i, s FROM ${table.name} ORDER BY i`, format: 'JSONEachRow' });
    expect(await result.json()).toEqual(values);
    const raw = await fetch(new URL('/?enable_http_compression=1', servers.clickhouseUrl), {
      method: 'POST', body: 'SELECT 1', headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(raw.headers.get('content-encoding')).toBe('gzip');
  });

  it('a bulk insert (256 KiB or more, which the chDB front hands the engine as a file) stores every value as an inline one does, with its settings, and fails as one does', async () => {
    const c = client({ database: db.conn.database });
    const table = ident(db.conn.database, 'bulk');
    await c.command({ query: `CREATE TABLE ${table.name} (i UInt32, s String, n Nullable(String)) ENGINE = MergeTree ORDER BY i SETTINGS non_replicated_deduplication_window = 10` });
    // Tabs, newlines, backslashes and non-ASCII text escaped as TabSeparated (the store's tsvEscape).
    const escape = (v: string) => v.replace(/[\\\t\n\r]/g, (ch) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[ch]!);
    const value = (i: number) => `Søren ${i}\t"line"\nback\\slash ${'x'.repeat(i % 500)}`;
    const lines = Array.from({ length: 6000 }, (_, i) => `${i}\t${escape(value(i))}\t${i % 3 === 0 ? '\\N' : escape(`{"row":${i}}`)}\n`);
    const text = lines.join('');
    expect(Buffer.byteLength(text)).toBeGreaterThan(1 << 20);
    const insert = (body: string, settings = {}) => c.insert({ table: table.name, columns: ['i', 's', 'n'], format: 'TabSeparated', values: Readable.from([body], { objectMode: false }), clickhouse_settings: settings });
    // Its settings apply: the same insert again under the same deduplication token is dropped.
    await insert(text, { insert_deduplicate: 1, insert_deduplication_token: 'bulk-1' });
    await insert(text, { insert_deduplicate: 1, insert_deduplication_token: 'bulk-1' });
    const rows = await (await c.query({ query: `SELECT i, s, n FROM ${table.name} ORDER BY i`, format: 'JSONEachRow' })).json<{ i: number; s: string; n: string | null }>();
    expect(rows).toHaveLength(6000);
    for (const i of [0, 1, 499, 5999]) expect(rows[i]).toEqual({ i, s: value(i), n: i % 3 === 0 ? null : `{"row":${i}}` });
    // A row the format cannot read fails the whole insert with ClickHouse's parse error, as inline.
    const broken = `${text}not-a-number\tx\t\\N\n`;
    const failure = await insert(broken).then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(ClickHouseError);
    expect((failure as ClickHouseError).code).toBe('27');
    const [count] = await (await c.query({ query: `SELECT count() AS n FROM ${table.name}`, format: 'JSONEachRow' })).json<{ n: string | number }>();
    expect(Number(count.n)).toBe(6000);
  });

  it('query id, format and summary headers; /ping', async () => {
    const c = client();
    const result = await c.query({ query: 'SELECT number FROM system.numbers LIMIT 3', format: 'JSONEachRow', query_id: 'front-test-id' });
    expect(result.query_id).toBe('front-test-id');
    expect(result.response_headers['x-clickhouse-query-id']).toBe('front-test-id');
    expect(result.response_headers['x-clickhouse-format']).toBe('JSONEachRow');
    expect(JSON.parse(String(result.response_headers['x-clickhouse-summary']))).toHaveProperty('read_rows');
    // UInt64 as a JSON number or string, by output_format_json_quote_64bit_integers; the adapters
    // take either (Number()).
    expect((await result.json<{ number: string | number }>()).map((r) => Number(r.number))).toEqual([0, 1, 2]);
    expect((await c.ping()).success).toBe(true);
  });
});

describe('concurrent clients share one engine without sharing state', () => {
  it('each request runs in its own database', async () => {
    const other = await openTestClickHouse('front_other');
    try {
      const a = client({ database: db.conn.database });
      const b = client({ database: other.conn.database });
      await a.command({ query: 'CREATE TABLE whoami (name String) ENGINE = Memory' });
      await b.command({ query: 'CREATE TABLE whoami (name String) ENGINE = Memory' });
      await a.insert({ table: 'whoami', values: [{ name: 'a' }], format: 'JSONEachRow' });
      await b.insert({ table: 'whoami', values: [{ name: 'b' }], format: 'JSONEachRow' });
      const ask = async (c: ClickHouseClient) =>
        (await (await c.query({ query: 'SELECT name FROM whoami', format: 'JSONEachRow' })).json<{ name: string }>())[0].name;
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => ask(i % 2 === 0 ? a : b)));
      expect(answers).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'a' : 'b')));
    } finally {
      await other.drop();
    }
  });

  it("one request's settings never reach another's", async () => {
    const tuned = client({ clickhouse_settings: { max_block_size: '1234' } });
    const plain = client();
    const ask = async (c: ClickHouseClient) =>
      Number((await (await c.query({ query: "SELECT getSetting('max_block_size') AS v", format: 'JSONEachRow' })).json<{ v: string }>())[0].v);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(i % 2 === 0 ? tuned : plain)));
    expect(answers.filter((_, i) => i % 2 === 0)).toEqual(Array(10).fill(1234));
    expect(answers.filter((_, i) => i % 2 === 1).every((v) => v !== 1234)).toBe(true);
  });

  it('a SET lasts for its session only', async () => {
    const session = `front-${randomBytes(4).toString('hex')}`;
    const inSession = client({ session_id: session });
    const outside = client();
    await inSession.command({ query: 'SET max_block_size = 4321' });
    const ask = async (c: ClickHouseClient) =>
      Number((await (await c.query({ query: "SELECT getSetting('max_block_size') AS v", format: 'JSONEachRow' })).json<{ v: string }>())[0].v);
    expect(await ask(outside)).not.toBe(4321);
    expect(await ask(inSession)).toBe(4321);
    expect(await ask(outside)).not.toBe(4321);
  });

});
