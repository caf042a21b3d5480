import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UsageStore } from '../../services/platform/store/usage-port.ts';
import { useHarness } from './harness.ts';

export interface UsageStoreHarness {
  usage: UsageStore;
  close(): Promise<void>;
}

/** The UsageStore conformance suite: every adapter passes it unchanged. */
export function usageStoreContract(adapter: string, open: () => Promise<UsageStoreHarness>): void {
  describe(`UsageStore contract (${adapter})`, () => {
    const harness = useHarness(open);

    it('sums a month per organisation and kind; an entry recorded twice counts once', async () => {
      const { usage } = harness();
      const [a, b] = ['org-a', 'org-b'];
      const r1 = randomUUID();
      await usage.record({ org_id: a, month: '2026-11', kind: 'person_check', count: 3, ref: r1 });
      await usage.record({ org_id: a, month: '2026-11', kind: 'person_check', count: 3, ref: r1 });
      await usage.record({ org_id: a, month: '2026-11', kind: 'person_check', count: 2, ref: randomUUID() });
      await usage.record({ org_id: a, month: '2026-11', kind: 'job_row', count: 500, ref: randomUUID() });
      await usage.record({ org_id: b, month: '2026-11', kind: 'job_row', count: 7, ref: randomUUID() });
      await usage.record({ org_id: a, month: '2026-10', kind: 'person_check', count: 100, ref: randomUUID() });
      expect(await usage.monthly('2026-11')).toEqual([
        { org_id: a, kind: 'job_row', count: 500, entries: 1 },
        { org_id: a, kind: 'person_check', count: 5, entries: 2 },
        { org_id: b, kind: 'job_row', count: 7, entries: 1 },
      ]);
      expect(await usage.monthly('2026-10')).toEqual([{ org_id: a, kind: 'person_check', count: 100, entries: 1 }]);
      expect(await usage.monthly('2026-09')).toEqual([]);
    });
  });
}
