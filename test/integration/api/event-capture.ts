import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pipelineTopics } from '../../../infra/topics.ts';
import { createPipelineEvents, type PipelineEvent } from '../../../services/pipeline/events.ts';
import type { EventLog, LogMessage } from '../../../services/platform/log/port.ts';
import type { SchemaRegistry } from '../../../services/platform/schema-registry/port.ts';

/** Quiet time after which everything published before has been consumed. */
const SETTLE_MS = 150;

/**
 * Consumes every pipeline topic of `log` in a group of its own, from the earliest message, and
 * keeps what arrives: tests assert on what a downstream consumer really receives.
 */
export async function consumeEvents(log: EventLog, registry: SchemaRegistry) {
  const decoder = createPipelineEvents({ log: { publish: async () => {} }, registry });
  const received: LogMessage[] = [];
  const topics = pipelineTopics().map((t) => t.name).filter((name) => name !== 'lists.versions');
  const subscription = await log.subscribe({
    group: `test-${randomUUID()}`,
    topics,
    startAt: 'earliest',
    handleBatch: async (batch) => void received.push(...batch.messages),
  });

  /** Waits until nothing new arrived for SETTLE_MS. */
  async function settle(): Promise<LogMessage[]> {
    let seen = -1;
    while (seen !== received.length) {
      seen = received.length;
      await sleep(SETTLE_MS);
    }
    return received;
  }

  return {
    close: () => subscription.close(),
    count: async () => (await settle()).length,
    keys: async (topic: string) =>
      (await settle())
        .filter((m) => m.topic === topic)
        .sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset))
        .map((m) => m.key),
    partitions: async (topic: string) => (await settle()).filter((m) => m.topic === topic).map((m) => m.partition),
    /** Decoded events; messages of one key in publish order (different partitions interleave). */
    decoded: async (): Promise<PipelineEvent[]> => {
      const messages = await settle();
      return Promise.all(messages.map((m) => decoder.decode(m.value as Buffer)));
    },
  };
}
