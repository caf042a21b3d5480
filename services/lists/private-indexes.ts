import type { ActiveAddressRegister } from '../addresses/active-register.ts';
import { createListIndexBuilder, type ListIndex } from '../domain/index.ts';
import type { Logger } from '../platform/logger.ts';
import { ListVersionNotFoundError } from '../platform/store/list-errors.ts';
import type { ListStore } from '../platform/store/lists-port.ts';
import { ListVersionNeverActivatedError } from './active-index.ts';

/**
 * Indexes of organisations' private lists (`source: customer` list versions, DECISIONS §16), built
 * from the platform's list store like the national index (never a local file), cached per
 * version id. Memory is bounded by entries, not by organisations: the cache keeps the most
 * recently used versions while their entries add up to at most `maxEntries`
 * (PRIVATE_LIST_CACHE_ENTRIES); the least recently used go first. A single version larger than
 * the bound is still built and used, alone. An index costs about 70 bytes per entry (measured by
 * test/bench/private-lists.bench.ts: 1,000,000 entries, heap and typed arrays after GC), so the
 * default 1,000,000 entries is ~70 MB per process. A version id names immutable entries, so a cached index is never stale: an
 * organisation that activates a new private list gets a new id, built on first use.
 */
/** PRIVATE_LIST_CACHE_ENTRIES when nothing else is said (services/platform/config.ts). */
export const DEFAULT_PRIVATE_LIST_CACHE_ENTRIES = 1_000_000;

export interface PrivateListIndexes {
  /** The index of a customer list version that was activated; throws ListVersionNotFoundError / ListVersionNeverActivatedError / PrivateListNotCustomerError. */
  forVersion(versionId: string): Promise<ListIndex>;
  /** The organisation's active private list version id, or null when it has none. */
  activeVersionOf(orgId: string): Promise<string | null>;
}

export interface PrivateListIndexesDeps {
  listStore: ListStore;
  logger: Logger;
  maxEntries: number;
  addresses?: ActiveAddressRegister;
}

export class PrivateListNotCustomerError extends Error {
  constructor(id: string) {
    super(`list version ${id} is not a customer (private) list`);
    this.name = 'PrivateListNotCustomerError';
  }
}

export function createPrivateListIndexes(deps: PrivateListIndexesDeps): PrivateListIndexes {
  const logger = deps.logger.child({ module: 'lists.private-indexes' });
  /** Version id → build (or built index) and its entry count; Map order is least recently used first. */
  const cache = new Map<string, { index: Promise<ListIndex>; entries: number }>();

  function evict(keep: string): void {
    let total = 0;
    for (const { entries } of cache.values()) total += entries;
    for (const [id, { entries }] of cache) {
      if (total <= deps.maxEntries) return;
      if (id === keep) continue;
      cache.delete(id);
      total -= entries;
    }
  }

  async function build(versionId: string): Promise<{ index: ListIndex; entries: number }> {
    const version = await deps.listStore.getListVersion(versionId);
    if (!version) throw new ListVersionNotFoundError(versionId);
    if (version.source !== 'customer') throw new PrivateListNotCustomerError(versionId);
    if (version.activated_at === null) throw new ListVersionNeverActivatedError(versionId);
    const builder = createListIndexBuilder(deps.addresses?.current()?.register ?? null);
    let entries = 0;
    for await (const chunk of deps.listStore.readListEntries(versionId)) {
      for (const entry of chunk) builder.add(entry);
      entries += chunk.length;
    }
    logger.info({ list_version_id: versionId, entries }, 'private_list.index_built');
    return { index: builder.build(), entries };
  }

  return {
    forVersion(versionId) {
      const cached = cache.get(versionId);
      if (cached) {
        cache.delete(versionId);
        cache.set(versionId, cached);
        return cached.index;
      }
      const slot = { index: null as unknown as Promise<ListIndex>, entries: 0 };
      slot.index = build(versionId).then(({ index, entries }) => {
        slot.entries = entries;
        evict(versionId);
        return index;
      });
      cache.set(versionId, slot);
      // A failed build is forgotten, so the next call tries again.
      slot.index.catch(() => {
        if (cache.get(versionId) === slot) cache.delete(versionId);
      });
      return slot.index;
    },
    async activeVersionOf(orgId) {
      return (await deps.listStore.getActiveListVersion('customer', orgId))?.id ?? null;
    },
  };
}
