import { PermanentError } from '../errors.ts';

/**
 * What the versioned-block stores (embedded/versioned-blocks.ts, clickhouse/versioned-blocks.ts)
 * share above the adapters: the errors each user throws for the same misuse, so a caller tells
 * them from I/O failures whatever the adapter. Each store keeps its own error classes (the list
 * store's ListVersionNotFoundError, the address store's AddressVersionError…) and hands them over
 * as these three factories.
 */
export interface VersionMisuse {
  /** No version has this id. */
  notFound(id: string): Error;
  /** Items were appended to a sealed version. */
  sealed(id: string): Error;
  /** An unsealed version (its import not whole) was activated. */
  notSealed(id: string): Error;
}

export type VersionMisuseReason = 'not_found' | 'sealed' | 'not_sealed';

/**
 * The one misuse error of the versioned stores, worded for the store that throws it: `noun`
 * names its versions (`list`), `items` what they hold (`entries`). Each store names its own
 * subclasses (ListVersionNotFoundError, AddressVersionError…) because its callers catch them by
 * class; the wording and `reason` are shared.
 */
export class VersionMisuseError extends PermanentError {
  readonly reason: VersionMisuseReason;

  constructor(what: { noun: string; items: string }, reason: VersionMisuseReason, id: string) {
    super(
      reason === 'not_found' ? `${what.noun} version ${id} does not exist`
        : reason === 'sealed' ? `${what.noun} version ${id} is sealed; ${what.items} can no longer be appended`
          : `${what.noun} version ${id} is not sealed (its import is not whole) and cannot be activated`,
    );
    this.reason = reason;
  }
}
