/**
 * A token bucket per key (docs/decisions.md §11: 20 requests/s, bursts to 40, configurable). Pure apart
 * from the injected clock. With several API processes, `consumedElsewhere` takes what the other
 * processes let through (createRateSharing below, through the platform's RateUsageStore), so the
 * key's rate holds across processes: the bucket may go into debt (down to -burst) when others'
 * requests arrive late, and refills from there.
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
  /** Tokens another process spent on `key` (learnt late): taken from this process's bucket too. */
  consumedElsewhere(key: string, tokens: number): void;
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

  /** The key's bucket refilled to `at`, a full new one when the key is not tracked. */
  function bucketAt(key: string, at: number): Bucket {
    let bucket = buckets.get(key);
    if (!bucket) {
      if (buckets.size >= maxTrackedKeys) forgetFullBuckets(at);
      bucket = { tokens: burst, updatedAt: at };
      buckets.set(key, bucket);
    } else {
      refill(bucket, at);
    }
    return bucket;
  }

  return {
    take(key) {
      const bucket = bucketAt(key, now());
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true, remaining: Math.floor(bucket.tokens) };
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond));
      return { allowed: false, retryAfterSeconds };
    },

    consumedElsewhere(key, tokens) {
      if (!(tokens > 0)) return;
      const bucket = bucketAt(key, now());
      // Debt is bounded (a burst and two seconds' rate), so a late flood of others' counts
      // cannot lock a key out for long, yet covers what arrives a sync or two late.
      bucket.tokens = Math.max(-(burst + 2 * ratePerSecond), bucket.tokens - tokens);
    },
  };
}

/**
 * Keeps a limiter's buckets in step with the other API processes (docs/privacy-and-proof.md "Rate
 * limits across API processes"): every `intervalMs` it publishes how many requests this process
 * let through per key since it started, and hands the growth of every other process's totals to
 * `consumedElsewhere`. A request another process let through reaches this one within about one
 * interval; a process first seen is counted from then on. Errors are logged and retried next
 * interval (the limiter then runs on what it knows: never less strict than one process alone).
 */
export interface RateSharingDeps {
  limiter: RateLimiter;
  store: { publish(process: string, totals: Array<{ key: string; total: number }>, atMs: number): Promise<void>; othersSince(process: string, sinceMs: number): Promise<Array<{ key: string; process: string; total: number }>> };
  process: string;
  intervalMs: number;
  /** The limiter's burst: how much of another process's total counts when first seen. */
  burst: number;
  now: () => number;
  onError: (error: unknown) => void;
}

export interface RateSharing {
  /** Counts a request this process let through. */
  allowed(key: string): void;
  /** One exchange with the store (the timer calls it; tests too). */
  sync(): Promise<void>;
  stop(): Promise<void>;
}

/** Totals of other processes not heard of for this long are forgotten. */
const SEEN_WINDOW_MS = 60_000;

export function createRateSharing(deps: RateSharingDeps): RateSharing {
  const own = new Map<string, number>();
  const changed = new Set<string>();
  const lastUsed = new Map<string, number>();
  const seen = new Map<string, number>(); // `${process}\u0000${key}` → total already taken
  let running: Promise<void> | null = null;
  let stopped = false;

  async function exchange(): Promise<void> {
    const at = deps.now();
    if (changed.size > 0) {
      const totals = [...changed].map((key) => ({ key, total: own.get(key) as number }));
      changed.clear();
      try {
        await deps.store.publish(deps.process, totals, at);
      } catch (error) {
        for (const t of totals) changed.add(t.key);
        throw error;
      }
    }
    for (const other of await deps.store.othersSince(deps.process, at - SEEN_WINDOW_MS)) {
      const id = `${other.process}\u0000${other.key}`;
      const before = seen.get(id);
      seen.set(id, other.total);
      // First sight: at most a burst of it is recent enough to matter (a process running for
      // hours has a large total). A smaller total than before: that process started the key
      // over after an idle minute, everything in it is new.
      const fresh = before === undefined ? Math.min(other.total, deps.burst) : other.total < before ? other.total : other.total - before;
      if (fresh > 0) deps.limiter.consumedElsewhere(other.key, fresh);
    }
    // Keys idle for a minute start over from 0 (their rows have left every reader's window).
    for (const [key, last] of lastUsed) {
      if (at - last > SEEN_WINDOW_MS) {
        lastUsed.delete(key);
        own.delete(key);
      }
    }
    if (seen.size > 100_000) seen.clear();
  }

  const sync = (): Promise<void> => {
    running ??= exchange().catch(deps.onError).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) void sync();
  }, deps.intervalMs);
  timer.unref();

  return {
    allowed(key) {
      own.set(key, (own.get(key) ?? 0) + 1);
      lastUsed.set(key, deps.now());
      changed.add(key);
    },
    sync,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
