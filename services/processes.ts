import { createActiveAddressRegister } from './addresses/active-register.ts';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './api/app.ts';
import { buildWebPage } from './web/assets.ts';
import { renderCheckJob } from './api/check-job-json.ts';
import { createRegisters, type Registers } from './companies/registers.ts';
import { removeStaleSpoolFiles } from './ingest/jobs/spool.ts';
import { sweepDraftFiles, useSpoolForXlsxTempFiles } from './ingest/index.ts';
import { createActiveListIndex, type ActiveListIndex } from './lists/active-index.ts';
import { createPrivateListIndexes, type PrivateListIndexes } from './lists/private-indexes.ts';
import { createMatcher } from './matcher/index.ts';
import type { JobDataKeys } from './platform/keys/data-keys.ts';
import type { Config } from './platform/config.ts';
import type { PriceTable } from './domain/pricing.ts';
import { createCertificateKeys, type CertificateKeys } from './platform/keys/certificate-keys.ts';
import { createCursorSeal } from './platform/keys/cursor-seal.ts';
import { errorFields, type Logger } from './platform/logger.ts';
import type { Platform } from './platform/open-platform.ts';
import { createPipelineEvents } from './pipeline/events.ts';
import { checkCallbackUrl, parseAllowHosts } from './projection/callbacks/index.ts';
import { createProjectionService } from './projection/index.ts';
import { createMonitorRunResults } from './monitors/run-results.ts';
import { createMonitorService } from './monitors/service.ts';

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

export function createServiceContext(platform: Platform, config: Config, logger: Logger, overrides: ServiceOverrides = {}): ServiceContext {
  const addresses = createActiveAddressRegister({ store: platform.addresses, logger });
  return {
    platform, config, logger, overrides,
    activeIndex: createActiveListIndex({ listStore: platform.lists, logger, addresses }),
    privateLists: createPrivateListIndexes({ listStore: platform.lists, logger, maxEntries: config.PRIVATE_LIST_CACHE_ENTRIES, addresses }),
    registers: createRegisters(platform.registers, logger, config),
  };
}

/** The pay-per-list price table of the configuration (DECISIONS §8). */
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
  // Their jobs are failed by the projection's stalled-intake sweep; the people must go now.
  const removed = await removeStaleSpoolFiles(spoolDir, { olderThanMs: config.INTAKE_STALE_SECONDS * 1000 });
  if (removed > 0) logger.warn({ removed }, 'spool.orphans_removed');
  useSpoolForXlsxTempFiles(spoolDir);
  const draftDir = uploadDirOf(config);
  const sweepDrafts = async () => {
    const gone = await sweepDraftFiles(draftDir, platform.jobs);
    if (gone > 0) logger.info({ removed: gone }, 'draft.orphan_files_removed');
  };
  await sweepDrafts();
  await activeIndex.refresh();
  await registers.refresh();
  const events = createPipelineEvents({ log: platform.log, registry: platform.registry, topicPrefix: platform.topicPrefix, ...dataKeysOf(context) });
  const app = buildApp({
    config,
    logger,
    accounts: platform.accounts,
    lists: platform.lists,
    activeIndex,
    privateLists: context.privateLists,
    idempotency: platform.idempotency,
    ...(platform.kind === 'distributed'
      ? { rateSharing: { store: platform.rateUsage, process: `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`, intervalMs: config.RATE_LIMIT_SYNC_MS } }
      : {}),
    events,
    companyRegister: registers.companies,
    phoneDirectory: registers.directory,
    phoneDirectoryPin: registers.phoneDirectoryPin,
    phoneRegister: registers.phones,
    certificates: certificateKeysOf(context),
    webPage: buildWebPage(),
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
      ...(context.overrides.overlapIntake === false ? { overlapIntake: false } : {}),
      monitors: platform.monitors,
    },
  });
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  // Refreshing picks up a version activated with the admin tool while the server runs.
  const refreshTimer = setInterval(() => {
    activeIndex.refresh().catch((error: unknown) => logger.error(errorFields(error), 'list.refresh_failed'));
    registers.refresh().catch((error: unknown) => logger.error(errorFields(error), 'register.refresh_failed'));
  }, config.LIST_REFRESH_SECONDS * 1000);
  refreshTimer.unref();
  // Drafts purged at their delete_after (by the projection) lose their file here.
  const draftSweepTimer = config.RETENTION_SWEEP_SECONDS > 0
    ? setInterval(() => {
      sweepDrafts().catch((error: unknown) => logger.error(errorFields(error), 'draft.sweep_failed'));
    }, config.RETENTION_SWEEP_SECONDS * 1000)
    : null;
  draftSweepTimer?.unref();
  return {
    name: 'api',
    app,
    address,
    async stop() {
      clearInterval(refreshTimer);
      if (draftSweepTimer) clearInterval(draftSweepTimer);
      await app.close();
    },
  };
}

export async function startMatcher(context: ServiceContext): Promise<RunningService> {
  const { platform, logger, activeIndex, registers } = context;
  const matcher = createMatcher({
    log: platform.log, registry: platform.registry, ...dataKeysOf(context), activeIndex, privateLists: context.privateLists, logger, topicPrefix: platform.topicPrefix,
    registers: { companies: registers.companies, phones: registers.phones, directory: registers.directory },
    ...(context.overrides.matcherBatchChunks ? { maxBatchChunks: context.overrides.matcherBatchChunks } : {}),
  });
  await matcher.start();
  return { name: 'matcher', stop: () => matcher.stop() };
}

