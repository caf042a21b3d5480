import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventLog, LogMessage } from '../../services/platform/log/port.ts';
import type { Logger } from '../../services/platform/logger.ts';
import { recorder, uniqueName, waitFor } from '../support/event-log.ts';
import { requireKafka, testKafkaEventLog } from '../support/kafka.ts';
import { keptLog } from '../support/kept-log.ts';
import { servers } from '../support/servers.ts';

/**
 * What the pipeline relies on from Kafka (and kafkajs 2.2.4 against the broker version pinned in
 * infra/local/kafka/pom.xml), beyond the port's contract: order per key with several members,
 * redelivery after a consumer process dies mid-batch, a rebalance when a member joins, and a broker
 * restart while producing and consuming.
 */
const repo = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const opened: EventLog[] = [];

/** A client of a broker that answers; a missing broker fails the test with how to start it. */
async function client(brokers: readonly string[] = servers.kafkaBrokers, retries?: number, logger?: Logger): Promise<EventLog> {
  await requireKafka(brokers);
  const log = testKafkaEventLog({ brokers: [...brokers], ...(retries ? { retries } : {}), ...(logger ? { logger } : {}) });
  opened.push(log);
  return log;
}

async function createTopic(log: EventLog, partitions: number): Promise<string> {
  const name = uniqueName('behaviour');
  await log.createTopics([{ name, partitions, retentionMs: 3_600_000, compacted: false }]);
  return name;
}

const id = (m: LogMessage) => `${m.partition}/${m.offset}`;
/** What was published, whatever offsets it stands at (a retried publish may stand twice; port.ts). */
const content = (m: LogMessage) => `${m.key}=${m.value?.toString() ?? ''}`;

afterEach(async () => {
  await Promise.all(opened.splice(0).map((log) => log.close()));
});

