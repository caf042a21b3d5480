/**
 * The CheckJob life cycle (DECISIONS §7) and the pure counting of results into a job's counts.
 *
 *   draft ──submit──────────────► queued ──begin──► running ──complete──► done
 *     └───submit_for_payment──► awaiting_payment ──pay──┘        └──fail──► failed
 *   any state except deleted ──delete──► deleted
 *
 * JSON and NDJSON jobs are created directly in `queued` or `awaiting_payment` (see
 * `initialJobStatus`); uploaded files start as `draft`. A job that cannot be run (its list version
 * is gone, its input cannot be read) may fail from `queued` as well as from `running`.
 * Every transition is strict: applying `complete` to a job that is already `done` is an error, so a
 * redelivered event can never cause a second completion (and a second callback).
 */
import type { CheckResult } from './types.ts';
import { emptyLevelCounts, levelKey as levelKeyOf, type JobStatus, type LevelCounts } from './check-job.ts';

export { emptyLevelCounts, type LevelCounts };
/** The job's `status` (declared with the other CheckJob types in check-job.ts). */
export type CheckJobStatus = JobStatus;


export const JOB_EVENTS = [
  'submit',
  'submit_for_payment',
  'pay',
  'begin',
  'complete',
  'fail',
  'delete',
] as const;
export type JobEvent = (typeof JOB_EVENTS)[number];

/** From each state, the events it accepts and where they lead. `deleted` accepts none. */
const TRANSITIONS: Readonly<Record<CheckJobStatus, Partial<Record<JobEvent, CheckJobStatus>>>> = {
  draft: { submit: 'queued', submit_for_payment: 'awaiting_payment', delete: 'deleted' },
  awaiting_payment: { pay: 'queued', delete: 'deleted' },
  queued: { begin: 'running', fail: 'failed', delete: 'deleted' },
  running: { complete: 'done', fail: 'failed', delete: 'deleted' },
  done: { delete: 'deleted' },
  failed: { delete: 'deleted' },
  deleted: {},
};

/** Every status, in life-cycle order (the keys of TRANSITIONS, which the type checker makes complete). */
export const CHECK_JOB_STATUSES = Object.keys(TRANSITIONS) as readonly CheckJobStatus[];

/** No more rows will be processed: the job finished, failed or lost its data. */
const TERMINAL_STATUSES: readonly CheckJobStatus[] = ['done', 'failed', 'deleted'];

export function isTerminal(status: CheckJobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** `done` and `failed` are the states whose entry sends the completion callback (§9). */
export function completionEventFor(status: CheckJobStatus): 'check_job.completed' | 'check_job.failed' | null {
  if (status === 'done') return 'check_job.completed';
  if (status === 'failed') return 'check_job.failed';
  return null;
}

export interface TransitionError {
  code: 'invalid_transition';
  from: CheckJobStatus;
  event: JobEvent;
}

export type TransitionResult = { ok: true; status: CheckJobStatus } | { ok: false; error: TransitionError };

export function transition(current: CheckJobStatus, event: JobEvent): TransitionResult {
  const next = TRANSITIONS[current][event];
  if (next === undefined) return { ok: false, error: { code: 'invalid_transition', from: current, event } };
  return { ok: true, status: next };
}

export function canTransition(current: CheckJobStatus, event: JobEvent): boolean {
  return TRANSITIONS[current][event] !== undefined;
}

/** The events `current` accepts, e.g. to explain a 409 to the caller. */
export function allowedEvents(current: CheckJobStatus): JobEvent[] {
  return JOB_EVENTS.filter((event) => TRANSITIONS[current][event] !== undefined);
}

/**
 * Where a new job starts: an uploaded file waits as a draft for its column mapping; rows given as
 * JSON are ready at once, unless the organisation pays per list (DECISIONS §8).
 */
export function initialJobStatus(input: { kind: 'file' | 'rows'; needsPayment: boolean }): CheckJobStatus {
  if (input.kind === 'file') return 'draft';
  return input.needsPayment ? 'awaiting_payment' : 'queued';
}

// ---------------------------------------------------------------------------------------------
// Counting

export type LevelKey = keyof LevelCounts;
const LEVEL_KEYS: readonly LevelKey[] = ['0', '1', '2', '3', '4', '5', 'unread'];

/** The count fields of a CheckJob, in the contract's names. */
export interface JobCounts {
  processed_count: number;
  allowed_count: number;
  blocked_count: number;
  manual_count: number;
  level_counts: LevelCounts;
}

export function emptyJobCounts(): JobCounts {
  return { processed_count: 0, allowed_count: 0, blocked_count: 0, manual_count: 0, level_counts: emptyLevelCounts() };
}

/** As check-job.ts's levelKey, but a level outside 0..5 is a bug, not a new key. */
export function levelKey(level: number | null): LevelKey {
  if (level !== null && (!Number.isInteger(level) || level < 0 || level > 5)) {
    throw new RangeError(`match level out of range: ${level}`);
  }
  return levelKeyOf(level);
}

/** The counts with one more result added. Pure: `counts` is not changed. */
export function addToCounts(counts: JobCounts, result: Pick<CheckResult, 'status' | 'match'>): JobCounts {
  const key = levelKey(result.match.level);
  return {
    processed_count: counts.processed_count + 1,
    allowed_count: counts.allowed_count + (result.status === 'allowed' ? 1 : 0),
    blocked_count: counts.blocked_count + (result.status === 'blocked' ? 1 : 0),
    manual_count: counts.manual_count + (result.status === 'manual' ? 1 : 0),
    level_counts: { ...counts.level_counts, [key]: counts.level_counts[key] + 1 },
  };
}

/** The sum of two partial counts (e.g. per-partition counts folded into the job's). */
export function mergeCounts(a: JobCounts, b: JobCounts): JobCounts {
  const level_counts = emptyLevelCounts();
  for (const key of LEVEL_KEYS) level_counts[key] = a.level_counts[key] + b.level_counts[key];
  return {
    processed_count: a.processed_count + b.processed_count,
    allowed_count: a.allowed_count + b.allowed_count,
    blocked_count: a.blocked_count + b.blocked_count,
    manual_count: a.manual_count + b.manual_count,
    level_counts,
  };
}
