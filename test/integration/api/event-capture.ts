import { createPipelineEvents, type EventMessage, type PipelineEvent } from '../../../services/pipeline/events.ts';
import type { SchemaRegistry } from '../../../services/platform/schema-registry/port.ts';

/** An event appender that keeps what was published, in order, and decodes it on demand. */
export function captureLog(registry: SchemaRegistry) {
  const appended: Array<{ topic: string; message: EventMessage }> = [];
  const decoder = createPipelineEvents({ log: { publish: async () => {} }, registry });
  return {
    async publish(topic: string, messages: readonly EventMessage[]) {
      for (const message of messages) appended.push({ topic, message });
    },
    count: () => appended.length,
    keys: (topic: string) => appended.filter((a) => a.topic === topic).map((a) => a.message.key),
    decoded: (): Promise<PipelineEvent[]> => Promise.all(appended.map((a) => decoder.decode(a.message.value))),
  };
}
