import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../services/platform/config.ts';

describe('loadConfig', () => {
  it('applies the defaults when nothing is set (empty strings count as unset)', () => {
    expect(loadConfig({ PORT: '', UNRELATED: 'x' })).toEqual({
      PORT: 8080,
      HOST: '127.0.0.1',
      DATA_DIR: './data',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_SECOND: 20,
      RATE_LIMIT_BURST: 40,
      RATE_LIMIT_SYNC_MS: 250,
      AUTH_CACHE_MS: 2000,
      QUOTA_OPEN_DRAFTS: 50,
      QUOTA_QUEUED_ROWS_LIVE: 5_000_000,
      QUOTA_QUEUED_ROWS_TEST: 1_000_000,
      QUOTA_PARALLEL_UPLOADS: 2,
      QUOTA_PREVIEWS_PER_MINUTE: 30,
      QUOTA_PREVIEW_BURST: 10,
      QUOTA_MONITOR_UPLOADS_PER_HOUR: 60,
      QUOTA_MONITOR_UPLOAD_BURST: 10,
      HTTP_REQUEST_TIMEOUT_MS: 600_000,
      HTTP_HEADERS_TIMEOUT_MS: 20_000,
      HTTP_IDLE_TIMEOUT_MS: 60_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 65_000,
      LIST_REFRESH_SECONDS: 30,
      MONITOR_INTERVAL_MS: 5000,
      DEMO_SEED: true,
      CALLBACK_TIMEOUT_MS: 5000,
      CALLBACK_RETRY_DELAYS_MS: [10_000, 60_000, 300_000],
      CALLBACK_ALLOW_HOSTS: '',
      KAFKA_SESSION_TIMEOUT_MS: 30_000,
      KAFKA_TOPIC_PREFIX: '',
      PROJECTION_COUNT_INTERVAL_MS: 1000,
      EMBEDDED_MATCHER_THREADS: 2,
      RETENTION_SWEEP_SECONDS: 60,
      INTAKE_STALE_SECONDS: 600,
      PRICE_LIST_SMALL_CENTS: 49_500,
      PRIVATE_LIST_CACHE_ENTRIES: 1_000_000,
      PRICE_LIST_LARGE_CENTS: 249_500,
      PRICE_CUSTOM_CENTS_PER_1000_ROWS: 2_000,
      PHONE_DIRECTORY_TIMEOUT_MS: 5000,
      CONNECTOR_TICK_MS: 5000,
      CONNECTOR_CONCURRENCY: 4,
      CONNECTOR_TIMEOUT_MS: 120_000,
      CONNECTOR_MAX_MB: 100,
      CONNECTOR_MIN_INTERVAL_SECONDS: 300,
      SFTP_POLL_MS: 5000,
      SFTP_STABLE_MS: 10_000,
      SFTP_CONCURRENCY: 4,
      SFTP_VISIT_TIMEOUT_MS: 120_000,
      IMAP_PORT: 993,
      IMAP_SECURE: true,
      SMTP_PORT: 587,
      SMTP_SECURE: false,
      EMAIL_POLL_MS: 5000,
      EMAIL_QUARANTINE_DAYS: 30,
    });
  });

  it('refuses short secrets and malformed certificate keys, never echoing them', () => {
    expect(() => loadConfig({ CURSOR_SECRET: 'short-secret' })).toThrow(/CURSOR_SECRET/);
    expect(() => loadConfig({ PAYMENT_WEBHOOK_SECRET: 'short' })).toThrow(/PAYMENT_WEBHOOK_SECRET/);
    expect(() => loadConfig({ CERTIFICATE_KEYS: 'not base64url!' })).toThrow(/CERTIFICATE_KEYS/);
    expect(() => loadConfig({ CURSOR_SECRET: 'short-secret' })).not.toThrow(/short-secret/);
  });

  it('takes the inbound settings and refuses a secret key that is not 32 bytes of base64', () => {
    expect(loadConfig({ INBOUND_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'), IMAP_SECURE: 'false' }))
      .toMatchObject({ INBOUND_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'), IMAP_SECURE: false });
    expect(() => loadConfig({ INBOUND_SECRET_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/INBOUND_SECRET_KEY/);
  });

  it('needs PHONE_DIRECTORY_KEY with PHONE_DIRECTORY_URL, and never echoes either', () => {
    expect(() => loadConfig({ PHONE_DIRECTORY_URL: 'https://directory.example/api' })).toThrow(/PHONE_DIRECTORY_KEY: required/);
    expect(loadConfig({ PHONE_DIRECTORY_URL: 'https://directory.example/api', PHONE_DIRECTORY_KEY: 'sekret' }))
      .toMatchObject({ PHONE_DIRECTORY_URL: 'https://directory.example/api', PHONE_DIRECTORY_KEY: 'sekret' });
    expect(() => loadConfig({ PHONE_DIRECTORY_URL: 'not a url', PHONE_DIRECTORY_KEY: 'sekret' })).toThrow(/^(?!.*sekret).*PHONE_DIRECTORY_URL/);
  });

  it('reads the callback retry schedule and refuses anything else', () => {
    expect(loadConfig({ CALLBACK_RETRY_DELAYS_MS: '100, 200,300' }).CALLBACK_RETRY_DELAYS_MS).toEqual([100, 200, 300]);
    expect(loadConfig({ CALLBACK_RETRY_DELAYS_MS: 'none' }).CALLBACK_RETRY_DELAYS_MS).toEqual([]);
    expect(() => loadConfig({ CALLBACK_RETRY_DELAYS_MS: '10s' })).toThrow(/CALLBACK_RETRY_DELAYS_MS/);
    expect(() => loadConfig({ KAFKA_TOPIC_PREFIX: 'a b' })).toThrow(/KAFKA_TOPIC_PREFIX/);
  });

  it('coerces numbers from the environment', () => {
    const config = loadConfig({ PORT: '0', RATE_LIMIT_PER_SECOND: '5', DATA_DIR: '/tmp/x', DEMO_SEED: 'false' });
    expect(config).toMatchObject({ PORT: 0, RATE_LIMIT_PER_SECOND: 5, DATA_DIR: '/tmp/x', DEMO_SEED: false });
    expect(() => loadConfig({ DEMO_SEED: 'no' })).toThrow(/DEMO_SEED/);
    expect(loadConfig({ INTAKE_STALE_SECONDS: '5', SPOOL_DIR: '/tmp/s' })).toMatchObject({ INTAKE_STALE_SECONDS: 5, SPOOL_DIR: '/tmp/s' });
    expect(() => loadConfig({ INTAKE_STALE_SECONDS: '4' })).toThrow(/INTAKE_STALE_SECONDS/);
  });

  it('fails naming every bad variable', () => {
    expect(() => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud', RATE_LIMIT_BURST: '-1' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/PORT/);
      expect((error as Error).message).toMatch(/LOG_LEVEL/);
    }
  });
});
