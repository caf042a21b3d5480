import { createActiveAddressRegister } from './registers/addresses/active-register.ts';
import { createSecretBox, parseSecretKey } from './ingest/inbound/secrets.ts';
import { checkDropFolder } from './ingest/sftp/check-folder.ts';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './api/app.ts';
import { startAppendThread } from './platform/log/append-thread.ts';
import { EMBEDDED_APPEND_BYTES } from './ingest/jobs/chunk-publisher.ts';
import { peopleServiceFromConfig } from './api/people/from-config.ts';
import { cachedAccounts } from './api/cached-accounts.ts';
import { buildWebPage } from './api/web/assets.ts';
import { buildDocsPage } from './api/docs-page.ts';
import { renderCheckJob } from './api/check-job-json.ts';
import { createRegisters, type Registers } from './registers/companies/registers.ts';
import { removeStaleSpoolFiles } from './ingest/jobs/spool.ts';
import { sweepDraftFiles } from './ingest/index.ts';
import { createActiveListIndex, type ActiveListIndex } from './registers/lists/active-index.ts';
import { createPrivateListIndexes, type PrivateListIndexes } from './registers/lists/private-indexes.ts';
import { createMatcher } from './matcher/index.ts';
import type { JobDataKeys } from './platform/keys/data-keys.ts';
import type { Config } from './platform/config.ts';
import type { PriceTable } from './domain/pricing.ts';
import { createCertificateKeys, type CertificateKeys } from './platform/keys/certificate-keys.ts';
import { createCursorSeal } from './platform/keys/cursor-seal.ts';
import { errorFields, type Logger } from './platform/logger.ts';
import { createRetentionSchedule, type RetentionSchedule, type RetentionSweepName } from './platform/retention.ts';
import { eventLogWakeChannel, type Platform } from './platform/open-platform.ts';
import { createPipelineEvents, type PipelineEvents } from './pipeline/events.ts';
import { checkCallbackUrl, parseAllowHosts } from './platform/outbound-http/index.ts';
import { createProjectionService, createResultsWriter, type ResultsWriterDeps } from './projection/index.ts';
import { createMonitorRunResults } from './ingest/monitors/run-results.ts';
import { createMonitorService } from './ingest/monitors/service.ts';

/**
 * How each service process is started on a platform (open-platform.ts), shared by the embedded
 * default (services/main.ts: all of them in one process) and `npm run service -- <name>`
 * (services/run-service.ts: one per process). Each returns a handle whose `stop` ends it
 * gracefully: the API stops accepting and drains, consumers leave their group after the batch
 * in flight, callback waits are cut short (their state stays pending for the next start).
 */
export interface RunningService {
  name: string;
  stop(): Promise<void>;
  /** The retention sweeps this process runs on its one timer (docs/privacy-and-proof.md "Every store"). */
  retention?: readonly RetentionSweepName[];
}

export type ServiceName = 'api' | 'matcher' | 'projection' | 'sftp' | 'email' | 'connectors' | 'monitor';
export const SERVICE_NAMES: readonly ServiceName[] = ['api', 'matcher', 'projection', 'sftp', 'email', 'connectors', 'monitor'];

export interface ServiceContext {
  platform: Platform;
  config: Config;
  logger: Logger;
  /** Shared by the API and the matcher when both run in one process (one index per version). */
  activeIndex: ActiveListIndex;
  /** Organisations' private list indexes, shared likewise (bounded by PRIVATE_LIST_CACHE_ENTRIES). */
  privateLists: PrivateListIndexes;
  /** Company register and phone directory, shared like the list index. */
  registers: Registers;
  /** What tests and benches set beyond configuration. */
  overrides: ServiceOverrides;
}

