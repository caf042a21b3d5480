import type { ActiveAddressRegister } from '../addresses/active-register.ts';
import type { AddressRegister, ListIndex } from '../domain/index.ts';
import { createListIndexBuilder } from '../domain/index.ts';
import { createPreviousAddressDeriver, previousAddressCutoff } from '../domain/previous-addresses.ts';
import type { ListVersionRef } from '../domain/types.ts';
import type { Logger } from '../platform/logger.ts';
import { ListVersionNotFoundError } from '../platform/store/list-errors.ts';
import type { ListStore, ListVersion } from '../platform/store/lists-port.ts';

/**
 * The in-memory index of the active national (cpr) list version, built from the list store (never
 * from a local file, so every process builds the same index from the platform).
 *
 * `refresh()` looks up the active version and, when it changed, builds the new index in the
 * background of the old one and swaps them in one assignment: a check runs against either the old
 * or the new version, never a mix. The index of the version before stays cached (two versions in
 * all, least recently used goes) so jobs pinned to it keep running without a rebuild.
 * Nothing here runs by itself: the process that owns it calls `refresh()` at boot and on a timer.
 */
export interface ActiveListIndex {
  refresh(): Promise<void>;
  current(): { version: ListVersion; index: ListIndex } | null;
  /** The index of any version that was activated (e.g. one a job pinned), built on first use. */
  forVersion(versionId: string): Promise<ListIndex>;
  /** The active address register the indexes are built with (null: none imported, text only). */
  addressRegister(): AddressRegister | null;
}

export interface ActiveListIndexDeps {
  listStore: ListStore;
  logger: Logger;
  /** How many version indexes to keep in memory, the active one included. Default 2. */
  cacheSize?: number;
  /** Entries read from the store per chunk while building. */
  readChunkSize?: number;
  /**
   * The active address register (issue 13), refreshed with the list. Indexes are built with the
   * register current at build time; when another register version becomes active every cached
   * index is dropped and the active one rebuilt, so a check never mixes two registers.
   */
  addresses?: ActiveAddressRegister;
}

export function createActiveListIndex(deps: ActiveListIndexDeps): ActiveListIndex {
  const { listStore } = deps;
  const logger = deps.logger.child({ module: 'lists.active-index' });
  const cacheSize = Math.max(1, deps.cacheSize ?? 2);
  /** Version id → its index (or the build in flight); Map order is least recently used first. */
  const cache = new Map<string, Promise<ListIndex>>();
  let active: { version: ListVersion; index: ListIndex } | null = null;
  let refreshing: Promise<void> | null = null;

  async function build(versionId: string): Promise<ListIndex> {
    // Only a version that was activated is whole (sealed) and may be pinned by a job; an index
    // of a half-imported version would silently miss entries.
    const version = await listStore.getListVersion(versionId);
    if (!version) throw new ListVersionNotFoundError(versionId);
    if (version.activated_at === null) throw new ListVersionNeverActivatedError(versionId);
    const started = performance.now();
    const builder = createListIndexBuilder(deps.addresses?.current()?.register ?? null);
    const earlier = version.source === 'cpr' ? await earlierVersions(version) : [];
    const previous = earlier.length > 0 ? createPreviousAddressDeriver() : null;
    let count = 0;
    for await (const chunk of listStore.readListEntries(versionId, deps.readChunkSize)) {
      for (const entry of chunk) {
        builder.add(entry);
        previous?.note(entry);
      }
      count += chunk.length;
    }
    // Previous addresses from earlier versions (DECISIONS §1): computed here, when the index of a
    // version is built (at its activation, by every process that checks against it), from the
    // store's versions, so every process derives the same entries (docs/matching.md).
    for (const older of earlier) {
      for await (const chunk of listStore.readListEntries(older.id, deps.readChunkSize)) {
        for (const entry of previous?.derive(chunk) ?? []) builder.add(entry);
      }
    }
    const index = builder.build();
    logger.info({
      list_version_id: versionId, entries: count, earlier_versions: earlier.length, previous_addresses: previous?.derived ?? 0,
      ms: Math.round(performance.now() - started),
    }, 'list.index_built');
    return index;
  }

  /**
   * The cpr versions that were activated and published before `version`, at most three years
   * before it, newest first.
   */
  async function earlierVersions(version: ListVersion): Promise<ListVersion[]> {
    const cutoff = previousAddressCutoff(version.published_on);
    return (await listStore.listListVersions())
      .filter((v) => v.source === 'cpr' && v.id !== version.id && v.activated_at !== null
        && v.published_on < version.published_on && v.published_on >= cutoff)
      .sort((a, b) => (a.published_on < b.published_on ? 1 : a.published_on > b.published_on ? -1 : 0));
  }

  function evict(): void {
    for (const id of cache.keys()) {
      if (cache.size <= cacheSize) return;
      if (id !== active?.version.id) cache.delete(id);
    }
  }

  function forVersion(versionId: string): Promise<ListIndex> {
    let entry = cache.get(versionId);
    if (entry) {
      cache.delete(versionId);
      cache.set(versionId, entry);
      return entry;
    }
    entry = build(versionId);
    cache.set(versionId, entry);
    // A failed build is forgotten, so the next call tries again.
    entry.catch(() => {
      if (cache.get(versionId) === entry) cache.delete(versionId);
    });
    evict();
    return entry;
  }

  let registerVersion: string | null = null;

  async function doRefresh(): Promise<void> {
    let registerChanged = false;
    if (deps.addresses) {
      await deps.addresses.refresh();
      const current = deps.addresses.current();
      const id = current === null ? null : `${current.version.id}@${current.version.activated_at}`;
      if (id !== registerVersion) {
        registerVersion = id;
        registerChanged = true;
        cache.clear();
      }
    }
    const version = await listStore.getActiveListVersion('cpr');
    if (!version) {
      if (active) logger.warn({ list_version_id: active.version.id }, 'list.active_missing');
      return;
    }
    if (!registerChanged && active && active.version.id === version.id && active.version.activated_at === version.activated_at) return;
    const index = await forVersion(version.id);
    const previous = active?.version.id ?? null;
    active = { version, index };
    evict();
    logger.info({ list_version_id: version.id, previous_list_version_id: previous, entry_count: version.entry_count }, 'list.active_swapped');
  }

  return {
    refresh() {
      // Concurrent callers share one refresh instead of building the same index twice.
      refreshing ??= doRefresh().finally(() => {
        refreshing = null;
      });
      return refreshing;
    },
    current: () => active,
    forVersion,
    addressRegister: () => deps.addresses?.current()?.register ?? null,
  };
}

export class ListVersionNeverActivatedError extends Error {
  constructor(id: string) {
    super(`list version ${id} was never activated; only activated versions are indexed`);
    this.name = 'ListVersionNeverActivatedError';
  }
}

/** The contract's ListVersionRef of a stored version (activated_at only once it was activated). */
export function toListVersionRef(version: ListVersion): ListVersionRef {
  return {
    id: version.id,
    source: version.source,
    published_on: version.published_on,
    ...(version.activated_at ? { activated_at: version.activated_at } : {}),
  };
}
