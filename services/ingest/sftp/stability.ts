/**
 * "Is this upload finished?" for SFTP, which has no such signal: a file is ready once its size and
 * modification time have not changed for `stableMs` (docs/decisions.md §15). Kept in memory per process:
 * after a restart every file waits one interval again, which is safe (late, never early).
 */
export interface Listed {
  name: string;
  size: number;
  mtimeMs: number;
}

export interface StabilityTracker {
  /** Records one listing of a folder; returns the names unchanged for at least `stableMs`. Names no longer listed are forgotten. */
  observe(folderId: string, entries: Listed[], nowMs: number): string[];
  /** Forgets a name (claimed). */
  forget(folderId: string, name: string): void;
}

export function createStabilityTracker(stableMs: number): StabilityTracker {
  const folders = new Map<string, Map<string, { size: number; mtimeMs: number; since: number }>>();
  return {
    observe(folderId, entries, nowMs) {
      const previous = folders.get(folderId) ?? new Map();
      const next = new Map<string, { size: number; mtimeMs: number; since: number }>();
      const stable: string[] = [];
      for (const entry of entries) {
        const seen = previous.get(entry.name);
        const unchanged = seen !== undefined && seen.size === entry.size && seen.mtimeMs === entry.mtimeMs;
        const since = unchanged ? seen.since : nowMs;
        next.set(entry.name, { size: entry.size, mtimeMs: entry.mtimeMs, since });
        if (unchanged && nowMs - since >= stableMs) stable.push(entry.name);
      }
      folders.set(folderId, next);
      return stable;
    },
    forget(folderId, name) {
      folders.get(folderId)?.delete(name);
    },
  };
}