export interface ServiceOverrides {
  /** Extra CA certificates the callback sender trusts (a test receiver's own certificate). */
  callbackCa?: string;
  /** Rows per checks.rows message (default the intake's 2,000). */
  jobChunkRows?: number;
  /** false: JSON/NDJSON bodies are spooled whole before publishing (benches compare both). */
  overlapIntake?: boolean;
  /** Row chunks per matcher batch, messages per projection batch. */
  matcherBatchChunks?: number;
  /** A matcher thread's share of checks.rows (embedded, EMBEDDED_MATCHER_THREADS; SubscribeOptions.share). */
  matcherShare?: { member: number; of: number };
  projectionBatchSize?: number;
  /** The inbound channels' clock (claims, delete_after); tests move it past delete_after. */
  inboundClock?: () => Date;
  /** The projection's clock (retention sweep, finished_at); tests move it past delete_after. */
  projectionClock?: () => Date;
  /** Extra CA certificates connectors trust (a test server's own certificate). */
  connectorCa?: string;
  /**
   * false: rows and results go on the log unsealed (no job data keys). Only for the bench that
   * measures what sealing costs; deliberately not configuration, so no deployment can turn it off.
   */
  sealChunks?: boolean;
}

/** The job data keys rows and results are sealed with (none when a bench turned sealing off). */
function dataKeysOf(context: ServiceContext): { dataKeys?: JobDataKeys } {
  return context.overrides.sealChunks === false ? {} : { dataKeys: context.platform.jobKeys };
}

/**
 * The pipeline events of every service of this context: one place, so no service can publish rows
 * unsealed by building its own without the job data keys (docs/privacy-and-proof.md "Forgetting").
 */
export function pipelineEventsOf(context: ServiceContext): PipelineEvents {
  const { platform } = context;
  return createPipelineEvents({ log: platform.log, registry: platform.registry, topicPrefix: platform.topicPrefix, ...dataKeysOf(context) });
}

export function createServiceContext(platform: Platform, config: Config, logger: Logger, overrides: ServiceOverrides = {}): ServiceContext {
  const addresses = createActiveAddressRegister({ store: platform.addresses, logger });
  return {
    platform, config, logger, overrides,
    activeIndex: createActiveListIndex({ listStore: platform.lists, logger, addresses }),
    privateLists: createPrivateListIndexes({ listStore: platform.lists, logger, maxEntries: config.PRIVATE_LIST_CACHE_ENTRIES, addresses }),
    registers: createRegisters(platform.registers, logger, config),
  };
}

/** The pay-per-list price table of the configuration (docs/decisions.md §8). */
export function pricesOf(config: Config): PriceTable {
  return {
    list_small_cents: config.PRICE_LIST_SMALL_CENTS,
    list_large_cents: config.PRICE_LIST_LARGE_CENTS,
    custom_cents_per_1000_rows: config.PRICE_CUSTOM_CENTS_PER_1000_ROWS,
  };
}

/** The certificate keys of a platform: CERTIFICATE_KEYS when configured, else the store's. */
export function certificateKeysOf(context: Pick<ServiceContext, 'platform' | 'config'>): CertificateKeys {
  return createCertificateKeys({
    keyring: context.platform.keys,
    ...(context.config.CERTIFICATE_KEYS ? { configured: context.config.CERTIFICATE_KEYS } : {}),
  });
}

export interface RunningApi extends RunningService {
  app: FastifyInstance;
  address: string;
}

/** Where the API spools job bodies: SPOOL_DIR, else `<DATA_DIR>/spool`. */
export function spoolDirOf(config: Config): string {
  return config.SPOOL_DIR ?? join(config.DATA_DIR, 'spool');
}

/** Where drafts keep their uploaded files: UPLOAD_DIR, else `<DATA_DIR>/uploads`. */
export function uploadDirOf(config: Config): string {
  return config.UPLOAD_DIR ?? join(config.DATA_DIR, 'uploads');
}

/**
 * The HTTP API: removes spool files a killed API process left behind (personal data), builds the
 * active list index, refreshes it on a timer, then listens.
 */
