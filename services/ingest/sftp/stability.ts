/**
 * "Is this upload finished?" for SFTP, which has no such signal of its own (docs/inbound.md "SFTP
 * drop folders", step 1). Two ways a file in inbox/ becomes ready:
 * - **Renamed from a hidden name**: careful clients upload under a hidden name (`.x.csv.part`,
 *   WinSCP's `.filepart`) and rename when done. A claimable name that appears while a hidden name
 *   of the same size and mtime (a rename keeps both) was listed before and is gone now is that
 *   rename: ready at once, no interval to wait.
 * - Otherwise its size and modification time have not changed for `stableMs` (docs/decisions.md §15).
 * Kept in memory per process: after a restart every file waits one interval again, which is safe
 * (late, never early).
 */
import { isClaimable } from './names.ts';

export interface Listed {
  name: string;
  size: number;
  mtimeMs: number;
}

export interface StabilityTracker {
  /**
   * Records one listing of a folder (every regular file of it, hidden ones too); returns the
   * claimable names that are ready. Names no longer listed are forgotten.
   */
  observe(folderId: string, entries: Listed[], nowMs: number): string[];
  /** Forgets a name (claimed). */
  forget(folderId: string, name: string): void;
}

interface Seen {
  size: number;
  mtimeMs: number;
  since: number;
  /** Came by a rename from a hidden name: complete. */
  renamed: boolean;
}

export function createStabilityTracker(stableMs: number): StabilityTracker {
  const folders = new Map<string, Map<string, Seen>>();
  return {
    observe(folderId, entries, nowMs) {
      const previous = folders.get(folderId) ?? new Map<string, Seen>();
      const listed = new Set(entries.map((e) => e.name));
      // Hidden names of the last listing that are gone now: the sources a rename may have used.
      const vanished = new Set<string>();
      for (const [name, seen] of previous) if (name.startsWith('.') && !listed.has(name)) vanished.add(`${seen.size}:${seen.mtimeMs}`);
      const next = new Map<string, Seen>();
      const ready: string[] = [];
      for (const entry of entries) {
        const seen = previous.get(entry.name);
        const unchanged = seen !== undefined && seen.size === entry.size && seen.mtimeMs === entry.mtimeMs;
        const renamed = unchanged ? seen.renamed : seen === undefined && isClaimable(entry.name) && vanished.has(`${entry.size}:${entry.mtimeMs}`);
        const since = unchanged ? seen.since : nowMs;
        next.set(entry.name, { size: entry.size, mtimeMs: entry.mtimeMs, since, renamed });
        if (!isClaimable(entry.name)) continue;
        if (renamed || (unchanged && nowMs - since >= stableMs)) ready.push(entry.name);
      }
      folders.set(folderId, next);
      return ready;
    },
    forget(folderId, name) {
      folders.get(folderId)?.delete(name);
    },
  };
}
