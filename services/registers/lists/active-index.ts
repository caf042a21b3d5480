import { AddressRegisterUnavailableError, type ActiveAddressRegister } from '../addresses/active-register.ts';
import type { AddressRegister, ListIndex } from '../../domain/index.ts';
import { createListIndexBuilder } from '../../domain/index.ts';
import { createPreviousAddressDeriver, previousAddressCutoff } from '../../domain/previous-addresses.ts';
import type { ListVersionRef } from '../../domain/types.ts';
import { activationOf, createActiveVersionHolder } from '../../platform/active-version.ts';
import type { Logger } from '../../platform/logger.ts';
import { ListVersionNotFoundError } from '../../platform/store/list-errors.ts';
import type { AddressVersion } from '../../platform/store/addresses-port.ts';
import type { ListStore, ListVersion } from '../../platform/store/lists-port.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * The in-memory index of the active national (cpr) list version, built from the list store (never
 * from a local file, so every process builds the same index from the platform).
 *
 * An index is built for a list version *and* an address register version (null: none, text
 * only): a check's answer depends on both, so a job pins both when queued and every process
 * checks its rows with exactly that pair (docs/addresses.md "One check, every channel").
 *
 * `refresh()` looks up the active list and register versions and, when either changed, builds the
 * new index in the background of the old one and swaps them in one assignment: a check runs
 * against either the old or the new pair, never a mix. The index of the pair before stays cached
 * (two pairs in all, least recently used goes) so jobs pinned to it keep running without a
 * rebuild. Nothing here runs by itself: the process that owns it calls `refresh()` at boot and on
 * a timer; a process that only serves pinned work (the matcher) never needs to.
 */
export interface ActiveListIndex {
  refresh(): Promise<void>;
  current(): ActiveIndexState | null;
  /**
   * The index of any list version that was activated, with the address register version given
   * (e.g. the pair a job pinned; null: without a register), built on first use.
   */
  forVersion(versionId: string, addressVersionId: string | null): Promise<ListIndex>;
  /** The address register the active index was built with (null: none, text only); before any list is active, the active register. */
  addressRegister(): AddressRegister | null;
}

/** The active pair and its index. */
export interface ActiveIndexState {
  version: ListVersion;
  /** The address register version the index was built with; null: none active, text only. */
  addressVersion: AddressVersion | null;
  index: ListIndex;
}

export interface ActiveListIndexDeps {
  listStore: ListStore;
  logger: Logger;
  /** How many (list, register) indexes to keep in memory, the active one included. Default 2. */
  cacheSize?: number;
  /** Entries read from the store per chunk while building. */
  readChunkSize?: number;
  /** The address registers (active and pinned); absent: every index is text only. */
  addresses?: ActiveAddressRegister;
}

export function createActiveListIndex(deps: ActiveListIndexDeps): ActiveListIndex {
  const { listStore } = deps;
  const logger = deps.logger.child({ module: 'lists.active-index' });
  /** The cache key of a (list, register) pair; JSON, so no version id can run into the other. */
  const keyOf = (versionId: string, addressVersionId: string | null) => JSON.stringify([versionId, addressVersionId]);

  /** The register of a pinned version; a pin without registers to read it is as gone as a missing version. */
  async function registerOf(addressVersionId: string | null): Promise<AddressRegister | null> {
    if (addressVersionId === null) return null;
    if (!deps.addresses) throw new AddressRegisterUnavailableError(addressVersionId, 'not_found');
    return (await deps.addresses.forVersion(addressVersionId)).register;
  }

  async function build(versionId: string, addressVersionId: string | null): Promise<ListIndex> {
    // Only a version that was activated is whole (sealed) and may be pinned by a job; an index
    // of a half-imported version would silently miss entries.
    const version = await listStore.getListVersion(versionId);
    if (!version) throw new ListVersionNotFoundError(versionId);
    if (version.activated_at === null) throw new ListVersionNeverActivatedError(versionId);
    const started = performance.now();
    const builder = createListIndexBuilder(await registerOf(addressVersionId));
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
    // Previous addresses from earlier versions (docs/decisions.md §1): computed here, when the index of a
    // version is built (at its activation, by every process that checks against it), from the
    // store's versions, so every process derives the same entries (docs/matching.md).
    for (const older of earlier) {
      for await (const chunk of listStore.readListEntries(older.id, deps.readChunkSize)) {
        for (const entry of previous?.derive(chunk) ?? []) builder.add(entry);
      }
    }
    const index = builder.build();
    logger.info({
      list_version_id: versionId, address_version_id: addressVersionId, entries: count, earlier_versions: earlier.length, previous_addresses: previous?.derived ?? 0,
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

  const holder = createActiveVersionHolder<ListIndex, ActiveIndexState>({
    build(key) {
      const [versionId, addressVersionId] = JSON.parse(key) as [string, string | null];
      return build(versionId, addressVersionId);
    },
    cacheSize: deps.cacheSize,
    async lookUpActive() {
      await deps.addresses?.refresh();
      const addressVersion = deps.addresses?.current()?.version ?? null;
      const version = await listStore.getActiveListVersion('cpr');
      if (!version) return null;
      return {
        key: keyOf(version.id, addressVersion?.id ?? null),
        // Either activation changing (a new list, a new register, a rollback of either) swaps.
        activation: `${activationOf(version)}|${activationOf(addressVersion)}`,
        stateOf: (index) => ({ version, addressVersion, index }),
      };
    },
    onMissing(previous) {
      logger.warn({ list_version_id: previous.version.id }, 'list.active_missing');
    },
    onSwap(state, previous) {
      logger.info({
        list_version_id: state.version.id, previous_list_version_id: previous?.version.id ?? null,
        address_version_id: state.addressVersion?.id ?? null, entry_count: state.version.entry_count,
      }, 'list.active_swapped');
    },
  });

  return {
    refresh: holder.refresh,
    current: holder.current,
    forVersion: (versionId, addressVersionId) => holder.forKey(keyOf(versionId, addressVersionId)),
    // The active index's register, so resolution and checks read addresses alike; before any list
    // version is active (address resolution needs no list), the loaded register.
    addressRegister() {
      const active = holder.current();
      return active ? active.index.register : deps.addresses?.current()?.register ?? null;
    },
  };
}

export class ListVersionNeverActivatedError extends PermanentError {
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
