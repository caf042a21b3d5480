/**
 * The one holder of "the active version, built in memory" that the list index
 * (lists/active-index.ts), the address register (addresses/active-register.ts) and the company
 * and phone registers (companies/active-register.ts) share; each brings only how to build one
 * version and how to look up which is active.
 *
 * `refresh()` looks up the active version and, when its activation changed, builds the new one
 * beside the old and swaps them in one assignment: a reader sees the old or the new version,
 * never a mix and never none. Concurrent callers share one refresh. Built versions are cached by
 * key (the active one and the one before: two in all by default, least recently used goes, the
 * active one never), so work pinned to the version before (a job queued with it) finishes without
 * a rebuild; `forKey` builds any version on first use. A failed build is forgotten, so the next
 * call tries again. Nothing runs by itself: the owning process calls `refresh()` at boot and on a
 * timer.
 */
export interface ActiveVersionHolder<B, S> {
  refresh(): Promise<void>;
  current(): S | null;
  /** The built version under `key`, built on first use. */
  forKey(key: string): Promise<B>;
}

/** What `lookUpActive` found active. */
export interface ActiveLookup<B, S> {
  /** The cache key of the version to build (the list index's key names a pair of versions). */
  key: string;
  /**
   * Tells one activation from another: a rollback re-activates an older version with a new
   * `activated_at`, which must swap even though the key is the same.
   */
  activation: string;
  /** The state readers see, from the built version. */
  stateOf(built: B): S;
}

export interface ActiveVersionHolderDeps<B, S> {
  build(key: string): Promise<B>;
  /** The version active now; null: none (the holder keeps what it has). */
  lookUpActive(): Promise<ActiveLookup<B, S> | null>;
  /** How many built versions to keep, the active one included. Default 2. */
  cacheSize?: number;
  /** Told after every swap (to log it). */
  onSwap?(state: S, previous: S | null): void;
  /** Told when a refresh finds nothing active although something was (to warn). */
  onMissing?(previous: S): void;
}

export function createActiveVersionHolder<B, S>(deps: ActiveVersionHolderDeps<B, S>): ActiveVersionHolder<B, S> {
  const cacheSize = Math.max(1, deps.cacheSize ?? 2);
  /** Key → the built version (or the build in flight); Map order is least recently used first. */
  const cache = new Map<string, Promise<B>>();
  let active: { key: string; activation: string; state: S } | null = null;
  let refreshing: Promise<void> | null = null;

  function evict(): void {
    for (const key of cache.keys()) {
      if (cache.size <= cacheSize) return;
      if (key !== active?.key) cache.delete(key);
    }
  }

  function forKey(key: string): Promise<B> {
    let entry = cache.get(key);
    if (entry) {
      cache.delete(key);
      cache.set(key, entry);
      return entry;
    }
    entry = deps.build(key);
    cache.set(key, entry);
    entry.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
    evict();
    return entry;
  }

  async function doRefresh(): Promise<void> {
    const next = await deps.lookUpActive();
    if (!next) {
      if (active) deps.onMissing?.(active.state);
      return;
    }
    if (active && active.activation === next.activation) return;
    const built = await forKey(next.key);
    const previous = active?.state ?? null;
    active = { key: next.key, activation: next.activation, state: next.stateOf(built) };
    evict();
    deps.onSwap?.(active.state, previous);
  }

  return {
    refresh() {
      refreshing ??= doRefresh().finally(() => {
        refreshing = null;
      });
      return refreshing;
    },
    current: () => active?.state ?? null,
    forKey,
  };
}

/** One activation of a version, as `ActiveLookup.activation` compares them ('' for none). */
export function activationOf(version: { id: string; activated_at: string | null } | null): string {
  return version ? `${version.id}@${version.activated_at ?? ''}` : '';
}
