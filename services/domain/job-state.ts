/**
 * The CheckJob life cycle (docs/decisions.md §7) and the pure counting of results into a job's counts.
 *
 *   draft ──submit──────────────► queued ──begin──► running ──complete──► done
 *     └───submit_for_payment──► awaiting_payment ──pay──┘        └──fail──► failed
 *   any state except deleted ──delete──► deleted
 *
 * JSON and NDJSON jobs are created directly in `queued` or `awaiting_payment`; uploaded files
 * start as `draft`. A job that cannot be run (its list version
 * is gone, its input cannot be read) may fail from `queued` as well as from `running`.
 * Every transition is strict: applying `complete` to a job that is already `done` is an error, so a
 * redelivered event can never cause a second completion (and a second callback).
 */
import type { JobStatus, LevelCounts } from './check-job.ts';

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

/** The count fields of a CheckJob, in the contract's names. */
export interface JobCounts {
  processed_count: number;
  allowed_count: number;
  blocked_count: number;
  manual_count: number;
  level_counts: LevelCounts;
}
