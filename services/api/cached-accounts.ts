import type { AccountStore, ApiKeyRecord, Organisation } from '../platform/store/accounts-port.ts';

/**
 * The account store with its two per-request look-ups (key by hash, its organisation) kept for at
 * most `maxStaleMs`. Every request made both; on the distributed deployment they are two
 * ClickHouse round trips per request (docs/api-decisions.md "Authentication cache").
 *
 * Writes through this store (the portal revoking a key, an admin changing the organisation's
 * settings in this process) are seen by its look-ups at once: the written records are forgotten.
 * Writes by another process (the admin tool) are bounded, not avoided: an API process may accept
 * a revoked key or a suspended organisation for up to `maxStaleMs` after the write, never longer:
 * an entry older than that is read again. Only found records are kept: a key created a moment ago
 * works on its first request. At most `maxEntries` of each kind are kept (the oldest go first), so
 * a flood of made-up keys costs no memory (unknown keys are not kept at all). `maxStaleMs` 0: no
 * cache.
 */
export function cachedAccounts(
  accounts: AccountStore,
  options: { maxStaleMs: number; now: () => number; maxEntries?: number },
): AccountStore {
  if (options.maxStaleMs <= 0) return accounts;
  const keys = boundedCache<ApiKeyRecord>(options);
  const organisations = boundedCache<Organisation>(options);
  return {
    createOrganisation: (org) => accounts.createOrganisation(org),
    getOrganisation: (id) => organisations.get(id, () => accounts.getOrganisation(id)),
    async updateOrganisation(id, patch) {
      try {
        return await accounts.updateOrganisation(id, patch);
      } finally {
        organisations.forget(id);
      }
    },
    listOrganisations: () => accounts.listOrganisations(),
    createKey: (key) => accounts.createKey(key),
    findKeyByHash: (keyHash) => keys.get(keyHash, () => accounts.findKeyByHash(keyHash)),
    listKeys: (orgId) => accounts.listKeys(orgId),
    async revokeKey(id, at) {
      try {
        return await accounts.revokeKey(id, at);
      } finally {
        // Kept by hash, revoked by id: the entry of that id goes.
        keys.forgetWhere((key) => key.id === id);
      }
    },
  };
}

/**
 * Entries read at most `maxStaleMs` ago. One used in the second half of its bound is read again
 * in the background while it answers, so steady traffic never waits for a read (on the
 * distributed deployment two ClickHouse round trips every AUTH_CACHE_MS, which landed in a
 * request's p99: docs/api-decisions.md "Authentication cache"); the bound is unchanged, a value
 * older than it is never used. A read that started before a `forget` is not kept: it may hold the
 * record as it was before the write.
 */
function boundedCache<T>(options: { maxStaleMs: number; now: () => number; maxEntries?: number }) {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { value: T; readAt: number }>();
  const refreshing = new Set<string>();
  /** Counts forgets: a read keeps its answer only if none happened while it ran. */
  let forgets = 0;

  async function readAndKeep(id: string, read: () => Promise<T | null>): Promise<T | null> {
    const readAt = options.now();
    const forgetsBefore = forgets;
    const value = await read();
    if (forgets !== forgetsBefore) return value;
    if (value === null) {
      entries.delete(id);
      return null;
    }
    entries.delete(id);
    entries.set(id, { value, readAt });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    return value;
  }

  return {
    async get(id: string, read: () => Promise<T | null>): Promise<T | null> {
      const kept = entries.get(id);
      const age = kept ? options.now() - kept.readAt : Infinity;
      // Read at `readAt`, so the answer is at most now - readAt old: within the bound, it stands.
      if (kept && age < options.maxStaleMs) {
        if (age >= options.maxStaleMs / 2 && !refreshing.has(id)) {
          refreshing.add(id);
          // A failed refresh changes nothing: the entry runs out at its bound and is read then.
          readAndKeep(id, read).catch(() => undefined).finally(() => refreshing.delete(id));
        }
        return kept.value;
      }
      entries.delete(id);
      return readAndKeep(id, read);
    },
    forget(id: string): void {
      forgets += 1;
      entries.delete(id);
    },
    forgetWhere(matches: (value: T) => boolean): void {
      forgets += 1;
      for (const [id, entry] of entries) if (matches(entry.value)) entries.delete(id);
    },
  };
}
