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

function boundedCache<T>(options: { maxStaleMs: number; now: () => number; maxEntries?: number }) {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { value: T; readAt: number }>();
  return {
    async get(id: string, read: () => Promise<T | null>): Promise<T | null> {
      const now = options.now();
      const kept = entries.get(id);
      // Read at `readAt`, so the answer is at most now - readAt old: within the bound, it stands.
      if (kept && now - kept.readAt < options.maxStaleMs) return kept.value;
      entries.delete(id);
      const value = await read();
      if (value === null) return null;
      entries.set(id, { value, readAt: now });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      return value;
    },
    forget(id: string): void {
      entries.delete(id);
    },
    forgetWhere(matches: (value: T) => boolean): void {
      for (const [id, entry] of entries) if (matches(entry.value)) entries.delete(id);
    },
  };
}