export async function startApi(context: ServiceContext): Promise<RunningApi> {
  const { platform, config, logger, activeIndex, registers } = context;
  const spoolDir = spoolDirOf(config);
  const draftDir = uploadDirOf(config);
  // The API's share of the retention sweep (docs/privacy-and-proof.md "Every store"): spool files
  // of killed processes, draft files of jobs that are no longer drafts, and remembered responses
  // past their 24 h (they may hold a draft's preview people), whether or not a request with a key
  // comes along. The first pass runs before the API listens.
  const retention = retentionScheduleOf(context);
  registerSpoolSweep(retention, context);
  retention.register('draft-files', async () => {
    const gone = await sweepDraftFiles(draftDir, platform.jobs);
    if (gone > 0) logger.info({ removed: gone }, 'draft.orphan_files_removed');
  });
  retention.register('idempotency-expired', async () => {
    const purged = await platform.idempotency.purgeExpired(new Date());
    if (purged > 0) logger.info({ purged }, 'idempotency.purged');
  });
  await retention.runOnce();
  await activeIndex.refresh();
  await registers.refresh();
  const events = pipelineEventsOf(context);
  // Embedded: the usage events' commits wait in a thread of their own, not on the API's (docs/privacy-and-proof.md "When a check's usage is written").
  const usageAppender = platform.eventLogPath === null ? null : await startAppendThread({
    logPath: platform.eventLogPath, wakeChannel: eventLogWakeChannel(platform.eventLogPath), fallback: platform.log, logger,
  });
  // One cache for the authenticator and the people service, so a key revoked in the portal is refused at once.
  const accounts = cachedAccounts(platform.accounts, { maxStaleMs: config.AUTH_CACHE_MS, now: () => Date.now() });
  const app = buildApp({
    config,
    logger,
    accounts,
    lists: platform.lists,
    activeIndex,
    privateLists: context.privateLists,
    idempotency: platform.idempotency,
    ...(platform.kind === 'distributed'
      ? { rateSharing: { store: platform.rateUsage, process: `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`, intervalMs: config.RATE_LIMIT_SYNC_MS } }
      : {}),
    events,
    ...(usageAppender ? { usageEvents: createPipelineEvents({ log: usageAppender, registry: platform.registry, topicPrefix: platform.topicPrefix }) } : {}),
    companyRegister: registers.companies,
    phoneDirectory: registers.directory,
    phoneDirectoryPin: registers.phoneDirectoryPin,
    phoneRegister: registers.phones,
    certificates: certificateKeysOf(context),
    webPage: buildWebPage(),
    people: peopleServiceFromConfig({ ...platform, accounts }, config, logger),
    inbound: platform.inbound,
    connectors: platform.connectors,
    savedMappings: platform.savedMappings,
    // Adding folders and connectors in the page needs the key that seals their credentials.
    ...(config.INBOUND_SECRET_KEY ? {
      channelAdding: {
        secrets: createSecretBox(parseSecretKey(config.INBOUND_SECRET_KEY)), checkDropFolder,
        allowHosts: parseAllowHosts(config.CALLBACK_ALLOW_HOSTS), minIntervalSeconds: config.CONNECTOR_MIN_INTERVAL_SECONDS,
      },
    } : {}),
    docsPage: buildDocsPage(),
    checkJobs: {
      jobs: platform.jobs,
      events,
      callbackAllowHosts: parseAllowHosts(config.CALLBACK_ALLOW_HOSTS),
      spoolDir,
      draftDir,
      prices: pricesOf(config),
      ...(config.PAYMENT_WEBHOOK_SECRET ? { paymentWebhookSecret: config.PAYMENT_WEBHOOK_SECRET } : {}),
      cursors: createCursorSeal({ keyring: platform.keys, ...(config.CURSOR_SECRET ? { configured: config.CURSOR_SECRET } : {}) }),
      ...(context.overrides.jobChunkRows ? { chunkRows: context.overrides.jobChunkRows } : {}),
      // The embedded log has no batch limit: fewer, larger appends, so fewer fsyncs on this thread.
      ...(platform.kind === 'embedded' ? { maxAppendBytes: EMBEDDED_APPEND_BYTES } : {}),
      ...(context.overrides.overlapIntake === false ? { overlapIntake: false } : {}),
      monitors: platform.monitors,
    },
  });
  const address = await app.listen({ port: config.PORT, host: config.HOST }).catch(async (error: unknown) => {
    await usageAppender?.close();
    throw error;
  });
  // Refreshing picks up a version activated with the admin tool while the server runs.
  const refreshTimer = setInterval(() => {
    activeIndex.refresh().catch((error: unknown) => logger.error(errorFields(error), 'list.refresh_failed'));
    registers.refresh().catch((error: unknown) => logger.error(errorFields(error), 'register.refresh_failed'));
  }, config.LIST_REFRESH_SECONDS * 1000);
  refreshTimer.unref();
  // Drafts purged at their delete_after (by the projection) lose their file here.
  retention.start();
  return {
    name: 'api',
    app,
    address,
    retention: retention.names(),
    async stop() {
      clearInterval(refreshTimer);
      await retention.stop();
      // The app's close writes the usage events still waiting (through the appender), then the thread ends.
      await app.close();
      await usageAppender?.close();
    },
  };
}

