import { AddressRegisterUnavailableError, type ActiveAddressRegister } from '../addresses/active-register.ts';
import { createListIndexBuilder, type ListIndex } from '../../domain/index.ts';
import type { Logger } from '../../platform/logger.ts';
import { ListVersionNotFoundError } from '../../platform/store/list-errors.ts';
import type { ListStore } from '../../platform/store/lists-port.ts';
import { ListVersionNeverActivatedError, toListVersionRef } from './active-index.ts';
import type { ListVersionRef } from '../../domain/types.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * Indexes of organisations' private lists (`source: customer` list versions, docs/decisions.md §16), built
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
  /**
   * The index of a customer list version that was activated, with the address register version
   * the national index of the same check uses (null: text only; docs/addresses.md "One check,
   * every channel"); throws ListVersionNotFoundError / ListVersionNeverActivatedError /
   * PrivateListNotCustomerError / AddressRegisterUnavailableError.
   */
  forVersion(versionId: string, addressVersionId: string | null): Promise<ListIndex>;
  /** The organisation's active private list version id, or null when it has none. */
  activeVersionOf(orgId: string): Promise<string | null>;
  /** A version forVersion has indexed, as results name it (docs/matching.md "Private lists"). */
  versionRef(versionId: string): Promise<ListVersionRef>;
}

export interface PrivateListIndexesDeps {
  listStore: ListStore;
  logger: Logger;
  maxEntries: number;
  /** The address registers (active and pinned); absent: every index is text only. */
  addresses?: ActiveAddressRegister;
}

export class PrivateListNotCustomerError extends PermanentError {
  constructor(id: string) {
    super(`list version ${id} is not a customer (private) list`);
    this.name = 'PrivateListNotCustomerError';
  }
}

export function createPrivateListIndexes(deps: PrivateListIndexesDeps): PrivateListIndexes {
  const logger = deps.logger.child({ module: 'lists.private-indexes' });
  /** `<version>|<register version>` → build (or built index) and its entry count; Map order is least recently used first. */
  const cache = new Map<string, { index: Promise<ListIndex>; entries: number }>();
  /** Versions indexed so far, as results name them: a few small records per organisation. */
  const refs = new Map<string, ListVersionRef>();

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

  async function build(versionId: string, addressVersionId: string | null): Promise<{ index: ListIndex; entries: number }> {
    const version = await deps.listStore.getListVersion(versionId);
    if (!version) throw new ListVersionNotFoundError(versionId);
    if (version.source !== 'customer') throw new PrivateListNotCustomerError(versionId);
    if (version.activated_at === null) throw new ListVersionNeverActivatedError(versionId);
    refs.set(versionId, toListVersionRef(version));
    let register = null;
    if (addressVersionId !== null) {
      // A pin without registers to read it is as unreadable as a gone version.
      if (!deps.addresses) throw new AddressRegisterUnavailableError(addressVersionId, 'not_found');
      register = (await deps.addresses.forVersion(addressVersionId)).register;
    }
    const builder = createListIndexBuilder(register);
    let entries = 0;
    for await (const chunk of deps.listStore.readListEntries(versionId)) {
      for (const entry of chunk) builder.add(entry);
      entries += chunk.length;
    }
    logger.info({ list_version_id: versionId, entries }, 'private_list.index_built');
    return { index: builder.build(), entries };
  }

  return {
    forVersion(versionId, addressVersionId) {
      const key = `${versionId}|${addressVersionId ?? ''}`;
      const cached = cache.get(key);
      if (cached) {
        cache.delete(key);
        cache.set(key, cached);
        return cached.index;
      }
      const slot = { index: null as unknown as Promise<ListIndex>, entries: 0 };
      slot.index = build(versionId, addressVersionId).then(({ index, entries }) => {
        slot.entries = entries;
        evict(key);
        return index;
      });
      cache.set(key, slot);
      // A failed build is forgotten, so the next call tries again.
      slot.index.catch(() => {
        if (cache.get(key) === slot) cache.delete(key);
      });
      return slot.index;
    },
    async versionRef(versionId) {
      const known = refs.get(versionId);
      if (known) return known;
      const version = await deps.listStore.getListVersion(versionId);
      if (!version) throw new ListVersionNotFoundError(versionId);
      return toListVersionRef(version);
    },
    async activeVersionOf(orgId) {
      return (await deps.listStore.getActiveListVersion('customer', orgId))?.id ?? null;
    },
  };
}
