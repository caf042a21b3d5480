import type { RegisterAddress } from '../../../domain/address-register.ts';
import {
  ADDRESS_VERSION_MISUSE, packAddress, unpackAddress, type AddressStore, addressVersionOf,
} from '../addresses-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { createClickHouseVersionedBlocks, type ClickHouseVersionRow } from './versioned-blocks.ts';

/**
 * AddressStore on ClickHouse (infra/clickhouse/migrations/007_addresses.sql): the versioned-block
 * store (clickhouse/versioned-blocks.ts) with unit addresses packed into arrays (packAddress) and
 * one active version for the whole country.
 */
interface AddressVersionRow extends ClickHouseVersionRow {
  address_count: number;
}


export function createClickHouseAddressStore(conn: ClickHouseConnection): AddressStore {
  const store = createClickHouseVersionedBlocks<RegisterAddress, AddressVersionRow>(conn, {
    noun: 'address', versions: 'address_versions', blocks: 'address_blocks', blockColumn: 'addresses',
    countColumn: 'address_count', scope: [], blockSize: 4000, blocksPerFetch: 10,
    pack: packAddress, unpack: (stored) => unpackAddress(stored as unknown[]),
    misuse: ADDRESS_VERSION_MISUSE,
  });
  const orNull = (row: AddressVersionRow | null) => (row ? addressVersionOf(row) : null);

  return {
    createAddressVersion: (version) => store.create(version.id, [], version.published_on, version.created_at),
    appendAddresses: (versionId, addresses) => store.append(versionId, addresses),
    sealAddressVersion: async (versionId) => addressVersionOf(await store.seal(versionId)),
    readAddresses: (versionId, chunkSize) => store.read(versionId, chunkSize),
    activateAddressVersion: async (versionId, at) => addressVersionOf(await store.activate(versionId, at)),
    getActiveAddressVersion: async () => orNull(await store.getActive([])),
    getAddressVersion: async (id) => orNull(await store.get(id)),
    listAddressVersions: async () => (await store.list()).map(addressVersionOf),
  };
}