/**
 * A matcher. On the embedded platform it stores the results it makes in the job store itself,
 * through the projection's results side, instead of publishing them on checks.results for the
 * projection to read back: one database holds both, so the round trip through the log was work
 * only (docs/architecture.md "Matcher"). It commits its rows' offsets after that write.
 */
export async function startMatcher(context: ServiceContext): Promise<RunningService> {
  const { platform, logger, activeIndex, registers } = context;
  const results = platform.kind === 'embedded'
    ? createResultsWriter({ ...projectionDepsOf(context), rowWriters: context.overrides.matcherShare?.of ?? 1 }, pipelineEventsOf(context))
    : null;
  await results?.start();
  const matcher = createMatcher({
    log: platform.log, registry: platform.registry, ...dataKeysOf(context), activeIndex, privateLists: context.privateLists, logger, topicPrefix: platform.topicPrefix,
    registers: { companies: registers.companies, phones: registers.phones, directory: registers.directory },
    ...(context.overrides.matcherBatchChunks ? { maxBatchChunks: context.overrides.matcherBatchChunks } : {}),
    ...(results ? { results } : {}),
    ...(context.overrides.matcherShare ? { share: context.overrides.matcherShare } : {}),
  });
  try {
    await matcher.start();
  } catch (error) {
    await results?.stop();
    throw error;
  }
  // Embedded, each matcher thread builds its own index: the active version's is built now, in the
  // background, so a job's first chunk on each thread does not wait for it (a chunk pinned to it
  // shares the build in flight).
  if (results) activeIndex.refresh().catch((error: unknown) => logger.warn(errorFields(error), 'matcher.index_warm_up_failed'));
  return {
    name: 'matcher',
    async stop() {
      await matcher.stop();
      await results?.stop();
    },
  };
}

/** What the projection's job tracker needs, for the projection service and the embedded matcher's results side. */
function projectionDepsOf(context: ServiceContext): ResultsWriterDeps {
  const { platform, config, logger } = context;
  const certificates = certificateKeysOf(context);
  return {
    jobs: platform.jobs,
    renderJob: renderCheckJob,
    logger,
    callbacks: {
      timeoutMs: config.CALLBACK_TIMEOUT_MS,
      retryDelaysMs: config.CALLBACK_RETRY_DELAYS_MS,
      allowHosts: parseAllowHosts(config.CALLBACK_ALLOW_HOSTS),
      ...(context.overrides.callbackCa ? { ca: context.overrides.callbackCa } : {}),
    },
    countIntervalMs: config.PROJECTION_COUNT_INTERVAL_MS,
    intakeStaleMs: config.INTAKE_STALE_SECONDS * 1000,
    signCertificate: (claims) => certificates.sign(claims),
    usage: platform.usage,
    monitorRuns: createMonitorRunResults({ monitors: platform.monitors, logger }),
    ...(context.overrides.projectionClock ? { clock: context.overrides.projectionClock } : {}),
  };
}

export async function startProjection(context: ServiceContext): Promise<RunningService> {
  const { platform } = context;
  const service = createProjectionService({
    log: platform.log,
    registry: platform.registry,
    ...dataKeysOf(context),
    topicPrefix: platform.topicPrefix,
    ...projectionDepsOf(context),
    ...(context.overrides.projectionBatchSize ? { maxBatchSize: context.overrides.projectionBatchSize } : {}),
  });
  await service.start();
  // Jobs past delete_after are purged here: the projection owns the job records.
  const retention = startRetention(context, { 'job-purge': () => service.projection.sweepRetention() }, () => service.stop());
  return { name: 'projection', ...retention };
}

