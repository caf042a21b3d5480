import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineTopics } from '../../infra/topics.ts';
import { MAX_BATCH_BYTES } from '../../services/platform/log/kafka.ts';
import type { EventLog } from '../../services/platform/log/port.ts';
import { uniqueName } from '../support/event-log.ts';
import { requireKafka, testKafkaEventLog } from '../support/kafka.ts';
import { servers } from '../support/servers.ts';

/**
 * The pipeline's topic definitions (infra/topics.ts) as the Kafka adapter creates them: partition
 * counts, compaction, retention and the largest batch, including the rolled segments that make short retention
 * delete on time. Reads them back with kafkajs' admin directly, as an operator would.
 */
describe('pipeline topics on Kafka', () => {
  const opened: EventLog[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((log) => log.close()));
  });

  it('creates every pipeline topic with its partitions, retention and cleanup policy', async () => {
    await requireKafka();
    const log = testKafkaEventLog();
    opened.push(log);
    const definitions = pipelineTopics(`${uniqueName('pipeline')}.`);
    await log.createTopics(definitions);
    await log.createTopics(definitions); // idempotent

    const admin = new Kafka({ clientId: 'robinson-test-admin', brokers: servers.kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const names = definitions.map((d) => d.name);
      const metadata = await admin.fetchTopicMetadata({ topics: names });
      const configs = await admin.describeConfigs({
        includeSynonyms: false,
        resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['cleanup.policy', 'retention.ms', 'segment.ms', 'max.message.bytes'] })),
      });
      for (const definition of definitions) {
        const topic = metadata.topics.find((t) => t.name === definition.name);
        expect(topic?.partitions.length, definition.name).toBe(definition.partitions);
        const entries = configs.resources.find((r) => r.resourceName === definition.name)!.configEntries;
        const value = (name: string) => entries.find((e) => e.configName === name)?.configValue;
        expect(value('cleanup.policy'), definition.name).toBe(definition.compacted ? 'compact' : 'delete');
        expect(value('retention.ms'), definition.name).toBe(String(definition.retentionMs ?? -1));
        expect(value('max.message.bytes'), definition.name).toBe(String(MAX_BATCH_BYTES));
        if (definition.retentionMs !== null) {
          expect(Number(value('segment.ms')), definition.name).toBeLessThanOrEqual(definition.retentionMs / 6);
        }
      }
      const rows = definitions.find((d) => d.name.endsWith('checks.rows'))!;
      expect(rows.retentionMs).toBeLessThanOrEqual(24 * 3_600_000); // personal data: hours, not days
    } finally {
      await admin.disconnect();
    }
  });
});
