import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createJobDataKeys } from '../../services/platform/keys/data-keys.ts';
import type { DataKeyStore, StoredDataKey } from '../../services/platform/store/data-keys-port.ts';
import type { KeyRing } from '../../services/platform/store/keyring-port.ts';
import { useHarness } from './harness.ts';

export interface DataKeyStoreHarness {
  store: DataKeyStore;
  /** The key ring on the same data (master keys when none is configured). */
  keyring: KeyRing;
  /** A second store on the same data (another process), to prove writes are durable and shared. */
  reopen(): Promise<{ store: DataKeyStore; keyring: KeyRing }>;
  /**
   * Everything the adapter physically holds, as text (embedded: the database file and its WAL;
   * ClickHouse: every row of the table's active parts, deleted-masked rows included), so a test
   * can show a deleted key is gone from storage and not only from reads.
   */
  rawContent(): Promise<string>;
  close(): Promise<void>;
}

const key = (jobId: string, created_at = new Date().toISOString()): StoredDataKey => ({
  job_id: jobId, key_id: randomBytes(8).toString('hex'), master_kid: 'm1', wrapped: randomBytes(60).toString('base64url'), created_at,
});

/** The DataKeyStore conformance suite (crypto-shredding): every adapter passes it unchanged. */
export function dataKeyStoreContract(adapter: string, open: () => Promise<DataKeyStoreHarness>): void {
  describe(`DataKeyStore contract (${adapter})`, () => {
    const harness = useHarness(open);

    it('keeps several keys of a job, each found by (job, key id), durably and for another process', async () => {
      const { store } = harness();
      const job = randomUUID();
      const a = key(job, '2026-01-01T00:00:00.000Z');
      const b = key(job, '2026-01-02T00:00:00.000Z');
      await store.putKey(a);
      await store.putKey(b);
      await store.putKey(a); // again: no second copy
      expect(await store.getKey(job, a.key_id)).toEqual(a);
      expect(await store.listJobKeys(job)).toEqual([a, b]);
      const other = await harness().reopen();
      expect(await other.store.getKey(job, b.key_id)).toEqual(b);
      expect(await store.getKey(job, 'ffffffffffffffff')).toBeNull();
      expect(await store.getKey(randomUUID(), a.key_id)).toBeNull();
    });

    it('deleteJobKeys removes every key of the job from storage, not only from reads, and no other job\'s', async () => {
      const { store, rawContent } = harness();
      const job = randomUUID();
      const kept = key(randomUUID());
      const gone = [key(job), key(job)];
      for (const k of [...gone, kept]) await store.putKey(k);
      const before = await rawContent();
      for (const k of gone) expect(before).toContain(k.wrapped); // the scan can find them
      await store.deleteJobKeys(job);
      await store.deleteJobKeys(job); // again, and a job without keys: no error
      await store.deleteJobKeys(randomUUID());
      expect(await store.listJobKeys(job)).toEqual([]);
      expect(await (await harness().reopen()).store.getKey(job, gone[0].key_id)).toBeNull();
      expect(await store.getKey(kept.job_id, kept.key_id)).toEqual(kept);
      const after = await rawContent();
      for (const k of gone) expect(after).not.toContain(k.wrapped);
      expect(after).toContain(kept.wrapped);
    });

    it('through the platform\'s cached JobDataKeys: a writer key made in one process is read in another; forget reaches both stores at once', async () => {
      const { store, keyring } = harness();
      const other = await harness().reopen();
      const writer = createJobDataKeys({ store, keyring });
      const reader = createJobDataKeys({ store: other.store, keyring: other.keyring, cacheMs: 0 });
      const job = randomUUID();
      const made = await writer.writerKey(job);
      expect(await writer.writerKey(job)).toBe(made); // one per job and process
      const read = await reader.key(job, made.keyId);
      expect(read?.key.equals(made.key)).toBe(true);
      const [stored] = await store.listJobKeys(job);
      expect(Buffer.from(stored.wrapped, 'base64url').includes(made.key)).toBe(false); // stored wrapped
      await writer.forget(job);
      expect(await writer.key(job, made.keyId)).toBeNull();
      expect(await reader.key(job, made.keyId)).toBeNull();
    });
  });
}