/** This process's one retention timer (RETENTION_SWEEP_SECONDS; services/platform/retention.ts). */
function retentionScheduleOf(context: ServiceContext): RetentionSchedule {
  return createRetentionSchedule({ intervalMs: context.config.RETENTION_SWEEP_SECONDS * 1000, logger: context.logger });
}

/**
 * A started service's own retention `sweeps` on this process's timer, started now; stopping
 * waits for the pass in flight before `stopService`, so no sweep runs on a stopped service.
 */
function startRetention(
  context: ServiceContext,
  sweeps: Partial<Record<RetentionSweepName, () => Promise<unknown>>>,
  stopService: () => Promise<void>,
): Required<Pick<RunningService, 'retention' | 'stop'>> {
  const retention = retentionScheduleOf(context);
  for (const [name, sweep] of Object.entries(sweeps)) {
    retention.register(name as RetentionSweepName, async () => {
      await sweep();
    });
  }
  retention.start();
  return {
    retention: retention.names(),
    async stop() {
      await retention.stop();
      await stopService();
    },
  };
}

/**
 * Spool files a killed process left behind (personal data; their jobs are failed by the
 * projection's stalled-intake sweep): removed by every process that spools, at its start and on
 * every pass after, so a process killed while another keeps running loses its files too.
 */
function registerSpoolSweep(retention: RetentionSchedule, context: ServiceContext): void {
  const { config, logger } = context;
  retention.register('spool-stale', async () => {
    const removed = await removeStaleSpoolFiles(spoolDirOf(config), { olderThanMs: config.INTAKE_STALE_SECONDS * 1000 });
    if (removed > 0) logger.warn({ removed }, 'spool.orphans_removed');
  });
}

export function startService(name: ServiceName, context: ServiceContext): Promise<RunningService> {
  switch (name) {
    case 'api':
      return startApi(context);
    case 'matcher':
      return startMatcher(context);
    case 'projection':
      return startProjection(context);
    case 'sftp':
    case 'email':
    case 'connectors':
      return startInbound(name, context);
    case 'monitor':
      return startMonitorService(context);
  }
}

/**
 * A service of the embedded default and where it runs: the consumers in worker threads (the
 * second core, each with its own connection to the database file), the rest on the main thread.
 * Each matcher thread takes its share of checks.rows' partitions (SubscribeOptions.share).
 */
export type PlannedService =
  | { name: 'matcher'; thread: 'worker'; share: { member: number; of: number } }
  | { name: 'projection'; thread: 'worker' }
  | { name: Exclude<ServiceName, 'matcher' | 'projection'>; thread: 'main' };

/**
 * What `npm start` runs, in start order (they stop in reverse). Consumers first, so jobs left from
 * the last run continue while the API starts; the API builds the index before listening, so the
 * first live check does not meet list_not_ready. EMBEDDED_MATCHER_THREADS matcher threads, each
 * storing its own results (startMatcher), so after a job's rows are in, matching and storing use
 * every core (docs/architecture.md "Two ways to run"). The monitor service on the main thread: it
 * mostly waits, the matching and projecting of its jobs run in the workers (docs/monitors.md). The
 * inbound channels when configured: SFTP drop folders and connectors need the key that seals their
 * credentials, email needs the mailbox (docs/inbound.md, docs/connectors.md).
 */
export function embeddedServices(config: Pick<Config, 'INBOUND_SECRET_KEY' | 'IMAP_HOST' | 'EMBEDDED_MATCHER_THREADS'>): PlannedService[] {
  return [
    { name: 'projection', thread: 'worker' },
    ...embeddedMatchers(config.EMBEDDED_MATCHER_THREADS),
    { name: 'api', thread: 'main' },
    { name: 'monitor', thread: 'main' },
    ...(config.INBOUND_SECRET_KEY ? [{ name: 'sftp', thread: 'main' } as const, { name: 'connectors', thread: 'main' } as const] : []),
    ...(config.IMAP_HOST ? [{ name: 'email', thread: 'main' } as const] : []),
  ];
}

