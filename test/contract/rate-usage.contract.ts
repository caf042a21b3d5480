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

    /** Two API processes' limiters (10/s, burst 5) on one key, exchanging through the store on a shared clock. */
    async function twoLimiters() {
      const { store } = harness();
      const other = await harness().reopen();
      const clock = { now: Date.now() };
      const key = randomUUID();
      const make = (s: RateUsageStore, process: string) => {
        const limiter = createRateLimiter({ ratePerSecond: 10, burst: 5, now: () => clock.now });
        const sharing = createRateSharing({ limiter, store: s, process, intervalMs: 60_000, burst: 5, now: () => clock.now, onError: (e) => { throw e; } });
        return {
          take: () => {
            const d = limiter.take(key);
            if (d.allowed) sharing.allowed(key);
            return d.allowed;
          },
          sharing,
        };
      };
      return { clock, a: make(store, 'a'), b: make(other, 'b') };
    }

    it('two limiters sharing through it hold the key to its rate together', async () => {
      const { clock, a, b } = await twoLimiters();
      let allowed = 0;
      // 20 requests/s for 5 s, alternating, exchanging every 100 ms: about 5 + 10 × 5 = 55 pass.
      for (let i = 0; i < 100; i++) {
        if ((i % 2 ? b : a).take()) allowed += 1;
        clock.now += 50;
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

    // Which process ends up refusing under a steady load is timing (one may take the whole rate
    // while the other refuses nearly all): that each counts the other's spending is shown here,
    // one direction at a time.
    it('each limiter refuses what the other already let through, in both directions', async () => {
      const { clock, a, b } = await twoLimiters();
      const burst = (side: { take: () => boolean }) => Array.from({ length: 5 }, () => side.take());
      expect(burst(a)).toEqual([true, true, true, true, true]);
      expect(a.take()).toBe(false);
      await a.sharing.sync();
      await b.sharing.sync();
      // Alone, b would have its whole burst; a's five are taken from it.
      expect(b.take()).toBe(false);

      clock.now += 1_000; // both buckets full again
      expect(burst(b)).toEqual([true, true, true, true, true]);
      await b.sharing.sync();
      await a.sharing.sync();
      expect(a.take()).toBe(false);
      await a.sharing.stop();
      await b.sharing.stop();
    });
  });
}
