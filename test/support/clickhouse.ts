import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { migrate, MIGRATIONS_DIR } from '../../services/platform/store/clickhouse/migrate.ts';
import { ident, sql, type Statement } from '../../services/platform/store/clickhouse/sql.ts';
import { servers, startHint } from './servers.ts';

/**
 * A migrated database of its own on the test ClickHouse (servers.clickhouseUrl), dropped by
 * `drop()`. Throws, never skips, when the server does not answer: the message says how to start it.
 */
export async function openTestClickHouse(label: string): Promise<{ conn: ClickHouseConnection; drop(): Promise<void> }> {
  const { conn, drop } = await openUnmigrated(label);
  await migrate(conn);
  return { conn, drop };
}

/**
 * A database of its own migrated only up to the migration before `version`, as a deployment
 * that has not taken `version` yet holds it; `migrateRest()` then applies the rest as an upgrade
 * would (migrate.ts, the real files).
 */
export async function openTestClickHouseBefore(label: string, version: number): Promise<{
  conn: ClickHouseConnection; migrateRest(): Promise<number[]>; drop(): Promise<void>;
}> {
  const { conn, drop } = await openUnmigrated(label);
  const older = mkdtempSync(join(tmpdir(), 'robinson-migrations-'));
  try {
    for (const file of readdirSync(MIGRATIONS_DIR)) if (Number(file.slice(0, 3)) < version) copyFileSync(join(MIGRATIONS_DIR, file), join(older, file));
    await migrate(conn, { dir: older });
  } finally {
    rmSync(older, { recursive: true, force: true });
  }
  return { conn, migrateRest: () => migrate(conn), drop };
}

async function openUnmigrated(label: string): Promise<{ conn: ClickHouseConnection; drop(): Promise<void> }> {
  const url = servers.clickhouseUrl;
  try {
    const response = await fetch(new URL('/ping', url), { signal: AbortSignal.timeout(3000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  } catch (error) {
    throw new Error(`ClickHouse does not answer at ${url} (${(error as Error).message}); ${startHint}`);
  }
  const database = `robinson_test_${label}_${randomBytes(5).toString('hex')}`;
  const conn = createClickHouseConnection({ url, database });
  return {
    conn,
    async drop() {
      await conn.command(sql`DROP DATABASE IF EXISTS ${ident(database)}`);
      await conn.close();
    },
  };
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', "'": "\\'" };

/**
 * Runs a statement on the test ClickHouse over plain HTTP, without a client (for tests that look
 * at a deployment's database from outside): its values travel as `param_*` URL parameters, as
 * @clickhouse/client sends them. Rows come back parsed from JSONEachRow; a failure throws the
 * server's own message.
 */
export async function clickhouseOverHttp<T>(statement: Statement, options: { rows?: boolean } = {}): Promise<T[]> {
  const url = new URL('/', servers.clickhouseUrl);
  for (const [name, value] of Object.entries(statement.params)) {
    if (Array.isArray(value)) throw new Error('clickhouseOverHttp takes scalar parameters; use the client for arrays');
    // The escaped text form the server parses a parameter from (as the client writes it).
    url.searchParams.set(`param_${name}`, String(value).replace(/[\\\t\n\r']/g, (c) => ESCAPES[c]));
  }
  const body = options.rows === false ? statement.query : `${statement.query} FORMAT JSONEachRow`;
  const response = await fetch(url, { method: 'POST', body });
  const text = await response.text();
  if (!response.ok) throw new Error(text);
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as T);
}
