/**
 * Where the service keeps its own keys (not customers' data): the Ed25519 keys that sign job
 * certificates, the HMAC secrets that seal result cursors (docs/decisions.md §7, §10) and, unless configured,
 * the master keys that wrap job data keys (data-keys.ts).
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - `addKey` is durable once it resolves and idempotent on (purpose, kid): adding the same key
 *   again changes nothing; a key is never changed or removed by this port (old certificates and
 *   cursors must keep verifying).
 * - `listKeys` returns every key of a purpose, newest `created_at` first, ties by kid; the first
 *   one is the key that signs, every one verifies.
 *
 * Does not promise one winner: two processes that both find no key and both add one leave two
 * keys, and both verify. That is why every user signs with "the newest" and verifies with "any".
 */
export type KeyPurpose = 'certificate' | 'cursor' | 'data_master';

export interface StoredKey {
  purpose: KeyPurpose;
  /** The key's id (a certificate key: its RFC 7638 JWK thumbprint). */
  kid: string;
  /** The secret, base64url: a PKCS#8 DER private key (certificate) or 32 random bytes (cursor). */
  secret: string;
  created_at: string;
}

export interface KeyRing {
  listKeys(purpose: KeyPurpose): Promise<StoredKey[]>;
  addKey(key: StoredKey): Promise<void>;
}

/** Newest first, ties by kid: the order listKeys promises, for adapters that sort in code. */
export function newestFirst(a: StoredKey, b: StoredKey): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0;
}
