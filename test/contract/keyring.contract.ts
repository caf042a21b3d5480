import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KeyRing, StoredKey } from '../../services/platform/store/keyring-port.ts';
import { useHarness } from './harness.ts';

export interface KeyRingHarness {
  keys: KeyRing;
  /** A second key ring on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<KeyRing>;
  close(): Promise<void>;
}

const key = (purpose: StoredKey['purpose'], created_at: string, kid = randomBytes(8).toString('hex')): StoredKey => ({
  purpose, kid, secret: randomBytes(32).toString('base64url'), created_at,
});

/** The KeyRing conformance suite: every adapter passes it unchanged. */
export function keyRingContract(adapter: string, open: () => Promise<KeyRingHarness>): void {
  describe(`KeyRing contract (${adapter})`, () => {
    const harness = useHarness(open);

    it('lists keys of one purpose newest first, ties by kid, durably', async () => {
      const { keys } = harness();
      expect(await keys.listKeys('certificate')).toEqual([]);
      const old = key('certificate', '2026-01-01T00:00:00.000Z');
      const tieB = key('certificate', '2026-02-01T00:00:00.000Z', 'bbbb');
      const tieA = key('certificate', '2026-02-01T00:00:00.000Z', 'aaaa');
      const cursor = key('cursor', '2026-03-01T00:00:00.000Z');
      for (const k of [old, tieB, tieA, cursor]) await keys.addKey(k);
      expect(await keys.listKeys('certificate')).toEqual([tieA, tieB, old]);
      expect(await keys.listKeys('cursor')).toEqual([cursor]);
      expect(await (await harness().reopen()).listKeys('certificate')).toEqual([tieA, tieB, old]);
    });

    it('adding a key again (same purpose and kid) changes nothing, even with another secret', async () => {
      const { keys } = harness();
      const first = key('cursor', '2026-04-01T00:00:00.000Z', 'same-kid');
      await keys.addKey(first);
      await keys.addKey({ ...first, secret: 'other', created_at: '2026-05-01T00:00:00.000Z' });
      const listed = (await keys.listKeys('cursor')).filter((k) => k.kid === 'same-kid');
      expect(listed).toEqual([first]);
    });
  });
}
