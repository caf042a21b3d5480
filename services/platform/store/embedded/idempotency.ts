import type { DatabaseSync } from 'node:sqlite';
import { responsePrefixOf, type IdempotencyBegin, type IdempotencyScope, type IdempotencyStore, type StoredResponse } from '../idempotency-port.ts';
import { flushDeleted, inTransaction } from './database.ts';

interface Row {
  fingerprint: string;
  state: 'in_flight' | 'done';
  status: number | null;
  body: string | null;
  expires_at: string;
  lease_until: string;
}

const scopeText = (scope: IdempotencyScope) => `${scope.orgId}\u0000${scope.mode}\u0000${scope.endpoint}`;

/** IdempotencyStore on the embedded node:sqlite database (one table, created when constructed). */
export function createEmbeddedIdempotencyStore(db: DatabaseSync): IdempotencyStore {
  db.exec(`CREATE TABLE IF NOT EXISTS idempotency_keys (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
    status INTEGER,
    body TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    lease_until TEXT NOT NULL,
    PRIMARY KEY (scope, key)
  )`);
  db.exec('CREATE INDEX IF NOT EXISTS idempotency_keys_expires ON idempotency_keys (expires_at)');

  const select = db.prepare(
    'SELECT fingerprint, state, status, body, expires_at, lease_until FROM idempotency_keys WHERE scope = ? AND key = ?',
  );
  const upsert = db.prepare(`INSERT INTO idempotency_keys
      (scope, key, fingerprint, state, status, body, created_at, expires_at, lease_until)
      VALUES (?, ?, ?, 'in_flight', NULL, NULL, ?, ?, ?)
      ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'in_flight',
        status = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at,
        lease_until = excluded.lease_until`);
  const finish = db.prepare(
    "UPDATE idempotency_keys SET state = 'done', status = ?, body = ? WHERE scope = ? AND key = ? AND state = 'in_flight'",
  );
  const remove = db.prepare("DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND state = 'in_flight'");
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE expires_at < ?');
  // substr, not LIKE: an id is matched as it is, whatever characters it holds.
  const forgetAbout = db.prepare("DELETE FROM idempotency_keys WHERE state = 'done' AND substr(body, 1, ?) = ?");

  return {
    async begin(scope, key, fingerprint, { now, expiresAt, leaseUntil }): Promise<IdempotencyBegin> {
      const s = scopeText(scope);
      const nowText = now.toISOString();
      return inTransaction(db, () => {
        const row = select.get(s, key) as Row | undefined;
        const live = row && row.expires_at > nowText && (row.state === 'done' || row.lease_until > nowText);
        if (row && live) {
          if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
          if (row.state === 'in_flight') return { kind: 'in_flight' };
          return { kind: 'replay', response: { status: row.status ?? 200, body: row.body ?? '' } };
        }
        upsert.run(s, key, fingerprint, nowText, expiresAt.toISOString(), leaseUntil.toISOString());
        return { kind: 'started' };
      });
    },
    async complete(scope, key, response: StoredResponse) {
      finish.run(response.status, response.body, scopeText(scope), key);
    },
    async abandon(scope, key) {
      remove.run(scopeText(scope), key);
    },
    async purgeExpired(now) {
      const purged = Number(purge.run(now.toISOString()).changes);
      // A remembered answer may hold people (a preview, a check's addresses): the WAL keeps the
      // pages as they were until a checkpoint, so the purge ends with one (docs/privacy-and-proof.md
      // "Every store"). Nothing purged, nothing to flush: the sweep runs every few seconds.
      if (purged > 0) flushDeleted(db);
      return purged;
    },
    async forgetResponsesAbout(id) {
      const prefix = responsePrefixOf(id);
      forgetAbout.run(prefix.length, prefix);
    },
  };
}
