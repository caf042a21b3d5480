import { emptyLevelCounts, levelKey } from '../../domain/check-job.ts';
import type { Status } from '../../domain/types.ts';
import { MAX_RESULTS_PAGE, type JobPatch, type JobRecord, type ResultCounts } from './jobs-port.ts';

/**
 * What every JobStore adapter shares: errors, the opaque results cursor, the patch rule for
 * deleted jobs, and turning (status, level, count) groups into ResultCounts.
 */

export class JobExistsError extends Error {
  constructor(id: string) {
    super(`check job ${id} already exists`);
    this.name = 'JobExistsError';
  }
}

/** A cursor that was not made by readResults for this job (DECISIONS §7: 422). */
export class InvalidCursorError extends Error {
  constructor() {
    super('cursor is not valid for this job');
    this.name = 'InvalidCursorError';
  }
}

const CURSOR = /^r1\.([0-9A-Za-z-]{1,64})\.(\d{1,10})$/;

/** The cursor after `row` of `jobId`: opaque to callers, base64url text. */
export function encodeCursor(jobId: string, row: number): string {
  return Buffer.from(`r1.${jobId}.${row}`, 'utf8').toString('base64url');
}

/** The last row already returned (-1 for the first page). Throws InvalidCursorError. */
export function decodeCursor(jobId: string, cursor: string | null | undefined): number {
  if (cursor == null || cursor === '') return -1;
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new InvalidCursorError();
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || match[1] !== jobId) throw new InvalidCursorError();
  const row = Number(match[2]);
  if (!Number.isSafeInteger(row) || row > 0xffffffff) throw new InvalidCursorError();
  return row;
}

export function checkPageLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RESULTS_PAGE) {
    throw new RangeError(`limit must be an integer 1..${MAX_RESULTS_PAGE}, got ${limit}`);
  }
}

export function checkRowNumber(row: number): void {
  if (!Number.isInteger(row) || row < 0 || row > 0xffffffff) {
    throw new RangeError(`row must be an integer 0..2^32-1, got ${row}`);
  }
}

/** The next record: patch applied, except that a deleted job stays deleted and without preview. */
export function applyJobPatch(current: JobRecord, patch: JobPatch, now: string): JobRecord {
  const next: JobRecord = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined && key in current && !FIXED.has(key)) {
      (next as unknown as Record<string, unknown>)[key] = value;
    }
  }
  if (current.status === 'deleted') {
    next.status = 'deleted';
    next.preview = [];
  }
  next.updated_at = patch.updated_at ?? now;
  return next;
}

const FIXED = new Set(['id', 'org_id', 'mode', 'created_at', 'delete_after']);

/** Stored level: the match level 0..5, or -1 for no level (counted as `unread`). */
export function storedLevel(level: number | null): number {
  return level === null ? -1 : level;
}

export function countsFromGroups(
  groups: Iterable<{ status: Status; level: number; count: number }>,
): ResultCounts {
  const counts: ResultCounts = { processed: 0, allowed: 0, blocked: 0, manual: 0, level_counts: emptyLevelCounts() };
  for (const { status, level, count } of groups) {
    counts.processed += count;
    counts[status] += count;
    counts.level_counts[levelKey(level < 0 ? null : level)] += count;
  }
  return counts;
}

/** UTC day (YYYY-MM-DD) of an ISO timestamp; throws on text that is not a timestamp. */
export function utcDay(timestamp: string): string {
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) throw new RangeError(`not a timestamp: ${JSON.stringify(timestamp)}`);
  return new Date(ms).toISOString().slice(0, 10);
}

export function timestampMs(timestamp: string): number {
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) throw new RangeError(`not a timestamp: ${JSON.stringify(timestamp)}`);
  return ms;
}
