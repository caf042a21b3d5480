import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { pipelineTopics } from '../../../infra/topics.ts';
import { createPipelineEvents, type PipelineEvent } from '../../../services/pipeline/events.ts';
import type { EventLog, LogMessage } from '../../../services/platform/log/port.ts';
import type { SchemaRegistry } from '../../../services/platform/schema-registry/port.ts';

/** How long a test waits for the consumer to reach what was published before it fails. */
const DEADLINE_MS = 10_000;
const POLL_MS = 10;

/**
 * An event log that counts what is published through it per topic: the end of each topic as the
 * publisher made it, which is what a consumer must have reached before a test reads.
 */
export function countingLog(log: EventLog): EventLog & { published: () => Map<string, number> } {
  const published = new Map<string, number>();
  return {
    ...log,
    createTopics: (definitions) => log.createTopics(definitions),
    subscribe: (options) => log.subscribe(options),
    close: () => log.close(),
    publish: async (topic, messages) => {
      await log.publish(topic, messages);
      published.set(topic, (published.get(topic) ?? 0) + messages.length);
    },
    published: () => published,
  };
}

/**
 * Consumes every pipeline topic of `log` in a group of its own, from the earliest message, and
 * keeps what arrives: tests assert on what a downstream consumer really receives. Reads wait until
 * every message published through `log` (a countingLog) has arrived — the publisher's own count is
 * the signal, never a quiet period — and fail after DEADLINE_MS.
 */
export async function consumeEvents(log: ReturnType<typeof countingLog>, registry: SchemaRegistry) {
  const decoder = createPipelineEvents({ log: { publish: async () => {} }, registry });
  const received: LogMessage[] = [];
  const topics = pipelineTopics().map((t) => t.name).filter((name) => name !== 'lists.versions');
  const subscription = await log.subscribe({
    group: `test-${randomUUID()}`,
    topics,
    startAt: 'earliest',
    handleBatch: async (batch) => void received.push(...batch.messages),
  });

  const arrived = (topic: string) => received.filter((m) => m.topic === topic).length;
  /** Waits until every topic has delivered at least what was published to it (at least once). */
  async function settle(): Promise<LogMessage[]> {
    const deadline = Date.now() + DEADLINE_MS;
    const behind = () => [...log.published()].filter(([topic, count]) => topics.includes(topic) && arrived(topic) < count);
    while (behind().length > 0 && Date.now() < deadline) await sleep(POLL_MS);
    expect(behind(), 'topics whose published messages did not all arrive').toEqual([]);
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
