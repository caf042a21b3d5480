import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CHECK_JOB_STATUSES,
  JOB_EVENTS,
  addToCounts,
  allowedEvents,
  canTransition,
  completionEventFor,
  emptyJobCounts,
  emptyLevelCounts,
  initialJobStatus,
  isTerminal,
  levelKey,
  mergeCounts,
  transition,
  type CheckJobStatus,
  type JobEvent,
} from '../../../services/domain/job-state.ts';
import type { Match, Status } from '../../../services/domain/types.ts';

function next(from: CheckJobStatus, event: JobEvent): CheckJobStatus {
  const result = transition(from, event);
  if (!result.ok) throw new Error(`${from} --${event}--> refused`);
  return result.status;
}

describe('check job state machine', () => {
  it('runs the paths of DECISIONS §7', () => {
    expect(next('draft', 'submit')).toBe('queued');
    expect(next('draft', 'submit_for_payment')).toBe('awaiting_payment');
    expect(next('awaiting_payment', 'pay')).toBe('queued');
    expect(next('queued', 'begin')).toBe('running');
    expect(next('running', 'complete')).toBe('done');
    expect(next('running', 'fail')).toBe('failed');
    expect(next('queued', 'fail')).toBe('failed');
  });

  it('deletes from every state but deleted', () => {
    for (const status of CHECK_JOB_STATUSES) {
      if (status === 'deleted') expect(canTransition(status, 'delete')).toBe(false);
      else expect(next(status, 'delete')).toBe('deleted');
    }
  });

  it('refuses everything else with a typed error', () => {
    expect(transition('done', 'complete')).toEqual({
      ok: false,
      error: { code: 'invalid_transition', from: 'done', event: 'complete' },
    });
    expect(canTransition('queued', 'complete')).toBe(false);
    expect(canTransition('draft', 'begin')).toBe(false);
    expect(canTransition('awaiting_payment', 'begin')).toBe(false);
    expect(canTransition('failed', 'begin')).toBe(false);
    expect(canTransition('done', 'fail')).toBe(false);
    expect(allowedEvents('deleted')).toEqual([]);
    expect(allowedEvents('running')).toEqual(['complete', 'fail', 'delete']);
  });

  it('never leaves a terminal state except into deleted, and never leaves deleted', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHECK_JOB_STATUSES), fc.constantFrom(...JOB_EVENTS), (from, event) => {
        const result = transition(from, event);
        expect(result.ok).toBe(canTransition(from, event));
        if (result.ok && isTerminal(from)) expect(result.status).toBe('deleted');
        if (from === 'deleted') expect(result.ok).toBe(false);
      }),
    );
  });

  it('reaches done or failed at most once along any sequence of events', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...JOB_EVENTS), { maxLength: 30 }), (events) => {
        let status: CheckJobStatus = 'draft';
        let completions = 0;
        for (const event of events) {
          const result = transition(status, event);
          if (!result.ok) continue;
          status = result.status;
          if (completionEventFor(status) !== null) completions += 1;
        }
        expect(completions).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('knows terminal states, initial states and completion events', () => {
    expect(CHECK_JOB_STATUSES.filter(isTerminal)).toEqual(['done', 'failed', 'deleted']);
    expect(initialJobStatus({ kind: 'file', needsPayment: true })).toBe('draft');
    expect(initialJobStatus({ kind: 'rows', needsPayment: false })).toBe('queued');
    expect(initialJobStatus({ kind: 'rows', needsPayment: true })).toBe('awaiting_payment');
    expect(completionEventFor('done')).toBe('check_job.completed');
    expect(completionEventFor('failed')).toBe('check_job.failed');
    expect(completionEventFor('running')).toBeNull();
  });
});

function result(status: Status, level: number | null): { status: Status; match: Match } {
  return { status, match: { level, code: null, label: null, on: [], previous_address: false } };
}

describe('job counts', () => {
  it('starts with every level key present at zero', () => {
    expect(emptyLevelCounts()).toEqual({ '0': 0, '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, unread: 0 });
    expect(emptyJobCounts().processed_count).toBe(0);
  });

  it('counts statuses and levels, null level as unread, without changing its input', () => {
    const start = emptyJobCounts();
    let counts = start;
    counts = addToCounts(counts, result('allowed', 0));
    counts = addToCounts(counts, result('blocked', 5));
    counts = addToCounts(counts, result('blocked', 5));
    counts = addToCounts(counts, result('manual', 1));
    counts = addToCounts(counts, result('manual', null));
    expect(counts).toEqual({
      processed_count: 5,
      allowed_count: 1,
      blocked_count: 2,
      manual_count: 2,
      level_counts: { '0': 1, '1': 1, '2': 0, '3': 0, '4': 0, '5': 2, unread: 1 },
    });
    expect(start).toEqual(emptyJobCounts());
  });

  it('rejects levels outside 0..5', () => {
    expect(() => levelKey(6)).toThrow(RangeError);
    expect(() => levelKey(1.5)).toThrow(RangeError);
    expect(levelKey(null)).toBe('unread');
  });

  it('merges partial counts to the same totals as counting everything at once', () => {
    const arbResult = fc.record({
      status: fc.constantFrom<Status>('allowed', 'blocked', 'manual'),
      level: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(arbResult), fc.array(arbResult), (a, b) => {
        const count = (rows: typeof a) =>
          rows.reduce((acc, row) => addToCounts(acc, result(row.status, row.level)), emptyJobCounts());
        const merged = mergeCounts(count(a), count(b));
        expect(merged).toEqual(count([...a, ...b]));
        const levels = Object.values(merged.level_counts).reduce((x, y) => x + y, 0);
        expect(levels).toBe(merged.processed_count);
        expect(merged.allowed_count + merged.blocked_count + merged.manual_count).toBe(merged.processed_count);
      }),
    );
  });
});
