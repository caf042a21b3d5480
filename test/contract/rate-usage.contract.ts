import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRateLimiter, createRateSharing } from '../../services/api/rate-limiter.ts';
import type { RateUsageStore } from '../../services/platform/store/rate-usage-port.ts';
import { useHarness } from './harness.ts';

export interface RateUsageHarness {
  store: RateUsageStore;
  /** A second store on the same data (another API process). */
  reopen(): Promise<RateUsageStore>;
  close(): Promise<void>;
}

/** The RateUsageStore conformance suite: every adapter passes it unchanged. */
export function rateUsageStoreContract(adapter: string, open: () => Promise<RateUsageHarness>): void {
  describe(`RateUsageStore contract (${adapter})`, () => {
    const harness = useHarness(open);

    it('shows each process the largest total of every other process since a time, never its own', async () => {
      const { store } = harness();
      const other = await harness().reopen();
      const key = randomUUID();
      const now = Date.now();
      await store.publish('p1', [{ key, total: 3 }], now - 1000);
      await store.publish('p1', [{ key, total: 7 }], now);
      await other.publish('p2', [{ key, total: 2 }], now);
      const seenByP2 = (await other.othersSince('p2', now - 5000)).filter((t) => t.key === key);
      expect(seenByP2).toEqual([{ key, process: 'p1', total: 7 }]);
      expect((await store.othersSince('p1', now - 5000)).filter((t) => t.key === key)).toEqual([{ key, process: 'p2', total: 2 }]);
      expect((await store.othersSince('p2', now + 1)).filter((t) => t.key === key)).toEqual([]);
    });

    it('two limiters sharing through it hold the key to its rate together', async () => {
      const { store } = harness();
      const other = await harness().reopen();
      let now = Date.now();
      const clock = () => now;
      const key = randomUUID();
      const make = (s: RateUsageStore, process: string) => {
        const limiter = createRateLimiter({ ratePerSecond: 10, burst: 5, now: clock });
        const sharing = createRateSharing({ limiter, store: s, process, intervalMs: 60_000, burst: 5, now: clock, onError: (e) => { throw e; } });
        return {
          take: () => {
            const d = limiter.take(key);
            if (d.allowed) sharing.allowed(key);
            return d.allowed;
          },
          sharing,
        };
      };
      const a = make(store, 'a');
      const b = make(other, 'b');
      let allowed = 0;
      // 20 requests/s for 5 s, alternating, exchanging every 100 ms: about 5 + 10 × 5 = 55 pass.
      for (let i = 0; i < 100; i++) {
        if ((i % 2 ? b : a).take()) allowed += 1;
        now += 50;
        if (i % 2 === 1) {
          await a.sharing.sync();
          await b.sharing.sync();
        }
      }
      await a.sharing.stop();
      await b.sharing.stop();
      expect(allowed).toBeGreaterThanOrEqual(50);
      expect(allowed).toBeLessThanOrEqual(62);
    });
  });
}
