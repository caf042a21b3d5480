/**
 * A token bucket per key (DECISIONS §11: 20 requests/s, bursts to 40, configurable). Pure apart
 * from the injected clock; in-process, so with several API processes each enforces the rate on
 * its own (documented in docs/api-decisions.md).
 */
export interface RateLimiterOptions {
  ratePerSecond: number;
  burst: number;
  /** Milliseconds; the app passes its clock. */
  now: () => number;
  /** Beyond this many tracked keys, buckets that have refilled completely are forgotten. */
  maxTrackedKeys?: number;
}

export type RateDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateLimiter {
  take(key: string): RateDecision;
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { ratePerSecond, burst, now } = options;
  if (!(ratePerSecond > 0) || !(burst >= 1)) throw new Error('rate limit needs ratePerSecond > 0 and burst >= 1');
  const maxTrackedKeys = options.maxTrackedKeys ?? 10_000;
  const buckets = new Map<string, Bucket>();

  function refill(bucket: Bucket, at: number): void {
    const elapsedSeconds = Math.max(0, at - bucket.updatedAt) / 1000;
    bucket.tokens = Math.min(burst, bucket.tokens + elapsedSeconds * ratePerSecond);
    bucket.updatedAt = at;
  }

  function forgetFullBuckets(at: number): void {
    for (const [key, bucket] of buckets) {
      refill(bucket, at);
      if (bucket.tokens >= burst) buckets.delete(key);
    }
  }

  return {
    take(key) {
      const at = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= maxTrackedKeys) forgetFullBuckets(at);
        bucket = { tokens: burst, updatedAt: at };
        buckets.set(key, bucket);
      } else {
        refill(bucket, at);
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true, remaining: Math.floor(bucket.tokens) };
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond));
      return { allowed: false, retryAfterSeconds };
    },
  };
}