/** The embedded default's matcher threads, each with its share of checks.rows. */
export function embeddedMatchers(threads: number): PlannedService[] {
  return Array.from({ length: threads }, (_, member) => ({ name: 'matcher', thread: 'worker', share: { member, of: threads } }) as const);
}

/** Starts a planned service in its thread. */
export function startPlanned(planned: PlannedService, context: ServiceContext): Promise<RunningService> {
  if (planned.name === 'matcher') return startServiceInWorker('matcher', context.config, { ...context.overrides, matcherShare: planned.share });
  if (planned.thread === 'worker') return startServiceInWorker(planned.name, context.config, context.overrides);
  return startService(planned.name, context);
}

/**
 * The monitor service (docs/monitors.md): keeps every monitor checked against the active list
 * version, starting `source: monitor` jobs through the common intake. Run one per deployment.
 */
export async function startMonitorService(context: ServiceContext): Promise<RunningService & { tick(): Promise<void> }> {
  const { platform, config, logger } = context;
  const allowHosts = parseAllowHosts(config.CALLBACK_ALLOW_HOSTS);
  const service = createMonitorService({
    monitors: platform.monitors,
    jobs: platform.jobs,
    lists: platform.lists,
    addresses: platform.addresses,
    accounts: platform.accounts,
    events: pipelineEventsOf(context),
    logger,
    checkCallbackUrl: (url) => checkCallbackUrl(url, { allowHosts }),
    spoolDir: spoolDirOf(config),
    intervalMs: config.MONITOR_INTERVAL_MS,
    ...(context.overrides.jobChunkRows ? { chunkRows: context.overrides.jobChunkRows } : {}),
  });
  await service.start();
  // Monitors past their delete_after are deleted here: the monitor service owns them.
  const retention = startRetention(context, { 'monitor-expired': () => service.sweepExpired() }, () => service.stop());
  return { name: 'monitor', ...retention, tick: () => service.tick() };
}

/**
 * An inbound channel (docs/decisions.md §15, §16): SFTP drop folders, the ingest mailbox or the
 * connectors' scheduled pulls, making jobs through the same ingest as the API's uploads
 * (services/ingest/inbound, services/ingest/connector).
 */
export async function startInbound(name: 'sftp' | 'email' | 'connectors', context: ServiceContext): Promise<RunningService> {
  const { platform, config, logger } = context;
  // Loaded on demand: the SSH, IMAP and SMTP libraries cost every other process start-up time.
  const { createIngestFileJobs } = await import('./ingest/inbound/ingest-file-jobs.ts');
  const { startConnectorIngest, startEmailIngest, startSftpIngest } = await import('./ingest/inbound/start.ts');
  const spoolDir = spoolDirOf(config);
  // A killed inbound process leaves spool files too; same rule as the API's, first pass before anything is read. The channel adds the deletion of its folders'
  // files and messages past delete_after (docs/privacy-and-proof.md "Every store").
  const retention = retentionScheduleOf(context);
  registerSpoolSweep(retention, context);
  await retention.runOnce();
  const fileJobs = createIngestFileJobs({
    jobs: platform.jobs, lists: platform.lists, addresses: platform.addresses, logger, savedMappings: platform.savedMappings,
    events: pipelineEventsOf(context),
    spoolDir, draftDir: uploadDirOf(config),
    ...(context.overrides.jobChunkRows ? { chunkRows: context.overrides.jobChunkRows } : {}),
  });
  const deps = {
    platform, config, logger, fileJobs, spoolDir, retention,
    ...(context.overrides.inboundClock ? { now: context.overrides.inboundClock } : {}),
    ...(context.overrides.connectorCa ? { connectorCa: context.overrides.connectorCa } : {}),
  };
  const channel = name === 'connectors' ? await startConnectorIngest(deps) : name === 'sftp' ? await startSftpIngest(deps) : await startEmailIngest(deps);
  retention.start();
  return {
    name: channel.name,
    retention: retention.names(),
    async stop() {
      await retention.stop();
      await channel.stop();
    },
  };
}

