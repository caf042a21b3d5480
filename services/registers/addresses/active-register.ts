import { createAddressRegisterBuilder, type AddressRegister } from '../../domain/index.ts';
import { activationOf, createActiveVersionHolder } from '../../platform/active-version.ts';
import type { Logger } from '../../platform/logger.ts';
import type { AddressStore, AddressVersion } from '../../platform/store/addresses-port.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * The in-memory register of an address version (domain/address-register.ts), built from the
 * address store, never from a local file: every process builds the same one. `refresh()` looks up
 * the active version and, when it changed, builds the new register and swaps it in one
 * assignment. Without an active version there is no register and everything works on text alone
 * (parse-only mode). Nothing runs by itself: the owning process calls `refresh()` at boot and on a
 * timer, like the active list index.
 *
 * A job pins the register version it was queued with (docs/addresses.md "One check, every
 * channel"), so `forVersion` builds any version that was activated, on first use; the version
 * before the active one stays cached (two in all, least recently used goes) so jobs pinned to it
 * drain without a rebuild.
 */
export interface ActiveAddressRegister {
  refresh(): Promise<void>;
  current(): LoadedAddressRegister | null;
  /** The register of a version that was activated; AddressRegisterUnavailableError when it never was or is gone. */
  forVersion(versionId: string): Promise<LoadedAddressRegister>;
}

export interface LoadedAddressRegister {
  version: AddressVersion;
  register: AddressRegister;
}

/**
 * A pinned register version that is not in the store (gone) or was never activated (its import
 * was not whole): it can never be read, so a job pinned to it fails rather than be checked
 * against another register.
 */
export class AddressRegisterUnavailableError extends PermanentError {
  constructor(id: string, why: 'not_found' | 'never_activated') {
    super(why === 'not_found' ? `address version ${id} does not exist` : `address version ${id} was never activated`);
    this.name = 'AddressRegisterUnavailableError';
  }
}

export function createActiveAddressRegister(deps: { store: AddressStore; logger: Logger; cacheSize?: number }): ActiveAddressRegister {
  const logger = deps.logger.child({ module: 'addresses.active-register' });

  async function build(versionId: string): Promise<LoadedAddressRegister> {
    const version = await deps.store.getAddressVersion(versionId);
    if (!version) throw new AddressRegisterUnavailableError(versionId, 'not_found');
    if (version.activated_at === null) throw new AddressRegisterUnavailableError(versionId, 'never_activated');
    const started = performance.now();
    const builder = createAddressRegisterBuilder();
    for await (const chunk of deps.store.readAddresses(version.id)) for (const a of chunk) builder.add(a);
    const register = builder.build();
    logger.info({
      address_version_id: version.id, units: register.unitCount, accesses: register.accessCount,
      skipped: builder.skipped, ms: Math.round(performance.now() - started),
    }, 'address_register.built');
    return { version, register };
  }

  const holder = createActiveVersionHolder<LoadedAddressRegister, LoadedAddressRegister>({
    build,
    cacheSize: deps.cacheSize,
    async lookUpActive() {
      const version = await deps.store.getActiveAddressVersion();
      // The activation time of this activation (a rollback re-activates an older version).
      return version && { key: version.id, activation: activationOf(version), stateOf: (built) => ({ version, register: built.register }) };
    },
    onSwap(state, previous) {
      logger.info({ address_version_id: state.version.id, previous_address_version_id: previous?.version.id ?? null }, 'address_register.active_swapped');
    },
  });

  return { refresh: holder.refresh, current: holder.current, forVersion: holder.forKey };
}
