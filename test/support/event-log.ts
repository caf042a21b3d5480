import { randomUUID } from 'node:crypto';
import type { LogMessage, MessageBatch } from '../../services/platform/log/port.ts';

/** A topic, group or folder name no other test (or earlier run) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A batch handler that records every delivery (duplicates included) in order of arrival.
 *
 * Tests count what was published by its content (key + value), not by offset: a publish the
 * Kafka client retried after the broker had appended part of it (a partition it did not serve
 * yet, a restart mid-request) stands twice in the log, at two offsets (port.ts). Every test
 * publishes distinct values, so content is identity.
 */
export function recorder() {
  const deliveries: LogMessage[] = [];
  const batches: MessageBatch[] = [];
  const firstDeliveries = (): LogMessage[] => {
    const seen = new Set<string>();
    return deliveries.filter((message) => {
      const content = `${message.key}\u0000${message.value?.toString('base64') ?? 'null'}`;
      if (seen.has(content)) return false;
      seen.add(content);
      return true;
    });
  };
  return {
    deliveries,
    batches,
    handleBatch: async (batch: MessageBatch) => {
      batches.push(batch);
      deliveries.push(...batch.messages);
    },
    /** The first delivery of each distinct message (by key and value), in order of arrival. */
    firstDeliveries,
    /** Values (as strings) of the distinct messages (by key and value), in order of first arrival. */
    distinctValues(): string[] {
      return firstDeliveries().map((message) => message.value?.toString('utf8') ?? '');
    },
  };
}