/**
 * A consumer service (matcher or projection) in a worker thread of this process, on its own
 * connection to the embedded database (service-worker.ts): the embedded default runs matching and
 * projecting beside the API on the machine's second core. Resolves once the service runs.
 */
export function startServiceInWorker(name: 'matcher' | 'projection', config: Config, overrides: ServiceOverrides = {}): Promise<RunningService> {
  // Named, so its thread is `matcher` or `projection` in /proc and in per-thread CPU profiles
  // (test/bench/job-driver.ts measures each thread's CPU by that name).
  const worker = new Worker(new URL('./service-worker.ts', import.meta.url), { name, workerData: { name, config, overrides } });
  let exited = false;
  let stopping = false;
  let started = false;
  const gone = new Promise<void>((resolve) => worker.once('exit', (code) => {
    exited = true;
    resolve();
    // A consumer that died leaves jobs that never finish: end the process loudly (its state is
    // durable; the next start resumes) rather than serve without it.
    if (!stopping) {
      process.stderr.write(`the ${name} worker exited unexpectedly (code ${code}); stopping\n`);
      process.exit(1);
    }
  }));
  return new Promise((resolve, reject) => {
    const onStart = (message: { type: string; error?: string }) => {
      if (message.type === 'started') {
        started = true;
        resolve({
          name,
          async stop() {
            if (exited) return;
            stopping = true;
            const stopped = new Promise<void>((done, fail) => worker.on('message', (m: { type: string; error?: string }) => {
              if (m.type === 'stopped') done();
              if (m.type === 'failed') fail(new Error(`${name} worker: ${m.error}`));
            }));
            worker.postMessage('stop');
            await Promise.race([stopped, gone]);
            await gone;
          },
        });
      } else if (message.type === 'failed') {
        stopping = true;
        reject(new Error(`${name} worker: ${message.error}`));
      }
    };
    worker.once('message', onStart);
    worker.once('error', (error) => {
      // Before it started, the start fails; afterwards the exit handler above ends the process.
      if (!started) {
        stopping = true;
        reject(error);
      }
    });
  });
}

/**
 * SIGTERM/SIGINT: stop every service (in reverse start order), then `release` (close the
 * platform). A second signal exits at once. Installed before the services start: a signal while
 * they start (the banner is already out, a supervisor may stop the process at any moment) waits
 * for the start to end, then stops what started, instead of the signal's default that kills the
 * process with nothing closed.
 */
export interface Shutdown {
  /** The start ended: stop these on a signal, or now when one came during the start. */
  started(services: RunningService[], release: () => Promise<void>): void;
  /** The start failed (its services are already stopped): a signal that came meanwhile has nothing left to stop. */
  failed(): void;
}

export function installShutdown(logger: Logger): Shutdown {
  let closing = false;
  let requested: string | null = null;
  let stopAll: (() => Promise<void>) | null = null;
  const stop = (signal: string, run: () => Promise<void>) => {
    logger.info({ signal }, 'process.stopping');
    run()
      .then(() => {
        logger.info({}, 'process.stopped');
        process.exitCode = 0;
      })
      .catch((error: unknown) => {
        logger.error(errorFields(error), 'process.shutdown_failed');
        process.exit(1);
      });
  };
  const onSignal = (signal: string) => {
    if (closing) {
      logger.warn({ signal }, 'process.forced_exit');
      process.exit(1);
    }
    closing = true;
    if (stopAll) stop(signal, stopAll);
    else requested = signal; // still starting: stopped as soon as the start ends
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  return {
    started(services, release) {
      stopAll = async () => {
        for (const service of [...services].reverse()) await service.stop();
        await release();
      };
      if (requested) stop(requested, stopAll);
    },
    failed() {
      // The process ends with the start's exit code once nothing is left running.
      process.removeAllListeners('SIGTERM');
      process.removeAllListeners('SIGINT');
    },
  };
}

export function errorName(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
