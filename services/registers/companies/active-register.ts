import { activationOf, createActiveVersionHolder } from '../../platform/active-version.ts';
import type { Logger } from '../../platform/logger.ts';
import {
  RegisterVersionNotFoundError, type RegisterKind, type RegisterStore, type RegisterVersion,
} from '../../platform/store/registers-port.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * The in-memory lookup of a register's active version (companies or phones), built from the
 * platform's RegisterStore, never from a local file: every process builds the same one. The same
 * holder as the list index (platform/active-version.ts): `refresh()` builds a newly activated
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

export class RegisterVersionNeverActivatedError extends PermanentError {
  constructor(id: string) {
    super(`register version ${id} was never activated; only activated versions are indexed`);
    this.name = 'RegisterVersionNeverActivatedError';
  }
}

export function createActiveRegister<T, I>(deps: ActiveRegisterDeps<T, I>): ActiveRegister<I> {
  const logger = deps.logger.child({ module: `registers.active.${deps.kind}` });

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

  const holder = createActiveVersionHolder<Loaded<I>, Loaded<I>>({
    build,
    cacheSize: deps.cacheSize,
    async lookUpActive() {
      const version = await deps.store.getActiveRegisterVersion(deps.kind);
      // The activation time of this activation (a rollback re-activates an older version).
      return version && { key: version.id, activation: activationOf(version), stateOf: (built) => ({ version, index: built.index }) };
    },
    onSwap(state, previous) {
      logger.info({ register_version_id: state.version.id, previous_register_version_id: previous?.version.id ?? null }, 'register.active_swapped');
    },
  });

  return { refresh: holder.refresh, current: holder.current, forVersion: holder.forKey };
}
