import { VersionMisuseError, type VersionMisuse } from './versioned-blocks.ts';

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

/** Misuse errors of every RegisterStore adapter, worded by VersionMisuseError. */
const REGISTER = { noun: 'register', items: 'records' };

export class RegisterVersionNotFoundError extends VersionMisuseError {
  override readonly name = 'RegisterVersionNotFoundError';
  constructor(id: string) { super(REGISTER, 'not_found', id); }
}

export class RegisterVersionSealedError extends VersionMisuseError {
  override readonly name = 'RegisterVersionSealedError';
  constructor(id: string) { super(REGISTER, 'sealed', id); }
}

export class RegisterVersionNotSealedError extends VersionMisuseError {
  override readonly name = 'RegisterVersionNotSealedError';
  constructor(id: string) { super(REGISTER, 'not_sealed', id); }
}

/** What both register store adapters throw for each misuse (their versioned blocks' `misuse`). */
export const REGISTER_VERSION_MISUSE: VersionMisuse = {
  notFound: (id) => new RegisterVersionNotFoundError(id),
  sealed: (id) => new RegisterVersionSealedError(id),
  notSealed: (id) => new RegisterVersionNotSealedError(id),
};

/** The version as the port gives it, from either adapter's row (which holds more columns). */
export function registerVersionOf(row: RegisterVersion): RegisterVersion {
  return {
    id: row.id, kind: row.kind, published_on: row.published_on, created_at: row.created_at,
    activated_at: row.activated_at ?? null, record_count: row.record_count,
  };
}
