import { describe, expect, it } from 'vitest';
import { dueAt, initialDeliveryState, nextAttemptAt, parseRetryDelays, recordAttempt } from '../../../services/projection/callbacks/index.ts';

describe('retry schedule', () => {
  const delays = [10_000, 60_000, 300_000];
  const t0 = Date.parse('2026-01-01T00:00:00Z');

  it('is due at once, then 10 s, 60 s and 300 s after each attempt, then never', () => {
    expect(nextAttemptAt(0, null, delays)).toBe(0);
    expect(nextAttemptAt(1, t0, delays)).toBe(t0 + 10_000);
    expect(nextAttemptAt(2, t0, delays)).toBe(t0 + 60_000);
    expect(nextAttemptAt(3, t0, delays)).toBe(t0 + 300_000);
    expect(nextAttemptAt(4, t0, delays)).toBeNull();
  });

  it('records attempts into the state the job shows, ending delivered or failed', () => {
    let state = initialDeliveryState('d-1', 'check_job.completed');
    expect(dueAt(state, delays)).toBe(0);
    for (let i = 0; i < 3; i += 1) {
      state = recordAttempt(state, { at: t0 + i, ok: false, statusCode: 500, error: 'http_status', retriable: true }, delays);
      expect(state.state).toBe('pending');
      expect(dueAt(state, delays)).toBe(t0 + i + delays[i]);
    }
    expect(state.next_attempt_at).toBe(new Date(t0 + 2 + 300_000).toISOString());
    const failed = recordAttempt(state, { at: t0 + 9, ok: false, statusCode: null, error: 'timeout', retriable: true }, delays);
    expect(failed).toMatchObject({ state: 'failed', attempts: 4, last_status: null, last_error: 'timeout', next_attempt_at: null, delivery_id: 'd-1' });
    expect(dueAt(failed, delays)).toBeNull();

    const delivered = recordAttempt(state, { at: t0 + 9, ok: true, statusCode: 204, error: null, retriable: true }, delays);
    expect(delivered).toMatchObject({ state: 'delivered', attempts: 4, last_status: 204, last_error: null, delivered_at: new Date(t0 + 9).toISOString() });
  });

  it('reads CALLBACK_RETRY_DELAYS_MS', () => {
    expect(parseRetryDelays(undefined)).toEqual([10_000, 60_000, 300_000]);
    expect(parseRetryDelays(' 50, 100,150 ')).toEqual([50, 100, 150]);
    expect(parseRetryDelays('')).toEqual([]);
    expect(() => parseRetryDelays('10s,60s')).toThrow(/CALLBACK_RETRY_DELAYS_MS/);
    expect(() => parseRetryDelays('-5')).toThrow(RangeError);
  });

  it('gives up at once when retrying cannot help', () => {
    const state = recordAttempt(
      initialDeliveryState('d-2', 'check_job.failed'),
      { at: t0, ok: false, statusCode: null, error: 'url_blocked_address:private', retriable: false },
      delays,
    );
    expect(state).toMatchObject({ state: 'failed', attempts: 1, event: 'check_job.failed' });
  });
});
