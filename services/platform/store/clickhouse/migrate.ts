import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../logger.ts';
import type { ClickHouseConnection } from './connection.ts';
import { ident, sql, statement } from './sql.ts';

/**
 * Applies infra/clickhouse/migrations/NNN_name.sql in order, each once: applied versions are
 * recorded in `schema_migrations`. Files write `{database}` where the database name goes; their
 * statements are separated by `;` at the end of a line. Every statement is written to be safe to
 * run again (IF NOT EXISTS), so a migration interrupted half-way is simply applied again.
 * Two processes migrating at once run the same idempotent statements; no harm done.
 *
 * 001-004 were rewritten in place for ClickHouse 25.8 (LowCardinality, TTL) before any production
 * deployment held data; from here on an applied migration is never edited: add one.
 */
export const MIGRATIONS_DIR = new URL('../../../../infra/clickhouse/migrations/', import.meta.url).pathname;

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    migrations.push({ version: Number(file.slice(0, 3)), name: file.slice(4, -4), statements: splitStatements(text) });
  }
  const versions = migrations.map((m) => m.version);
  if (new Set(versions).size !== versions.length) throw new Error(`duplicate migration numbers in ${dir}`);
  return migrations;
}

/** Statements of one file: comments dropped, split at `;` ending a line. */
export function splitStatements(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Creates the database if needed and applies every migration not yet recorded. Returns those applied. */
export async function migrate(
  conn: ClickHouseConnection,
  options: { logger?: Logger; dir?: string; now?: () => Date } = {},
): Promise<number[]> {
  const database = ident(conn.database);
  const table = conn.table('schema_migrations');
  await conn.command(sql`CREATE DATABASE IF NOT EXISTS ${database}`);
  await conn.command(sql`CREATE TABLE IF NOT EXISTS ${table} (
    version UInt32, name String, applied_at String
  ) ENGINE = ReplacingMergeTree() ORDER BY version`);
  const done = new Set(
    (await conn.rows<{ version: number }>(sql`SELECT version FROM ${table} FINAL`)).map((r) => Number(r.version)),
  );
  const applied: number[] = [];
  for (const migration of await loadMigrations(options.dir)) {
    if (done.has(migration.version)) continue;
    for (const text of migration.statements) {
      await conn.command(statement(text.replaceAll('{database}', database.name)));
    }
    const at = (options.now?.() ?? new Date()).toISOString();
    await conn.command(sql`INSERT INTO ${table} (version, name, applied_at) VALUES (${migration.version}, ${migration.name}, ${at})`);
    options.logger?.info({ version: migration.version, migration: migration.name }, 'clickhouse.migration_applied');
    applied.push(migration.version);
  }
  return applied;
}
