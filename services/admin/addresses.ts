import { access } from 'node:fs/promises';
import { darSourcesFromPath, importAddressRegister } from '../registers/addresses/import.ts';
import type { Logger } from '../platform/logger.ts';
import type { AddressStore, AddressVersion } from '../platform/store/addresses-port.ts';
import { AdminInputError } from './organisations.ts';

/**
 * `addresses import|list|activate`: versions of the national address register (DAR), the way
 * `lists ...` handles list versions. An import is a new sealed version; it takes effect when
 * activated (here or with --activate), and the services pick it up at their next refresh.
 */
export const ADDRESSES_USAGE = `Address register versions (DAR JSON: one national file, or a directory of per-entity files)
  addresses import --file PATH [--published-on YYYY-MM-DD] [--activate]
  addresses activate VERSION_ID
  addresses list`;

export interface AddressAdminDeps {
  addresses: AddressStore;
  logger: Logger;
  now: () => Date;
}

type Flags = Record<string, string | boolean | undefined>;

function formatVersion(v: AddressVersion, active: boolean): string {
  return `${v.id}  published ${v.published_on}  ${v.address_count} unit addresses  ${active ? 'ACTIVE' : v.activated_at ? 'was active' : 'not activated'}`;
}

async function activate(deps: AddressAdminDeps, id: string): Promise<AddressVersion> {
  const version = await deps.addresses.activateAddressVersion(id, deps.now().toISOString());
  deps.logger.info({ address_version_id: id }, 'address_register.activated');
  return version;
}

export async function runAddressCommand(deps: AddressAdminDeps, action: string | undefined, args: string[], flags: Flags): Promise<string[]> {
  const json = flags.json === true;
  switch (action) {
    case 'import': {
      const file = flags.file;
      if (typeof file !== 'string' || file === '') throw new AdminInputError('--file is required');
      await access(file).catch(() => { throw new AdminInputError(`cannot read --file ${file}`); });
      const publishedOn = typeof flags['published-on'] === 'string' ? flags['published-on'] : deps.now().toISOString().slice(0, 10);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(publishedOn)) throw new AdminInputError('--published-on must be YYYY-MM-DD');
      const { version, stats } = await importAddressRegister(deps.addresses, await darSourcesFromPath(file), {
        publishedOn, now: deps.now,
      });
      deps.logger.info({ address_version_id: version.id, ...stats.skipped, addresses: stats.addresses }, 'address_register.imported');
      const final = flags.activate === true ? await activate(deps, version.id) : version;
      if (json) return [JSON.stringify({ ...final, skipped: stats.skipped })];
      const skipped = stats.skipped.noHouseNumber + stats.skipped.noStreet + stats.skipped.noPostalCode;
      return [
        `address version imported: ${final.id} (${final.address_count} unit addresses; ${skipped} left out: ` +
          `${stats.skipped.noHouseNumber} without a current house number, ${stats.skipped.noStreet} without a named street, ` +
          `${stats.skipped.noPostalCode} without a postal code)`,
        final.activated_at ? 'activated' : `not active yet: npm run admin -- addresses activate ${final.id}`,
      ];
    }
    case 'activate': {
      const id = args[0];
      if (!id) throw new AdminInputError('addresses activate needs the address version id');
      const version = await activate(deps, id);
      return json ? [JSON.stringify(version)] : [`address version ${version.id} activated`, formatVersion(version, true)];
    }
    case 'list': {
      const versions = await deps.addresses.listAddressVersions();
      const active = await deps.addresses.getActiveAddressVersion();
      if (json) return [JSON.stringify(versions.map((v) => ({ ...v, active: v.id === active?.id })))];
      return versions.length === 0 ? ['no address versions'] : versions.map((v) => formatVersion(v, v.id === active?.id));
    }
    default:
      throw new AdminInputError(`unknown command: addresses ${action ?? ''}`.trim());
  }
}
