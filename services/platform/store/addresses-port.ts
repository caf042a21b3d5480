import type { RegisterAddress } from '../../domain/address-register.ts';
import { VersionMisuseError, type VersionMisuse, type VersionMisuseReason } from './versioned-blocks.ts';

/**
 * Versions of the national address register (DAR) as imported, like list versions (lists-port.ts):
 * any process (API, matcher) reads the active version's unit addresses back and builds the
 * in-memory register (domain/address-register.ts). Promises: addresses of a version are read back
 * in the order appended, in chunks; only a sealed version can be activated; a version becomes
 * visible to `getActiveAddressVersion` only after `activateAddressVersion`, which deactivates the
 * one active before (it stays readable; re-activating it is a rollback and stamps a new
 * `activated_at`). Not promised: de-duplication (the importer hands over each unit once).
 */
export interface AddressVersion {
  id: string;
  /** The date of the register extract (the download's date), YYYY-MM-DD. */
  published_on: string;
  created_at: string;
  activated_at: string | null;
  /** Unit addresses in the version; set by seal. */
  address_count: number;
}

export interface AddressStore {
  createAddressVersion(version: AddressVersion): Promise<void>;
  appendAddresses(versionId: string, addresses: RegisterAddress[]): Promise<void>;
  /** Sets address_count to the number appended so far; call once the import is whole. */
  sealAddressVersion(versionId: string): Promise<AddressVersion>;
  readAddresses(versionId: string, chunkSize?: number): AsyncIterable<RegisterAddress[]>;
  activateAddressVersion(versionId: string, at: string): Promise<AddressVersion>;
  getActiveAddressVersion(): Promise<AddressVersion | null>;
  getAddressVersion(id: string): Promise<AddressVersion | null>;
  listAddressVersions(): Promise<AddressVersion[]>;
}

/** Thrown by every adapter for the same misuse, so callers tell them from I/O failures. */
export class AddressVersionError extends VersionMisuseError {
  override readonly name = 'AddressVersionError';
  constructor(reason: VersionMisuseReason, id: string) { super({ noun: 'address', items: 'addresses' }, reason, id); }
}

/** What both address store adapters throw for each misuse (their versioned blocks' `misuse`). */
export const ADDRESS_VERSION_MISUSE: VersionMisuse = {
  notFound: (id) => new AddressVersionError('not_found', id),
  sealed: (id) => new AddressVersionError('sealed', id),
  notSealed: (id) => new AddressVersionError('not_sealed', id),
};

/**
 * One unit address as stored: a JSON array in field order, about half the size of the object
 * (a national register is 3-4 million of them). Both adapters store blocks of these.
 */
export function packAddress(a: RegisterAddress): unknown[] {
  return [a.accessId, a.street, a.addressingName, a.houseNumber, a.floor, a.door, a.postalCode, a.postalName, a.town,
    a.kommunekode, a.vejkode];
}

export function unpackAddress(row: unknown[]): RegisterAddress {
  const s = row as (string | null)[];
  return {
    accessId: s[0]!, street: s[1]!, addressingName: s[2], houseNumber: s[3]!, floor: s[4], door: s[5],
    postalCode: s[6]!, postalName: s[7]!, town: s[8], kommunekode: s[9], vejkode: s[10],
  };
}

/** The version as the port gives it, from either adapter's row (which holds more columns). */
export function addressVersionOf(row: AddressVersion): AddressVersion {
  return {
    id: row.id, published_on: row.published_on, created_at: row.created_at, activated_at: row.activated_at ?? null,
    address_count: row.address_count,
  };
}
