/**
 * A producer and a consumer in a fresh process, for the test that no process warning comes from
 * kafkajs (kafka-behaviour.test.ts): Node emits a TimeoutNegativeWarning once per process, so
 * only a process that has run nothing else shows it. Creates `topic`, joins `group`, publishes one
 * message, waits for it, closes, then prints every process warning seen as one JSON line.
 *
 *   node test/support/kafka-warnings-child.ts <brokers> <topic> <group>
 */
import { testKafkaEventLog } from './kafka.ts';

const [brokers, topic, group] = process.argv.slice(2);
const warnings: string[] = [];
process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));

const log = testKafkaEventLog({ brokers: brokers.split(',') });
await log.createTopics([{ name: topic, partitions: 1, retentionMs: 3_600_000, compacted: false }]);
let delivered!: () => void;
const received = new Promise<void>((resolve) => (delivered = resolve));
await log.subscribe({ group, topics: [topic], handleBatch: async (batch) => { if (batch.messages.length > 0) delivered(); } });
await log.publish(topic, [{ key: 'k', value: 'v' }]);
await received;
await log.close();
// A warning is emitted on the next tick: one turn of the loop lets the last one in.
await new Promise((resolve) => setImmediate(resolve));
process.stdout.write(`${JSON.stringify({ warnings })}\n`);
