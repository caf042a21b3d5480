import type { DatabaseSync } from 'node:sqlite';
import type { RegisterAddress } from '../../../domain/address-register.ts';
import {
  ADDRESS_VERSION_MISUSE, packAddress, unpackAddress, type AddressStore, addressVersionOf,
} from '../addresses-port.ts';
import { createEmbeddedVersionedBlocks, type EmbeddedVersionRow } from './versioned-blocks.ts';

/**
 * AddressStore on the embedded database: the versioned-block store (embedded/versioned-blocks.ts)
 * with unit addresses packed into arrays (packAddress), one active version for the whole country.
 * Blocks of 2,000 rows: a 3,000,000-address register is 1,500 rows.
 */
interface AddressVersionRow extends EmbeddedVersionRow {
  address_count: number;
}


export function createEmbeddedAddressStore(db: DatabaseSync): AddressStore {
  const store = createEmbeddedVersionedBlocks<RegisterAddress, AddressVersionRow>(db, {
    versions: 'address_versions', blocks: 'address_blocks', blockColumn: 'addresses', countColumn: 'address_count',
    scope: [], blockSize: 2000, blocksPerFetch: 10,
    pack: packAddress, unpack: (stored) => unpackAddress(stored as unknown[]),
    misuse: ADDRESS_VERSION_MISUSE,
  });
  const orNull = (row: AddressVersionRow | null) => (row ? addressVersionOf(row) : null);

  return {
    async createAddressVersion(version) {
      store.create(version.id, [], version.published_on, version.created_at);
    },
    async appendAddresses(versionId, addresses) {
      store.append(versionId, addresses);
    },
    async sealAddressVersion(versionId) {
      return addressVersionOf(store.seal(versionId));
    },
    readAddresses: (versionId, chunkSize) => store.read(versionId, chunkSize),
    async activateAddressVersion(versionId, at) {
      return addressVersionOf(store.activate(versionId, at));
    },
    async getActiveAddressVersion() {
      return orNull(store.getActive([]));
    },
    async getAddressVersion(id) {
      return orNull(store.get(id));
    },
    async listAddressVersions() {
      return store.list().map(addressVersionOf);
    },
  };
}