export async function startProjection(context: ServiceContext): Promise<RunningService> {
  const { platform, config, logger } = context;
  const certificates = certificateKeysOf(context);
  const service = createProjectionService({
    log: platform.log,
    registry: platform.registry,
    ...dataKeysOf(context),
    jobs: platform.jobs,
    renderJob: renderCheckJob,
    logger,
    topicPrefix: platform.topicPrefix,
    callbacks: {
      timeoutMs: config.CALLBACK_TIMEOUT_MS,
      retryDelaysMs: config.CALLBACK_RETRY_DELAYS_MS,
      allowHosts: parseAllowHosts(config.CALLBACK_ALLOW_HOSTS),
      ...(context.overrides.callbackCa ? { ca: context.overrides.callbackCa } : {}),
    },
    ...(context.overrides.projectionBatchSize ? { maxBatchSize: context.overrides.projectionBatchSize } : {}),
    countIntervalMs: config.PROJECTION_COUNT_INTERVAL_MS,
    retentionIntervalMs: config.RETENTION_SWEEP_SECONDS * 1000,
    intakeStaleMs: config.INTAKE_STALE_SECONDS * 1000,
    signCertificate: (claims) => certificates.sign(claims),
    usage: platform.usage,
    monitorRuns: createMonitorRunResults({ monitors: platform.monitors, logger }),
    ...(context.overrides.projectionClock ? { clock: context.overrides.projectionClock } : {}),
  });
  await service.start();
  return { name: 'projection', stop: () => service.stop() };
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
    accounts: platform.accounts,
    events: createPipelineEvents({ log: platform.log, registry: platform.registry, topicPrefix: platform.topicPrefix }),
    logger,
    checkCallbackUrl: (url) => checkCallbackUrl(url, { allowHosts }),
    spoolDir: spoolDirOf(config),
    intervalMs: config.MONITOR_INTERVAL_MS,
    ...(context.overrides.jobChunkRows ? { chunkRows: context.overrides.jobChunkRows } : {}),
  });
  await service.start();
  return { name: 'monitor', stop: () => service.stop(), tick: () => service.tick() };
}

/**
 * An inbound channel (DECISIONS §15, §16): SFTP drop folders, the ingest mailbox or the
 * connectors' scheduled pulls, making jobs through the same ingest as the API's uploads
 * (services/ingest/inbound, services/ingest/connector).
 */
export async function startInbound(name: 'sftp' | 'email' | 'connectors', context: ServiceContext): Promise<RunningService> {
  const { platform, config, logger } = context;
  // Loaded on demand: the SSH, IMAP and SMTP libraries cost every other process start-up time.
  const { createIngestFileJobs } = await import('./ingest/inbound/ingest-file-jobs.ts');
  const { startConnectorIngest, startEmailIngest, startSftpIngest } = await import('./ingest/inbound/start.ts');
  const spoolDir = spoolDirOf(config);
  // A killed inbound process leaves spool files too (exceljs's sheet copies); same rule as the API's.
  const removed = await removeStaleSpoolFiles(spoolDir, { olderThanMs: config.INTAKE_STALE_SECONDS * 1000 });
  if (removed > 0) logger.warn({ removed }, 'spool.orphans_removed');
  useSpoolForXlsxTempFiles(spoolDir);
  const fileJobs = createIngestFileJobs({
    jobs: platform.jobs, lists: platform.lists, logger,
    events: createPipelineEvents({ log: platform.log, registry: platform.registry, topicPrefix: platform.topicPrefix, ...dataKeysOf(context) }),
    spoolDir, draftDir: uploadDirOf(config),
    ...(context.overrides.jobChunkRows ? { chunkRows: context.overrides.jobChunkRows } : {}),
  });
  const deps = {
    platform, config, logger, fileJobs, spoolDir,
    ...(context.overrides.inboundClock ? { now: context.overrides.inboundClock } : {}),
    ...(context.overrides.connectorCa ? { connectorCa: context.overrides.connectorCa } : {}),
  };
  if (name === 'connectors') return startConnectorIngest(deps);
  return name === 'sftp' ? startSftpIngest(deps) : startEmailIngest(deps);
}

/**
 * A consumer service (matcher or projection) in a worker thread of this process, on its own
 * connection to the embedded database (service-worker.ts): the embedded default runs matching and
 * projecting beside the API on the machine's second core. Resolves once the service runs.
 */
export function startServiceInWorker(name: 'matcher' | 'projection', config: Config, overrides: ServiceOverrides = {}): Promise<RunningService> {
  const worker = new Worker(new URL('./service-worker.ts', import.meta.url), { workerData: { name, config, overrides } });
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
 * platform). A second signal exits at once.
 */
export function installShutdown(services: () => RunningService[], release: () => Promise<void>, logger: Logger): void {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) {
      logger.warn({ signal }, 'process.forced_exit');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal }, 'process.stopping');
    (async () => {
      for (const service of [...services()].reverse()) await service.stop();
      await release();
    })()
      .then(() => {
        logger.info({}, 'process.stopped');
        process.exitCode = 0;
      })
      .catch((error: unknown) => {
        logger.error(errorFields(error), 'process.shutdown_failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

export function errorName(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
