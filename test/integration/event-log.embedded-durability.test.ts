import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedEventLog } from '../../services/platform/log/embedded.ts';
import { createEmbeddedLogStorage, keyHash } from '../../services/platform/log/embedded-storage.ts';
import type { EventLog } from '../../services/platform/log/port.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { recorder, waitFor } from '../support/event-log.ts';

/** What only the embedded log has to prove itself: its file survives a restart; it prunes. */
describe('embedded event log on its database file', () => {
  const dirs: string[] = [];
  const open: Array<{ log: EventLog; db: DatabaseSync }> = [];
  function start(path: string, now?: () => number) {
    const db = openEmbeddedDatabase(path);
    const log = createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 20, pruneIntervalMs: 0, now });
    open.push({ log, db });
    return log;
  }
  async function stop(log: EventLog) {
    const entry = open.find((e) => e.log === log)!;
    open.splice(open.indexOf(entry), 1);
    await log.close();
    entry.db.close();
  }
  function freshPath() {
    const dir = mkdtempSync(join(tmpdir(), 'event-log-durable-'));
    dirs.push(dir);
    return join(dir, 'robinson.sqlite');
  }
  afterEach(async () => {
    for (const entry of open.splice(0)) {
      await entry.log.close();
      entry.db.close();
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps messages and committed offsets across a restart of the process', async () => {
    const path = freshPath();
    const before = start(path);
    await before.createTopics([{ name: 'jobs.events', partitions: 3, retentionMs: null, compacted: false }]);
    await before.publish('jobs.events', Array.from({ length: 6 }, (_, i) => ({ key: `job-${i}`, value: `a${i}` })));
    const first = recorder();
    const subscription = await before.subscribe({ group: 'projection', topics: ['jobs.events'], handleBatch: first.handleBatch });
    await waitFor('6 messages', () => first.distinctValues().length === 6);
    await subscription.close();
    await before.publish('jobs.events', [{ key: 'job-0', value: 'b0' }]);
    await stop(before);

    const after = start(path);
    await after.createTopics([{ name: 'jobs.events', partitions: 3, retentionMs: null, compacted: false }]);
    const resumed = recorder();
    await after.subscribe({ group: 'projection', topics: ['jobs.events'], handleBatch: resumed.handleBatch });
    const replay = recorder();
    await after.subscribe({ group: 'audit', topics: ['jobs.events'], handleBatch: replay.handleBatch });
    await waitFor('the restart to deliver', () => resumed.deliveries.length >= 1 && replay.distinctValues().length === 7);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(resumed.distinctValues()).toEqual(['b0']);
    // Offsets continue after a restart: b0 comes after every earlier message of its partition.
    const b0 = replay.deliveries.find((m) => m.value!.toString() === 'b0')!;
    const partition = replay.deliveries.filter((m) => m.partition === b0.partition).map((m) => Number(m.offset));
    expect(partition).toEqual(partition.map((_, i) => i));
    expect(Number(b0.offset)).toBe(partition.length - 1);
  });

  it('appends what a handler published in the transaction that commits its batch: a failed handler leaves nothing, a resolved one both', async () => {
    const path = freshPath();
    const log = start(path);
    const topics = ['checks.rows', 'checks.results'].map((name) => ({ name, partitions: 1, retentionMs: null, compacted: false }));
    await log.createTopics(topics);
    await log.publish('checks.rows', [{ key: 'job:0', value: 'rows' }]);
    // The file as another connection (another thread of npm start) sees it.
    const readerDb = openEmbeddedDatabase(path);
    open.push({ log: { close: async () => undefined } as unknown as EventLog, db: readerDb });
    const file = createEmbeddedLogStorage(readerDb);
    const results = () => file.read('checks.results', 0, 0, 10).map((m) => m.value!.toString());

    let attempts = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await log.subscribe({
      group: 'matcher', topics: ['checks.rows'], retryDelayMs: 10,
      async handleBatch() {
        attempts++;
        await log.publish('checks.results', [{ key: 'job', value: `results-${attempts}` }]);
        if (attempts === 1) throw new Error('the matcher failed after publishing');
        await gate; // published, not yet resolved
      },
    });
    await waitFor('the second attempt to publish', () => attempts === 2);
    expect(results()).toEqual([]);
    expect(file.committed('matcher', 'checks.rows', 0)).toBe(0);
    release();
    await waitFor('the batch to commit', () => file.committed('matcher', 'checks.rows', 0) === 1);
    expect(results()).toEqual(['results-2']);
  });

  it('deletes messages past retention and superseded keys of compacted topics, never reusing offsets', async () => {
    let now = 1_000_000;
    const log = start(freshPath(), () => now);
    await log.createTopics([
      { name: 'rows', partitions: 1, retentionMs: 60_000, compacted: false },
      { name: 'versions', partitions: 1, retentionMs: null, compacted: true },
    ]);
    await log.publish('rows', [{ key: 'job-1', value: 'old' }]);
    await log.publish('versions', [{ key: 'list-a', value: 'v1' }, { key: 'list-b', value: 'v1' }]);
    now += 61_000;
    await log.publish('versions', [{ key: 'list-a', value: 'v2' }]);
    await log.publish('rows', [{ key: 'job-1', value: 'new' }]);

    const rows = recorder();
    const versions = recorder();
    await log.subscribe({ group: 'g', topics: ['rows'], handleBatch: rows.handleBatch });
    await log.subscribe({ group: 'g', topics: ['versions'], handleBatch: versions.handleBatch });
    await waitFor('survivors', () => rows.deliveries.length >= 1 && versions.deliveries.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rows.deliveries.map((m) => [m.offset, m.value!.toString()])).toEqual([['1', 'new']]);
    expect(versions.deliveries.map((m) => `${m.key}=${m.value?.toString()}`).sort()).toEqual(['list-a=v2', 'list-b=v1']);
  });

  it('refuses topics that were never created', async () => {
    const log = start(freshPath());
    await expect(log.publish('nope', [{ key: 'k', value: 'v' }])).rejects.toThrow(/does not exist/);
  });

  it('places a key by a stable hash (the same partition after a restart or an upgrade)', () => {
    expect(keyHash('job-1')).toBe(keyHash('job-1'));
    expect(keyHash('')).toBe(0x811c9dc5);
    expect(keyHash('a')).toBe(0xe40c292c);
  });
});