describe('kafka behaviour the pipeline relies on', () => {
  it('keeps per-key order across partitions while two members share the group', async () => {
    const log = await client();
    const topic = await createTopic(log, 6);
    const group = uniqueName('order');
    const first = recorder();
    const second = recorder();
    await log.subscribe({ group, topics: [topic], handleBatch: first.handleBatch, maxBatchSize: 10 });
    await (await client()).subscribe({ group, topics: [topic], handleBatch: second.handleBatch, maxBatchSize: 10 });
    const keys = Array.from({ length: 12 }, (_, i) => `job-${i}`);
    for (let round = 0; round < 20; round++) {
      await log.publish(topic, keys.map((key) => ({ key, value: `${key}#${round}` })));
    }
    const all = () => [...first.deliveries, ...second.deliveries];
    await waitFor('240 distinct messages', () => new Set(all().map(content)).size === 240);

    expect(first.deliveries.length).toBeGreaterThan(0);
    expect(second.deliveries.length).toBeGreaterThan(0);
    const partitionsOfFirst = new Set(first.deliveries.map((m) => m.partition));
    expect(second.deliveries.some((m) => partitionsOfFirst.has(m.partition))).toBe(false);
    for (const key of keys) {
      const forKey = all().filter((m) => m.key === key);
      expect(new Set(forKey.map((m) => m.partition)).size).toBe(1);
      // In offset order, each value at its first offset: a retried publish appends a copy later.
      const distinct = [...new Set(forKey.sort((a, b) => Number(a.offset) - Number(b.offset)).map((m) => m.value!.toString()))];
      expect(distinct).toEqual(Array.from({ length: 20 }, (_, round) => `${key}#${round}`));
    }
  });

  it('redelivers what a consumer process held when it was killed before committing', async () => {
    const log = await client();
    const topic = await createTopic(log, 1);
    const group = uniqueName('killed');
    await log.publish(topic, Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 3}`, value: String(i) })));

    const child = spawn(process.execPath, ['test/support/kafka-child-consumer.ts', servers.kafkaBrokers.join(','), topic, group], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const held = await new Promise<string[]>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        const parsed = JSON.parse(line) as { offsets?: string[] };
        if (parsed.offsets) resolve(parsed.offsets);
      });
      child.once('exit', (code) => reject(new Error(`child consumer exited early (${code})`)));
    });
    child.kill('SIGKILL');
    expect(held.length).toBeGreaterThan(0);

    const after = recorder();
    await (await client()).subscribe({ group, topics: [topic], handleBatch: after.handleBatch });
    await waitFor('all 20 messages after the kill', () => after.distinctValues().length === 20, 60_000);
    const redelivered = new Set(after.deliveries.map((m) => m.offset));
    expect(held.every((offset) => redelivered.has(offset))).toBe(true);
  }, 120_000);

  it('keeps a member whose handler runs longer than the session timeout (no redelivery)', async () => {
    const log = await client();
    const topic = await createTopic(log, 1);
    await log.publish(topic, Array.from({ length: 5 }, (_, i) => ({ key: 'job-1', value: String(i) })));
    const slow = testKafkaEventLog({ sessionTimeoutMs: 2000, heartbeatIntervalMs: 500 });
    opened.push(slow);
    const started: string[] = [];
    const handled: string[] = [];
    await slow.subscribe({
      group: uniqueName('slow'),
      topics: [topic],
      handleBatch: async (batch) => {
        started.push(...batch.messages.map((m) => m.offset));
        await new Promise((resolve) => setTimeout(resolve, 4000)); // twice the session timeout
        handled.push(...batch.messages.map((m) => m.offset));
      },
    });
    await waitFor('the slow batch', () => handled.length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 3000)); // room for a wrong redelivery to start
    expect(started).toEqual(['0', '1', '2', '3', '4']);
  }, 30_000);

  it('runs a producer and a consumer without a process warning (kafkajs on Node 24)', async () => {
    // kafkajs 2.2.4 set a timer to `throttledUntil - now` with throttledUntil -1 when never
    // throttled: Node 24 printed a TimeoutNegativeWarning in every service (kafka.ts). Node warns
    // once per process, so the client runs in a fresh one.
    await requireKafka();
    const { stdout } = await run(process.execPath, [
      'test/support/kafka-warnings-child.ts', servers.kafkaBrokers.join(','), uniqueName('warnings'), uniqueName('warnings'),
    ], { cwd: repo, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ warnings: [] });
  }, 90_000);

  it('rebalances when a second member joins: both own partitions, nothing is lost', async () => {
    const log = await client();
    const topic = await createTopic(log, 4);
    const group = uniqueName('rebalance');
    const keys = Array.from({ length: 16 }, (_, i) => `key-${i}`);
    const publishRound = (tag: string) => log.publish(topic, keys.map((key) => ({ key, value: `${tag}:${key}` })));

    const first = recorder();
    await log.subscribe({ group, topics: [topic], handleBatch: first.handleBatch });
    await publishRound('before');
    // Distinct messages, as round two counts them: a redelivery (at-least-once) is not a new one.
    await waitFor('the first member to read round one', () => new Set(first.deliveries.map(content)).size === 16);
    expect(new Set(first.deliveries.map((m) => m.partition)).size).toBe(4);

    const second = recorder();
    await (await client()).subscribe({ group, topics: [topic], handleBatch: second.handleBatch });
    await publishRound('after');
    const afterJoin = (r: ReturnType<typeof recorder>) => r.deliveries.filter((m) => m.value!.toString().startsWith('after:'));
    await waitFor('round two', () => new Set([...afterJoin(first), ...afterJoin(second)].map(content)).size === 16);

    const firstPartitions = new Set(afterJoin(first).map((m) => m.partition));
    const secondPartitions = new Set(afterJoin(second).map((m) => m.partition));
    expect(firstPartitions.size).toBeGreaterThan(0);
    expect(secondPartitions.size).toBeGreaterThan(0);
    expect([...firstPartitions].some((p) => secondPartitions.has(p))).toBe(false);
    const everything = [...first.deliveries, ...second.deliveries];
    expect(new Set(everything.map(content)).size).toBe(32);
    // At-least-once: a message may come twice around the rebalance, never more.
    const counts = new Map<string, number>();
    for (const m of everything) counts.set(id(m), (counts.get(id(m)) ?? 0) + 1);
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);
  }, 60_000);
});

describe('kafka broker restart while producing and consuming', () => {
  // A broker of its own (same script, other ports and state), so restarting it disturbs no other
  // test file running in parallel against the shared broker.
  const state = join(tmpdir(), uniqueName('robinson-kafka-restart'));
  let env: NodeJS.ProcessEnv;
  let brokers: string[];
  const kafkaSh = (command: 'start' | 'stop') => run('bash', ['infra/local/kafka.sh', command], { cwd: repo, env });

  beforeAll(async () => {
    const [port, controllerPort] = [await freePort(), await freePort()];
    env = { ...process.env, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(controllerPort), KAFKA_STATE_DIR: state };
    brokers = [`127.0.0.1:${port}`];
    await kafkaSh('start');
  });
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((log) => log.close()));
    await kafkaSh('stop').catch(() => undefined);
    rmSync(state, { recursive: true, force: true });
  });

  it('loses nothing published before, during and after the restart', async () => {
    // The publish during the restart retries until the broker is back. The default budget (10
    // retries, ≈ 60 s) was shorter than the broker's start on a loaded machine (load 25-30: the
    // publish failed with ECONNREFUSED while kafka.sh still waited for the broker to listen), so
    // this client's budget (30 retries, ≈ 4 min) covers a slow start; the test's own limit is 6 min.
    const log = await client(brokers, 30);
    const topic = await createTopic(log, 3);
    // The consumer's client gives up after 2 retries (≈ 1 s), so the broker's stop crashes its
    // consumer: what brings the group back is the adapter starting a fresh one, whose warnings
    // (and joins) go into a failure's message.
    const adapterLog = keptLog(['event_log.group_joined']);
    const consumed = recorder();
    await (await client(brokers, 2, adapterLog.logger)).subscribe({ group: uniqueName('restart'), topics: [topic], handleBatch: consumed.handleBatch, retryDelayMs: 200 });
    const batch = (tag: string) => Array.from({ length: 30 }, (_, i) => ({ key: `job-${i % 5}`, value: `${tag}${i}` }));

    await log.publish(topic, batch('before'));
    await waitFor('messages before the restart', () => consumed.distinctValues().length === 30);

    await kafkaSh('stop');
    const duringRestart = log.publish(topic, batch('during')); // retried by the client until the broker is back
    await kafkaSh('start');
    await duringRestart;
    await log.publish(topic, batch('after'));

    const expected = ['before', 'during', 'after'].flatMap((tag) => batch(tag).map((m) => m.value));
    // After a restart the group rejoins only once the broker's coordinator is back: minutes on a loaded machine.
    await waitFor('all 90 messages', () => consumed.distinctValues().length === 90, 180_000).catch((error: Error) => {
      throw new Error(`${error.message}; ${consumed.distinctValues().length} came; the adapter logged:\n${adapterLog.lines()}`);
    });
    expect(consumed.distinctValues().sort()).toEqual(expected.sort());
    expect(adapterLog.lines()).toContain('event_log.consumer_restarting');

    const reader = recorder();
    await (await client(brokers)).subscribe({ group: uniqueName('reread'), topics: [topic], handleBatch: reader.handleBatch });
    await waitFor('a new group to read all 90 from the log', () => reader.distinctValues().length === 90, 90_000);
  }, 360_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
