/**
 * Where the real servers of infra/local listen. Integration suites call these and never skip:
 * a server that does not answer is a failing test with a message that says how to start it.
 */
export const servers = {
  kafkaBrokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(','),
  clickhouseUrl: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18124',
  /** infra/local/sshd.sh: the service's own SFTP server. */
  sftp: { host: '127.0.0.1', port: Number(process.env.SFTP_PORT ?? 12022) },
  /** infra/local/dovecot.sh and postfix.sh: IMAP, and SMTP delivering into it. */
  imap: { host: '127.0.0.1', port: Number(process.env.DOVECOT_IMAP_PORT ?? 11143) },
  smtp: { host: '127.0.0.1', port: Number(process.env.POSTFIX_SMTP_PORT ?? 12025) },
} as const;

export const startHint = 'start the test servers with `bash infra/local/up.sh` (npm test does it)';
