import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmbeddedEventLog } from '../../services/platform/log/embedded.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { eventLogContract } from '../contract/event-log.contract.ts';

// Every client opens its own connection to one database file, as a restarted process would.
const dir = mkdtempSync(join(tmpdir(), 'event-log-embedded-'));
const path = join(dir, 'log.sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventLogContract('embedded', async () => {
  const db = openEmbeddedDatabase(path);
  const log = createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 50 });
  return {
    ...log,
    close: async () => {
      await log.close();
      db.close();
    },
  };
});

describe('the embedded event log across threads of one process', () => {
  it('wakes a consumer of another log on the same file at once, not at its next poll', async () => {
    // Two logs on their own connections to one file, as the API thread and a worker have. The
    // consumer polls only every 10 minutes: without the wake-up the message would wait that long.
    const wakeChannel = `event-log-test:${crypto.randomUUID()}`;
    const consumerDb = openEmbeddedDatabase(path);
    const producerDb = openEmbeddedDatabase(path);
    const consumer = createEmbeddedEventLog({ db: consumerDb, logger: silentLogger(), pollIntervalMs: 600_000, wakeChannel });
    const producer = createEmbeddedEventLog({ db: producerDb, logger: silentLogger(), pollIntervalMs: 600_000, wakeChannel });
    const topic = `wake-${crypto.randomUUID()}`;
    await producer.createTopics([{ name: topic, partitions: 1, retentionMs: null, compacted: false }]);
    let resolveSeen: (value: string) => void = () => undefined;
    const seen = new Promise<string>((resolve) => { resolveSeen = resolve; });
    const subscription = await consumer.subscribe({
      group: `g-${crypto.randomUUID()}`, topics: [topic], startAt: 'earliest',
      async handleBatch(batch) {
        for (const m of batch.messages) resolveSeen(String(m.value));
      },
    });
    try {
      await producer.publish(topic, [{ key: 'k', value: 'hello', headers: {} }]);
      // A generous deadline for a busy machine, far below the consumer's poll interval.
      const deadline = new Promise<string>((_, reject) => setTimeout(() => reject(new Error('not woken within 60 s')), 60_000).unref());
      expect(await Promise.race([seen, deadline])).toBe('hello');
    } finally {
      await subscription.close();
      await consumer.close();
      await producer.close();
      consumerDb.close();
      producerDb.close();
    }
  }, 120_000);

  it('members of one group in two logs split the partitions by their share: every message to exactly one, by partition', async () => {
    // The embedded default's matcher threads: one group, a log each, thread i taking partitions p mod 2 = i.
    const dbs = [openEmbeddedDatabase(path), openEmbeddedDatabase(path)];
    const logs = dbs.map((db) => createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 20 }));
    const topic = `share-${crypto.randomUUID()}`;
    await logs[0].createTopics([{ name: topic, partitions: 6, retentionMs: null, compacted: false }]);
    const got: Array<Array<{ partition: number; key: string }>> = [[], []];
    const total = 60;
    let allSeen = () => {};
    const seen = new Promise<void>((resolve) => { allSeen = resolve; });
    const group = `g-${crypto.randomUUID()}`;
    const subscriptions = await Promise.all(logs.map((log, member) => log.subscribe({
      group, topics: [topic], share: { member, of: 2 },
      async handleBatch(batch) {
        for (const m of batch.messages) got[member].push({ partition: batch.partition, key: String(m.key) });
        if (got[0].length + got[1].length >= total) allSeen();
      },
    })));
    try {
      await logs[0].publish(topic, Array.from({ length: total }, (_, i) => ({ key: `k${i}`, value: `v${i}`, headers: {} })));
      await seen;
      expect(got.map((g) => new Set(g.map((m) => m.partition % 2)))).toEqual([new Set([0]), new Set([1])]);
      expect([...got[0], ...got[1]].map((m) => m.key).sort()).toEqual(Array.from({ length: total }, (_, i) => `k${i}`).sort());
      expect(new Set([...got[0], ...got[1]].map((m) => m.partition)).size).toBe(6);
    } finally {
      for (const subscription of subscriptions) await subscription.close();
      for (const log of logs) await log.close();
      for (const db of dbs) db.close();
    }
  });
});
