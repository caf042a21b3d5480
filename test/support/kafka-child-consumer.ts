/**
 * A consumer in its own process, for the test that kills one mid-batch (kafka-behaviour.test.ts):
 * joins `group` on `topic`, prints the offsets of the first batch it gets as one JSON line, and
 * never finishes that batch, so nothing is committed. The test then sends SIGKILL.
 *
 *   node test/support/kafka-child-consumer.ts <brokers> <topic> <group>
 */
import { testKafkaEventLog } from './kafka.ts';

const [brokers, topic, group] = process.argv.slice(2);
// A short session: the group notices the kill within two seconds.
const log = testKafkaEventLog({ brokers: brokers.split(','), sessionTimeoutMs: 2000, heartbeatIntervalMs: 500 });
await log.subscribe({
  group,
  topics: [topic],
  handleBatch: async (batch) => {
    process.stdout.write(`${JSON.stringify({ partition: batch.partition, offsets: batch.messages.map((m) => m.offset) })}\n`);
    await new Promise(() => undefined); // stuck: the batch is never committed
  },
});
process.stdout.write('{"joined":true}\n');
