/** Starts the suite's private broker and ClickHouse front before any scenario; stops them after. */
import { privateClickHouse, privateKafka } from './private-servers.ts';

export async function setup(): Promise<void> {
  await Promise.all([privateKafka.start(), privateClickHouse.start()]);
}

export async function teardown(): Promise<void> {
  await Promise.allSettled([privateKafka.stop(), privateClickHouse.stop()]);
}
