import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CHECK_JOB_STATUSES,
  JOB_EVENTS,
  isTerminal,
  transition,
  type CheckJobStatus,
  type JobEvent,
} from '../../../services/domain/job-state.ts';

const accepts = (from: CheckJobStatus, event: JobEvent) => transition(from, event).ok;

function next(from: CheckJobStatus, event: JobEvent): CheckJobStatus {
  const result = transition(from, event);
  if (!result.ok) throw new Error(`${from} --${event}--> refused`);
  return result.status;
}

describe('check job state machine', () => {
  it('runs the paths of docs/decisions.md §7', () => {
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
      if (status === 'deleted') expect(accepts(status, 'delete')).toBe(false);
      else expect(next(status, 'delete')).toBe('deleted');
    }
  });

  it('refuses everything else with a typed error', () => {
    expect(transition('done', 'complete')).toEqual({
      ok: false,
      error: { code: 'invalid_transition', from: 'done', event: 'complete' },
    });
    expect(accepts('queued', 'complete')).toBe(false);
    expect(accepts('draft', 'begin')).toBe(false);
    expect(accepts('awaiting_payment', 'begin')).toBe(false);
    expect(accepts('failed', 'begin')).toBe(false);
    expect(accepts('done', 'fail')).toBe(false);
    expect(JOB_EVENTS.filter((event) => accepts('deleted', event))).toEqual([]);
    expect(JOB_EVENTS.filter((event) => accepts('running', event))).toEqual(['complete', 'fail', 'delete']);
  });

  it('never leaves a terminal state except into deleted, and never leaves deleted', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHECK_JOB_STATUSES), fc.constantFrom(...JOB_EVENTS), (from, event) => {
        const result = transition(from, event);
        expect(result.ok).toBe(accepts(from, event));
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
          if (status === 'done' || status === 'failed') completions += 1;
        }
        expect(completions).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('knows the terminal states', () => {
    expect(CHECK_JOB_STATUSES.filter(isTerminal)).toEqual(['done', 'failed', 'deleted']);
  });
});
