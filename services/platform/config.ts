import { z } from 'zod';
import { PermanentError } from './errors.ts';

/**
 * The process configuration, read from the environment once at boot (style §7). Every variable is
 * declared here with its default; `Config` is inferred from the schema so nothing restates it.
 * To add a variable: add one line to `configSchema` (empty strings count as unset).
 */
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

export const configSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Where the embedded database (robinson.sqlite) and other local files live. */
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `pretty`: readable lines; `json`: one JSON object per line. Unset: pretty on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  /** docs/decisions.md §11: POST /v2/checks, per key. */
  RATE_LIMIT_PER_SECOND: positiveInt.default(20),
  RATE_LIMIT_BURST: positiveInt.default(40),
  /**
   * How often an API process of the distributed deployment exchanges its rate-limit counts with
   * the others (ClickHouse), so a key's rate holds across processes; a request let through by one
   * reaches the others' buckets within about this long.
   */
  RATE_LIMIT_SYNC_MS: positiveInt.min(50).max(10_000).default(250),
  /**
   * Per-organisation quotas of the work the API does (docs/api-decisions.md "Quotas"), each answered
   * 429 `rate_limited` with Retry-After when reached: drafts not yet started or deleted (per mode);
   * rows waiting to be checked (awaiting payment, queued or running; live and test counted apart);
   * uploads and draft file reads in progress at once (per API process); previews (an upload or
   * POST /v2/check-jobs/{id}/preview) per minute, bursts to QUOTA_PREVIEW_BURST; monitor uploads
   * (a monitor created or its contacts replaced) per hour, bursts to QUOTA_MONITOR_UPLOAD_BURST.
   */
  QUOTA_OPEN_DRAFTS: positiveInt.default(50),
  QUOTA_QUEUED_ROWS_LIVE: positiveInt.default(5_000_000),
  QUOTA_QUEUED_ROWS_TEST: positiveInt.default(1_000_000),
  QUOTA_PARALLEL_UPLOADS: positiveInt.max(64).default(2),
  QUOTA_PREVIEWS_PER_MINUTE: positiveInt.default(30),
  QUOTA_PREVIEW_BURST: positiveInt.default(10),
  QUOTA_MONITOR_UPLOADS_PER_HOUR: positiveInt.default(60),
  QUOTA_MONITOR_UPLOAD_BURST: positiveInt.default(10),
  /**
   * How long an API process may keep a key's and its organisation's record (docs/api-decisions.md
   * "Authentication cache"): a key revoked or an organisation suspended by the admin tool is
   * refused by every API process at most this long after; 0 reads them on every request.
   */
  AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  /**
   * HTTP server timeouts (docs/api-decisions.md "Server timeouts and errors before routing"): the
   * whole request, head and body, must arrive within HTTP_REQUEST_TIMEOUT_MS (512 MB at ≥ 7 Mbit/s);
   * the head within HTTP_HEADERS_TIMEOUT_MS; a connection silent for HTTP_IDLE_TIMEOUT_MS is closed;
   * an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS.
   */
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.min(1000).default(600_000),
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.min(1000).default(20_000),
  HTTP_IDLE_TIMEOUT_MS: positiveInt.min(1000).default(60_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt.min(1000).default(65_000),
  /** How often a running process looks for a newly activated list version (admin CLI). */
  LIST_REFRESH_SECONDS: positiveInt.default(30),
  /**
   * Private lists (docs/decisions.md §16): entries of organisations' private list indexes one process
   * keeps in memory (least recently used versions go first; ~70 bytes per entry, docs/matching.md).
   */
  PRIVATE_LIST_CACHE_ENTRIES: positiveInt.default(1_000_000),
  /** `npm start` seeds a demo organisation and list into an empty database; `false` turns it off. */
  DEMO_SEED: z.enum(['true', 'false']).transform((v) => v === 'true').default(true),
  // Distributed deployment (docker-compose.yml). Each unset: the embedded adapter is used.
  /** Kafka brokers, comma-separated host:port. */
  KAFKA_BROKERS: z.string().min(1).optional(),
  /** ClickHouse HTTP URL: jobs, results, organisations and list versions live there. */
  CLICKHOUSE_URL: z.url().optional(),
  /** ClickHouse database, a plain identifier; `robinson` when unset. */
  CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  CLICKHOUSE_USER: z.string().min(1).optional(),
  CLICKHOUSE_PASSWORD: z.string().optional(),
  /** Confluent-compatible schema registry; unset: the static registry of schemas/ (pinned ids). */
  SCHEMA_REGISTRY_URL: z.url().optional(),
  // Completion callbacks (docs/decisions.md §9, docs/callbacks.md).
  /** Time one callback attempt has for an answer. */
  CALLBACK_TIMEOUT_MS: positiveInt.default(5000),
  /** Waits before each retry: up to 10 comma-separated whole ms, or `none` for no retries. */
  CALLBACK_RETRY_DELAYS_MS: z.string()
    .regex(/^(none|\d{1,9}( *, *\d{1,9}){0,9})$/, 'comma-separated whole milliseconds, or none')
    .transform((text) => (text === 'none' ? [] : text.split(',').map((part) => Number(part.trim()))))
    .default([10_000, 60_000, 300_000]),
  /** Hosts exempt from the callback address check (test receivers on loopback), comma-separated. */
  CALLBACK_ALLOW_HOSTS: z.string().default(''),
  // The asynchronous pipeline (docs/architecture.md "Matcher", "Projection").
  /** A consumer that sends no heartbeat this long loses its partitions to the other members. */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(30_000),
  /** Prefix of every topic and consumer group name, so deployments (and tests) can share a broker. */
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[A-Za-z0-9._-]{0,100}$/).default(''),
  /** Least time between two exact counts of one running job in the projection. */
  PROJECTION_COUNT_INTERVAL_MS: positiveInt.default(1000),
  /**
   * Matcher worker threads of the embedded default (`npm start`), each building its own list
   * index; at most checks.rows' 12 partitions (docs/architecture.md "Two ways to run").
   */
  EMBEDDED_MATCHER_THREADS: z.coerce.number().int().min(1).max(12).default(2),
  /** How often the projection sweeps jobs past delete_after; 0 turns the sweep off. */
  RETENTION_SWEEP_SECONDS: z.coerce.number().int().min(0).default(60),
  /**
   * A job whose intake (the API publishing its rows) gave no sign of life this long is failed
   * with `intake_interrupted` by the projection; API processes remove spool files this old at
   * start. The intake signs every second while publishing, so at least 5.
   */
  INTAKE_STALE_SECONDS: z.coerce.number().int().min(5).default(600),
  /**
   * How often the monitor service walks the monitors (docs/monitors.md): a new list version or new
   * contacts are picked up within this time; a finished re-check is promoted as well.
   */
  MONITOR_INTERVAL_MS: positiveInt.default(5000),
  // Phone checks (docs/companies.md). Unset URL: the directory file imported with the admin tool.
  /** A directory provider's API base URL; when set, phone checks ask it instead of the imported file. */
  PHONE_DIRECTORY_URL: z.url().optional(),
  /** The provider's API key (sent as a bearer token); required with PHONE_DIRECTORY_URL. */
  PHONE_DIRECTORY_KEY: z.string().min(1).optional(),
  /** Time one directory request has for an answer. */
  PHONE_DIRECTORY_TIMEOUT_MS: positiveInt.default(5000),
  /** Where the API spools job bodies while reading them; `<DATA_DIR>/spool` when unset. */
  SPOOL_DIR: z.string().min(1).optional(),
  // Pay-per-list prices in øre (DKK cents), docs/decisions.md §8 (services/domain/pricing.ts).
  PRICE_LIST_SMALL_CENTS: z.coerce.number().int().min(0).default(49_500),
  PRICE_LIST_LARGE_CENTS: z.coerce.number().int().min(0).default(249_500),
  /** `custom` (over 100,000 rows): the large price plus this per started 1,000 rows beyond. */
  PRICE_CUSTOM_CENTS_PER_1000_ROWS: z.coerce.number().int().min(0).default(2_000),
  /** HMAC secret of the payment provider's webhook; unset: POST /v2/payments/webhook is not served. */
  PAYMENT_WEBHOOK_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /**
   * Where drafts keep their uploaded file until started or deleted (docs/decisions.md §14); `<DATA_DIR>/uploads`
   * when unset. API processes serving the same jobs must share it.
   */
  UPLOAD_DIR: z.string().min(1).optional(),
  // Keys (docs/privacy-and-proof.md).
  /**
   * Job certificate keys, comma-separated base64url DER Ed25519: the first (PKCS#8 private) signs,
   * the rest (private or SPKI public) only verify. Unset: keys live in the store (KeyRing).
   */
  CERTIFICATE_KEYS: z.string().regex(/^[A-Za-z0-9_-]+( *, *[A-Za-z0-9_-]+)*$/, 'comma-separated base64url DER keys').optional(),
  /**
   * Master keys that wrap the per-job data keys (crypto-shredding), comma-separated base64 of 32
   * bytes each: the first wraps new keys, every one unwraps (rotation: put the new key first, keep
   * the old one until the longest retention has passed). Unset: master keys live in the store.
   */
  DATA_MASTER_KEYS: z.string().regex(/^[A-Za-z0-9+/]{43}=( *, *[A-Za-z0-9+/]{43}=)*$/, 'comma-separated 32-byte keys, base64 (openssl rand -base64 32)').optional(),
  /** HMAC secret of results cursors, shared by every API process; unset: a key of the store. */
  CURSOR_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  // Inbound channels: SFTP drop folders and emailed spreadsheets (docs/decisions.md §15, docs/inbound.md).
  /** 32 random bytes, base64: seals the stored SFTP credentials (AES-256-GCM). Needed by sftp and by `drop-folders add`. */
  INBOUND_SECRET_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, '32 bytes, base64 (openssl rand -base64 32)').optional(),
  /** How often every drop folder is listed. */
  SFTP_POLL_MS: positiveInt.default(5000),
  /** A dropped file is claimed once its size and mtime have not changed for this long. */
  SFTP_STABLE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Drop folders visited at once. */
  SFTP_CONCURRENCY: positiveInt.max(64).default(4),
  /** Longest visit of one drop folder (connection included); a slower server counts as failing. */
  SFTP_VISIT_TIMEOUT_MS: positiveInt.default(120_000),
  /** The ingest mailbox (one per deployment); the email service runs when IMAP_HOST is set. */
  IMAP_HOST: z.string().min(1).optional(),
  IMAP_PORT: port.default(993),
  /** true: TLS from the first byte (port 993); false: plain, for a loopback test server only. */
  IMAP_SECURE: z.enum(['true', 'false']).transform((v) => v === 'true').default(true),
  IMAP_USER: z.string().min(1).optional(),
  IMAP_PASSWORD: z.string().min(1).optional(),
  /** The SMTP server replies are sent through. */
  SMTP_HOST: z.string().min(1).optional(),
  SMTP_PORT: port.default(587),
  SMTP_SECURE: z.enum(['true', 'false']).transform((v) => v === 'true').default(false),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().min(1).optional(),
  /**
   * The portal's public address (docs/people.md "Invitations"): invitation links point at
   * `<PUBLIC_URL>/#invite=…`. Unset: http://localhost:<PORT>, right for a machine of one's own only.
   */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The From address of replies; IMAP_USER when unset. */
  MAIL_FROM: z.string().regex(/^[^\s@<>]+@[^\s@<>]+$/, 'an email address').optional(),
  /** How often the mailbox is read besides IMAP IDLE notices (jobs finishing need no notice). */
  EMAIL_POLL_MS: positiveInt.default(5000),
  /** Days a quarantined message (unknown sender) is kept before it is expunged. */
  EMAIL_QUARANTINE_DAYS: z.coerce.number().int().min(1).max(90).default(30),
  // Connectors: scheduled HTTPS pulls (docs/decisions.md §16, docs/connectors.md); auth headers sealed with INBOUND_SECRET_KEY.
  /** How often the connector service looks for connectors whose schedule slot is due. */
  CONNECTOR_TICK_MS: positiveInt.default(5000),
  /** Pulls running at once. */
  CONNECTOR_CONCURRENCY: positiveInt.max(64).default(4),
  /** Longest pull (connection, TLS and the whole answer); slower counts as failed (`timeout`). */
  CONNECTOR_TIMEOUT_MS: positiveInt.default(120_000),
  /** Largest answer accepted, in MB (the upload limit of docs/decisions.md §14); larger fails with `too_large`. */
  CONNECTOR_MAX_MB: positiveInt.max(1024).default(100),
  /** Shortest schedule interval `connectors add` accepts (tests use 1). */
  CONNECTOR_MIN_INTERVAL_SECONDS: positiveInt.default(300),
}).refine((c) => !c.PHONE_DIRECTORY_URL || c.PHONE_DIRECTORY_KEY, {
  path: ['PHONE_DIRECTORY_KEY'], message: 'required when PHONE_DIRECTORY_URL is set',
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Validates the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.keys(configSchema.shape);
  const input: Record<string, string> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') input[name] = value.trim();
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    // Values are not echoed: a later variable may hold a secret.
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}
