import { randomUUID } from 'node:crypto';
import type { LogMessage, MessageBatch } from '../../services/platform/log/port.ts';

/** A topic, group or folder name no other test (or earlier run) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A batch handler that records every delivery (duplicates included) in order of arrival. */
export function recorder() {
  const deliveries: LogMessage[] = [];
  const batches: MessageBatch[] = [];
  return {
    deliveries,
    batches,
    handleBatch: async (batch: MessageBatch) => {
      batches.push(batch);
      deliveries.push(...batch.messages);
    },
    /** Values (as strings) of distinct deliveries, first delivery of each offset only. */
    distinctValues(): string[] {
      const seen = new Set<string>();
      const values: string[] = [];
      for (const message of deliveries) {
        const id = `${message.topic}/${message.partition}/${message.offset}`;
        if (seen.has(id)) continue;
        seen.add(id);
        values.push(message.value?.toString('utf8') ?? '');
      }
      return values;
    },
  };
}
