/**
 * The ClickHouse connection's bulk byte reads (services/platform/store/clickhouse/byte-reads.ts,
 * docs/platform-clickhouse-registry.md "Byte reads"), against the test ClickHouse: a plain
 * node:http request must send what @clickhouse/client sends (database, every kind of
 * query parameter) and fail as the client fails.
 */
import { ClickHouseError } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { queryParam } from '../../services/platform/store/clickhouse/byte-reads.ts';
import { sql } from '../../services/platform/store/clickhouse/sql.ts';
import { RowBinaryReader } from '../../services/platform/store/clickhouse/row-binary.ts';
import { openTestClickHouse } from '../support/clickhouse.ts';

const TRICKY = ['plain', "it's", 'back\\slash', 'tab\there', 'new\nline', 'cr\rhere', 'ÆØÅ æøå 😀', "\\'", '', '{p0:String}', '%&=+?#'];

let conn: ClickHouseConnection;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ conn, drop } = await openTestClickHouse('byte_reads'));
  await conn.command(sql`CREATE TABLE ${conn.table('byte_reads')} (k UInt32, v String) ENGINE = MergeTree ORDER BY k`);
  await conn.insert('byte_reads', TRICKY.map((v, k) => ({ k, v })));
}, 120_000);

afterAll(async () => {
  await conn?.close();
  await drop?.();
}, 120_000);

/** The strings of a RowBinary answer of one String column. */
function strings(bytes: Buffer): string[] {
  const reader = new RowBinaryReader(bytes);
  const found: string[] = [];
  while (!reader.done) found.push(reader.string().toString('utf8'));
  return found;
}

describe('ClickHouse byte reads (plain node:http, not the client)', () => {
  it('reads this connection\'s database and gives the same bytes as the client for string, number, boolean and array parameters', async () => {
    for (const [k, value] of TRICKY.entries()) {
      const statement = sql`SELECT v FROM ${conn.table('byte_reads')} WHERE v = ${value} AND k = ${k} AND ${true} AND has(${[value, 'x']}, v) AND ${-1.5} < 0`;
      const viaClient = await conn.client.exec({ query: `${statement.query}\nFORMAT RowBinary`, query_params: statement.params });
      const chunks: Buffer[] = [];
      for await (const chunk of viaClient.stream) chunks.push(chunk as Buffer);
      const bytes = await conn.rowBinary(statement);
      expect(strings(bytes)).toEqual([value]);
      expect(bytes.equals(Buffer.concat(chunks))).toBe(true);
    }
    // Unqualified table names resolve in the connection's database, as through the client.
    expect(strings(await conn.rowBinary(sql`SELECT currentDatabase()`))).toEqual([conn.database]);
  }, 120_000);

  it('formats parameters as the client does', () => {
    expect(TRICKY.map((v) => queryParam(v))).toEqual(['plain', "it\\'s", 'back\\\\slash', 'tab\\there', 'new\\nline', 'cr\\rhere', 'ÆØÅ æøå 😀', "\\\\\\'", '', '{p0:String}', '%&=+?#']);
    expect(queryParam([1, 2n, -3.5])).toBe('[1,2,-3.5]');
    expect(queryParam(["a'b", 'c'])).toBe("['a\\'b','c']");
    expect(queryParam([true, false])).toBe('[TRUE,FALSE]');
    expect(queryParam(true)).toBe('1');
    expect(queryParam(12345678901234n)).toBe('12345678901234');
  });

  it('fails as the client fails: a ClickHouse error with the server\'s code, for a bad query, a missing table and a missing parameter', async () => {
    const statements = [
      sql`SELECT v FROM ${conn.table('no_such_table')}`,
      { query: 'SELECT v FROM byte_reads WHERE', params: {} },
      { query: 'SELECT {missing:String}', params: {} },
    ];
    for (const statement of statements) {
      const viaClient = await conn.client.exec({ query: `${statement.query}\nFORMAT RowBinary`, query_params: statement.params }).catch((e: unknown) => e);
      const viaBytes = await conn.rowBinary(statement).catch((e: unknown) => e);
      expect(viaClient).toBeInstanceOf(ClickHouseError);
      expect(viaBytes).toBeInstanceOf(ClickHouseError);
      expect((viaBytes as ClickHouseError).code).toBe((viaClient as ClickHouseError).code);
      expect((viaBytes as ClickHouseError).type).toBe((viaClient as ClickHouseError).type);
    }
  }, 120_000);

  it('fails with a socket error, not a hang, when nothing listens', async () => {
    const gone = createClickHouseConnection({ url: 'http://127.0.0.1:9/', database: conn.database, requestTimeoutMs: 60_000 });
    try {
      await expect(gone.rowBinary(sql`SELECT 1`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await gone.close();
    }
  }, 120_000);
});
