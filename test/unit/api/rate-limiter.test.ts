import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../services/api/rate-limiter.ts';

describe('token bucket rate limiter', () => {
  it('allows a burst, then refills at the rate', () => {
    let now = 0;
    const limiter = createRateLimiter({ ratePerSecond: 20, burst: 40, now: () => now });
    for (let i = 0; i < 40; i++) expect(limiter.take('k').allowed).toBe(true);
    expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 100; // 2 tokens
    expect(limiter.take('k').allowed).toBe(true);
    expect(limiter.take('k').allowed).toBe(true);
    expect(limiter.take('k').allowed).toBe(false);
    now += 60_000;
    expect(limiter.take('k')).toEqual({ allowed: true, remaining: 39 });
  });

  it('says how long to wait when the rate is slow, rounded up to whole seconds', () => {
    let now = 0;
    const limiter = createRateLimiter({ ratePerSecond: 0.25, burst: 1, now: () => now });
    expect(limiter.take('k').allowed).toBe(true);
    expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 4 });
    now += 1000;
    expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 3 });
  });

  it('keeps keys apart and forgets full buckets beyond the tracking limit', () => {
    let now = 0;
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 1, now: () => now, maxTrackedKeys: 2 });
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('b').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    now += 1000;
    // 'a' and 'b' are full again and are dropped to make room; a fresh bucket is full too.
    expect(limiter.take('c').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('rejects nonsense settings', () => {
    expect(() => createRateLimiter({ ratePerSecond: 0, burst: 1, now: () => 0 })).toThrow();
    expect(() => createRateLimiter({ ratePerSecond: 1, burst: 0, now: () => 0 })).toThrow();
  });
});
