// Health probe for infra/local/kafka.sh: exits 0 when the broker at argv[2] answers a kafkajs
// metadata request and lists at least one broker. Plain JavaScript so that any installed node runs
// it. kafkajs logs nothing here (logLevel NOTHING): the script's exit code is the answer.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../../package.json', import.meta.url));
const { Kafka, logLevel } = require('kafkajs');

const broker = process.argv[2] ?? '127.0.0.1:19092';
const kafka = new Kafka({
  clientId: 'robinson-probe',
  brokers: [broker],
  connectionTimeout: 1000,
  requestTimeout: 2000,
  retry: { retries: 0 },
  logLevel: logLevel.NOTHING,
});
const admin = kafka.admin();
const timer = setTimeout(() => process.exit(1), 5000);
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  await admin.listTopics();
  await admin.disconnect();
  clearTimeout(timer);
  process.exit(cluster.brokers.length > 0 ? 0 : 1);
} catch {
  process.exit(1);
}
