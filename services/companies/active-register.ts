import type { Logger } from '../platform/logger.ts';
import {
  RegisterVersionNotFoundError, type RegisterKind, type RegisterStore, type RegisterVersion,
} from '../platform/store/registers-port.ts';

/**
 * The in-memory lookup of a register's active version (companies or phones), built from the
 * platform's RegisterStore, never from a local file: every process builds the same one. The same
 * design as the list index (services/lists/active-index.ts): `refresh()` builds a newly activated
 * version beside the old one and swaps them in one assignment, so a check runs against the old or
 * the new version, never a mix and never none; the version before stays cached (two in all) so
 * work pinned to it finishes. The owning process calls `refresh()` at boot and on a timer.
 */
export interface ActiveRegister<I> {
  refresh(): Promise<void>;
  current(): Loaded<I> | null;
  /** Any version that was activated, built on first use (jobs that pinned it). */
  forVersion(versionId: string): Promise<Loaded<I>>;
}

export interface Loaded<I> {
  version: RegisterVersion;
  index: I;
}

export interface ActiveRegisterDeps<T, I> {
  store: RegisterStore;
  kind: RegisterKind;
  logger: Logger;
  /** Builds the lookup from every record of a version. */
  createBuilder(): { add(record: T): void; build(): I };
  cacheSize?: number;
}

export class RegisterVersionNeverActivatedError extends Error {
  constructor(id: string) {
    super(`register version ${id} was never activated; only activated versions are indexed`);
    this.name = 'RegisterVersionNeverActivatedError';
  }
}

export function createActiveRegister<T, I>(deps: ActiveRegisterDeps<T, I>): ActiveRegister<I> {
  const logger = deps.logger.child({ module: `registers.active.${deps.kind}` });
  const cacheSize = Math.max(1, deps.cacheSize ?? 2);
  const cache = new Map<string, Promise<Loaded<I>>>();
  let active: Loaded<I> | null = null;
  let refreshing: Promise<void> | null = null;

  async function build(versionId: string): Promise<Loaded<I>> {
    const version = await deps.store.getRegisterVersion(versionId);
    if (!version || version.kind !== deps.kind) throw new RegisterVersionNotFoundError(versionId);
    if (version.activated_at === null) throw new RegisterVersionNeverActivatedError(versionId);
    const started = performance.now();
    const builder = deps.createBuilder();
    for await (const chunk of deps.store.readRegisterRecords<T>(versionId)) for (const record of chunk) builder.add(record);
    const index = builder.build();
    logger.info({ register_version_id: versionId, records: version.record_count, ms: Math.round(performance.now() - started) }, 'register.index_built');
    return { version, index };
  }

  function evict(): void {
    for (const id of cache.keys()) {
      if (cache.size <= cacheSize) return;
      if (id !== active?.version.id) cache.delete(id);
    }
  }

  function forVersion(versionId: string): Promise<Loaded<I>> {
    let entry = cache.get(versionId);
    if (entry) {
      cache.delete(versionId);
      cache.set(versionId, entry);
      return entry;
    }
    entry = build(versionId);
    cache.set(versionId, entry);
    entry.catch(() => {
      if (cache.get(versionId) === entry) cache.delete(versionId);
    });
    evict();
    return entry;
  }

  async function doRefresh(): Promise<void> {
    const version = await deps.store.getActiveRegisterVersion(deps.kind);
    if (!version) return;
    if (active && active.version.id === version.id && active.version.activated_at === version.activated_at) return;
    const loaded = await forVersion(version.id);
    const previous = active?.version.id ?? null;
    // The activation time of this activation (a rollback re-activates an older version).
    active = { version, index: loaded.index };
    evict();
    logger.info({ register_version_id: version.id, previous_register_version_id: previous }, 'register.active_swapped');
  }

  return {
    refresh() {
      refreshing ??= doRefresh().finally(() => {
        refreshing = null;
      });
      return refreshing;
    },
    current: () => active,
    forVersion,
  };
}
