/**
 * Where the real servers of infra/local listen. Integration suites call these and never skip:
 * a server that does not answer is a failing test with a message that says how to start it.
 */
export const servers = {
  kafkaBrokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(','),
  clickhouseUrl: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18124',
} as const;

export const startHint = 'start the test servers with `bash infra/local/up.sh` (npm test does it)';
