/**
 * Versions of reference registers imported from outside: the company register (CVR extract,
 * kind `companies`) and the phone directory file (kind `phones`). Any process (API, matcher)
 * builds its in-memory lookup of a version from here, never from a local file, exactly as it does
 * for list versions (lists-port.ts), which this port mirrors.
 *
 * Promises: records of a version are read back in append order, in chunks; a version is visible
 * to `getActiveRegisterVersion` only after `activateRegisterVersion`, which replaces the previous
 * active version of the same kind in one write (a reader sees the old or the new one, never none
 * and never both); only a sealed version (its import whole) can be activated. Records are opaque
 * JSON objects to the store: the importer owns their shape. Does not promise anything about
 * versions that were never sealed (a failed import), except that they can never become active.
 */
export type RegisterKind = 'companies' | 'phones';

export interface RegisterVersion {
  id: string;
  kind: RegisterKind;
  /** Date of the extract as the source states it (YYYY-MM-DD). */
  published_on: string;
  /** When the import started: a company result's `synced_at`. */
  created_at: string;
  activated_at: string | null;
  record_count: number;
}

export interface RegisterStore {
  createRegisterVersion(version: RegisterVersion): Promise<void>;
  appendRegisterRecords(versionId: string, records: readonly object[]): Promise<void>;
  /** Sets record_count to the number appended; call once the import is whole. */
  sealRegisterVersion(versionId: string): Promise<RegisterVersion>;
  readRegisterRecords<T = unknown>(versionId: string, chunkSize?: number): AsyncIterable<T[]>;
  activateRegisterVersion(versionId: string, at: string): Promise<RegisterVersion>;
  getActiveRegisterVersion(kind: RegisterKind): Promise<RegisterVersion | null>;
  getRegisterVersion(id: string): Promise<RegisterVersion | null>;
  listRegisterVersions(kind: RegisterKind): Promise<RegisterVersion[]>;
}

export class RegisterVersionNotFoundError extends Error {
  constructor(id: string) {
    super(`register version ${id} does not exist`);
    this.name = 'RegisterVersionNotFoundError';
  }
}

export class RegisterVersionSealedError extends Error {
  constructor(id: string) {
    super(`register version ${id} is sealed; records can no longer be appended`);
    this.name = 'RegisterVersionSealedError';
  }
}

export class RegisterVersionNotSealedError extends Error {
  constructor(id: string) {
    super(`register version ${id} is not sealed (its import is not whole) and cannot be activated`);
    this.name = 'RegisterVersionNotSealedError';
  }
}
