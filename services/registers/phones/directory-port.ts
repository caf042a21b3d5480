import type { DirectoryEntry } from '../../domain/index.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * A phone directory: who holds a number. Two adapters: the imported directory file
 * (file-directory.ts, a version in the platform's RegisterStore) and a directory provider's HTTP
 * API (http-directory.ts).
 *
 * Promises: `lookup` answers every number asked (E.164, as normalisePhone gives) with its entry
 * or null when the directory does not know it, or throws DirectoryUnavailableError when it cannot
 * answer at all (no directory imported yet, provider down): never a partial answer that would
 * pass an unknown number off as "not found". Does not promise that names and addresses are in any
 * particular format (they are checked as free text). Nothing of an entry is logged.
 */
export interface PhoneDirectory {
  lookup(numbers: readonly string[]): Promise<Map<string, DirectoryEntry | null>>;
}

export class DirectoryUnavailableError extends PermanentError {
  readonly reason: 'not_imported' | 'provider_failed';
  constructor(reason: DirectoryUnavailableError['reason'], detail?: string) {
    super(`phone directory unavailable: ${reason}${detail ? ` (${detail})` : ''}`);
    this.name = 'DirectoryUnavailableError';
    this.reason = reason;
  }
}
