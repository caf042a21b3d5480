/**
 * Event-log throughput, embedded (node:sqlite file) and Kafka (the broker of infra/local/kafka.sh,
 * which must be running: `bash infra/local/up.sh`): publish 20,000 keyed 1 KiB messages in
 * publishes of 500, then one consumer group reads them all back in batches of up to 500.
 * Run alone: `npm run bench -- event-log`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedEventLog } from '../../services/platform/log/embedded.ts';
import type { EventLog, OutgoingMessage } from '../../services/platform/log/port.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { uniqueName, waitFor } from '../support/event-log.ts';
import { requireKafka, testKafkaEventLog } from '../support/kafka.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';

const MESSAGES = 20_000;
const PUBLISH_SIZE = 500;
const PAYLOAD = Buffer.alloc(1024, 'x');

async function measure(adapter: string, log: EventLog): Promise<BenchMetric[]> {
  const topic = uniqueName('bench');
  await log.createTopics([{ name: topic, partitions: 6, retentionMs: 3_600_000, compacted: false }]);
  const messages: OutgoingMessage[] = Array.from({ length: MESSAGES }, (_, i) => ({ key: `job-${i % 97}`, value: PAYLOAD }));

  let started = performance.now();
  for (let i = 0; i < MESSAGES; i += PUBLISH_SIZE) await log.publish(topic, messages.slice(i, i + PUBLISH_SIZE));
  const publishS = (performance.now() - started) / 1000;

  let consumed = 0;
  started = performance.now();
  const subscription = await log.subscribe({
    group: uniqueName('bench'),
    topics: [topic],
    maxBatchSize: 500,
    handleBatch: async (batch) => {
      consumed += batch.messages.length;
    },
  });
  await waitFor('every message consumed', () => consumed >= MESSAGES, 300_000);
  const consumeS = (performance.now() - started) / 1000;
  await subscription.close();
  return [
    { name: `${adapter}: publish (durable, 500 per call)`, value: Math.round(MESSAGES / publishS), unit: 'msg/s' },
    { name: `${adapter}: consume in a group (commit per batch)`, value: Math.round(MESSAGES / consumeS), unit: 'msg/s', note: 'includes the group join' },
  ];
}

const bench: Bench = async (): Promise<BenchSection> => {
  const metrics: BenchMetric[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'event-log-bench-'));
  const db = openEmbeddedDatabase(join(dir, 'log.sqlite'));
  const embedded = createEmbeddedEventLog({ db, logger: silentLogger() });
  try {
    metrics.push(...(await measure('embedded', embedded)));
  } finally {
    await embedded.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  await requireKafka();
  const kafka = testKafkaEventLog();
  try {
    metrics.push(...(await measure('kafka', kafka)));
  } finally {
    await kafka.close();
  }
  return {
    title: 'Event log (20,000 keyed 1 KiB messages, 6 partitions)',
    metrics,
    notes: ['Kafka: the single local broker of infra/local/kafka.sh on the same 2 cores as the client.'],
  };
};

export default bench;
