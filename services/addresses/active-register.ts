import { createAddressRegisterBuilder, type AddressRegister } from '../domain/index.ts';
import type { Logger } from '../platform/logger.ts';
import type { AddressStore, AddressVersion } from '../platform/store/addresses-port.ts';

/**
 * The in-memory register of the active address version (domain/address-register.ts), built from
 * the address store. `refresh()` looks up the active version and, when it changed, builds the new
 * register and swaps it in one assignment. Without an active version there is no register and
 * everything works on text alone (DECISIONS §13: parse-only mode). Nothing runs by itself: the
 * owning process calls `refresh()` at boot and on a timer, like the active list index.
 */
export interface ActiveAddressRegister {
  refresh(): Promise<void>;
  current(): { version: AddressVersion; register: AddressRegister } | null;
}

export function createActiveAddressRegister(deps: { store: AddressStore; logger: Logger }): ActiveAddressRegister {
  const logger = deps.logger.child({ module: 'addresses.active-register' });
  let active: { version: AddressVersion; register: AddressRegister } | null = null;
  let refreshing: Promise<void> | null = null;

  async function doRefresh(): Promise<void> {
    const version = await deps.store.getActiveAddressVersion();
    if (!version) return;
    if (active && active.version.id === version.id && active.version.activated_at === version.activated_at) return;
    const started = performance.now();
    const builder = createAddressRegisterBuilder();
    for await (const chunk of deps.store.readAddresses(version.id)) for (const a of chunk) builder.add(a);
    const register = builder.build();
    active = { version, register };
    logger.info({
      address_version_id: version.id, units: register.unitCount, accesses: register.accessCount,
      skipped: builder.skipped, ms: Math.round(performance.now() - started),
    }, 'address_register.active_swapped');
  }

  return {
    refresh() {
      refreshing ??= doRefresh().finally(() => {
        refreshing = null;
      });
      return refreshing;
    },
    current: () => active,
  };
}
