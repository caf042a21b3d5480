import { connect } from 'node:net';
import { createKafkaEventLog, type KafkaEventLogOptions } from '../../services/platform/log/kafka.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import type { EventLog } from '../../services/platform/log/port.ts';
import { servers, startHint } from './servers.ts';

/**
 * Fails (never skips) when no broker listens, with the command that starts one. A TCP connect is
 * enough here: the adapter's own errors say the rest, and kafkajs stays behind the port.
 */
export async function requireKafka(brokers: readonly string[] = servers.kafkaBrokers): Promise<void> {
  const [host, port] = brokers[0].split(':');
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host, port: Number(port), timeout: 2000 });
    const fail = (reason: string) => {
      socket.destroy();
      reject(new Error(`Kafka is not answering on ${brokers.join(',')} (${reason}): ${startHint}`));
    };
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('timeout', () => fail('timeout'));
    socket.once('error', (error) => fail(error.message));
  });
}

/** The Kafka adapter tuned for tests: short sessions so rebalances and dead members show fast. */
export function testKafkaEventLog(overrides: Partial<KafkaEventLogOptions> = {}): EventLog {
  return createKafkaEventLog({
    brokers: servers.kafkaBrokers,
    logger: silentLogger(),
    clientId: 'robinson-test',
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 500,
    rebalanceTimeoutMs: 10_000,
    maxWaitTimeMs: 200,
    ...overrides,
  });
}
