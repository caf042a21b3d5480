/**
 * Rate-limit consumption shared by API processes (docs/decisions.md §11 across processes): each process
 * publishes how many requests it has let through per API key since it started, and reads the
 * other processes' latest totals, so every process's token bucket also counts what the others
 * let through (services/api/rate-limiter.ts).
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - `publish` is durable once it resolves; totals of a (key, process) only grow, so the largest
 *   one seen is the current one and a repeated or late row changes nothing.
 * - `othersSince(process, sinceMs)` returns, per (key, other process), the largest total published
 *   at or after `sinceMs`, from any process on the same store.
 */
export interface RateTotal {
  /** The API key's id (never the key). */
  key: string;
  process: string;
  total: number;
}

export interface RateUsageStore {
  publish(process: string, totals: Array<{ key: string; total: number }>, atMs: number): Promise<void>;
  othersSince(process: string, sinceMs: number): Promise<RateTotal[]>;
}
