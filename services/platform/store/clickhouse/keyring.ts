import { newestFirst, type KeyRing, type StoredKey } from '../keyring-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * KeyRing on ClickHouse (migration 005_service_keys.sql). Read with FINAL so a key added twice
 * (two processes, or a retried insert) is listed once.
 */
export function createClickHouseKeyRing(conn: ClickHouseConnection): KeyRing {
  const table = conn.table('service_keys');
  return {
    async listKeys(purpose) {
      const rows = await conn.rows<StoredKey>(sql`SELECT purpose, kid, secret, created_at FROM ${table} FINAL WHERE purpose = ${purpose}`);
      return rows.map((row) => ({ purpose: row.purpose, kid: row.kid, secret: row.secret, created_at: row.created_at })).sort(newestFirst);
    },
    async addKey(key) {
      const known = await conn.rows<{ kid: string }>(sql`SELECT kid FROM ${table} FINAL WHERE purpose = ${key.purpose} AND kid = ${key.kid}`);
      if (known.length > 0) return; // unchanged, as the port promises
      await conn.insert('service_keys', [{ ...key }]);
    },
  };
}
