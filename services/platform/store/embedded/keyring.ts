import type { DatabaseSync } from 'node:sqlite';
import { newestFirst, type KeyRing, type StoredKey } from '../keyring-port.ts';

/** KeyRing on the embedded database (see keyring-port.ts). INSERT OR IGNORE keeps a key unchanged. */
export function createEmbeddedKeyRing(db: DatabaseSync): KeyRing {
  db.exec(`CREATE TABLE IF NOT EXISTS service_keys (
    purpose TEXT NOT NULL,
    kid TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (purpose, kid)
  ) WITHOUT ROWID`);
  const insert = db.prepare('INSERT OR IGNORE INTO service_keys (purpose, kid, secret, created_at) VALUES (?, ?, ?, ?)');
  const select = db.prepare('SELECT purpose, kid, secret, created_at FROM service_keys WHERE purpose = ?');
  return {
    async listKeys(purpose) {
      return (select.all(purpose) as unknown as StoredKey[]).map((row) => ({ ...row })).sort(newestFirst);
    },
    async addKey(key) {
      insert.run(key.purpose, key.kid, key.secret, key.created_at);
    },
  };
}
