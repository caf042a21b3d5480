/**
 * Running deployments for the end-to-end pipeline tests: the embedded default in the test process,
 * and the distributed one (Kafka + ClickHouse) with the API in the test process and matchers and
 * the projection as child processes (`node services/run-service.ts <name>`), each killable.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Before kafkajs loads, as in every service process (services/platform/log/kafka.ts imports it first).
import '../../services/platform/log/kafkajs-crc32c.ts';
import { Kafka, logLevel } from 'kafkajs';
import { createOrganisation } from '../../services/admin/organisations.ts';
import { issueApiKey } from '../../services/admin/keys.ts';
import { loadConfig, type Config } from '../../services/platform/config.ts';
import { silentLogger, type Logger } from '../../services/platform/logger.ts';
import { openPlatform, type Platform } from '../../services/platform/open-platform.ts';
import { ident, sql } from '../../services/platform/store/clickhouse/sql.ts';
import {
  createServiceContext, embeddedMatchers, startApi, startMatcher, startMonitorService, startPlanned, startProjection, startServiceInWorker, type RunningApi, type RunningService, type ServiceOverrides,
} from '../../services/processes.ts';
import type { CompanyRecord, DirectoryEntry } from '../../services/domain/index.ts';
import type { ListEntry } from '../../services/domain/types.ts';
import type { CallbackReceiver } from './callback-receiver.ts';
import { clickhouseOverHttp } from './clickhouse.ts';
import { DIRECTORY_ENTRIES, REGISTER_COMPANIES, seedListVersion, seedRegisterVersion } from './pipeline.ts';
import { servers, startHint } from './servers.ts';

export const RUN_SERVICE = join(import.meta.dirname, '../../services/run-service.ts');

/** The payment provider test double's webhook secret (test/e2e/billing-scenario.ts). */
export const TEST_PAYMENT_WEBHOOK_SECRET = 'test-double-payment-provider-secret';

/** Settings every pipeline test uses: short callback schedule, fast counts, loopback receiver. */
export const TEST_ENV = {
  PAYMENT_WEBHOOK_SECRET: TEST_PAYMENT_WEBHOOK_SECRET,
  LOG_LEVEL: 'warn',
  DEMO_SEED: 'false',
  CALLBACK_ALLOW_HOSTS: '127.0.0.1',
  CALLBACK_RETRY_DELAYS_MS: '300,300,300',
  CALLBACK_TIMEOUT_MS: '3000',
  PROJECTION_COUNT_INTERVAL_MS: '200',
  RETENTION_SWEEP_SECONDS: '0',
  KAFKA_SESSION_TIMEOUT_MS: '6000',
} as const;

export interface Seeded {
  liveKey: string;
  testKey: string;
  listVersionId: string;
}

/** The company register and phone directory a deployment seeds (default: test/support/pipeline.ts's). */
export interface RegisterSeed {
  companies: readonly CompanyRecord[];
  directory: readonly DirectoryEntry[];
}

export async function seedAccountAndList(platform: Platform, entries?: Iterable<ListEntry>, registers: boolean | RegisterSeed = false): Promise<Seeded> {
  const org = await createOrganisation(platform.accounts, { name: `e2e-${randomBytes(4).toString('hex')}` });
  const live = await issueApiKey(platform.accounts, org.id, 'live');
  const test = await issueApiKey(platform.accounts, org.id, 'test');
  const version = await seedListVersion(platform.lists, entries);
  if (registers) {
    // Company and phone checks (docs/decisions.md §17): the add-ons, an active company register and an
    // imported phone directory, before any service builds its lookups.
    await platform.accounts.updateOrganisation(org.id, { addons: ['company', 'phone'] });
    const seed = registers === true ? { companies: REGISTER_COMPANIES, directory: DIRECTORY_ENTRIES } : registers;
    await seedRegisterVersion(platform.registers, 'companies', seed.companies);
    await seedRegisterVersion(platform.registers, 'phones', seed.directory);
  }
  return { liveKey: live.key, testKey: test.key, listVersionId: version.id };
}

export interface EmbeddedDeployment extends Seeded {
  baseUrl: string;
  platform: Platform;
  /** DATA_DIR: the database, the spool and the drafts' files. */
  dataDir: string;
  /** The monitor service, when started (options.monitor): one whole walk per tick(). */
  monitor: { tick(): Promise<void> } | null;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  env?: Record<string, string>;
  listEntries?: Iterable<ListEntry>;
  /** Grant the company and phone add-ons and seed these registers (true: those of test/support/pipeline.ts). */
  registers?: boolean | RegisterSeed;
  jobChunkRows?: number;
  /** Matcher and projection in worker threads, as npm start runs them. */
  workers?: boolean;
  overrides?: ServiceOverrides;
  /** The services' logger (default silent); the canary captures every line. */
  logger?: Logger;
  /** Start the monitor service too (npm start runs it). */
  monitor?: boolean;
  /** The event log's and the projection's clock (not with workers): tests move it past retention. */
  clock?: () => Date;
}

/** npm start's wiring (API + matcher + projection, one process, embedded adapters), in this process. */
export async function startEmbedded(receiver: CallbackReceiver | null, options: EmbeddedOptions = {}): Promise<EmbeddedDeployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-embedded-'));
  const config = loadConfig({ ...TEST_ENV, PORT: '0', DATA_DIR: dataDir, ...options.env });
  const platform = await openPlatform(config, silentLogger(), options.clock ? { clock: options.clock } : {});
  const seeded = await seedAccountAndList(platform, options.listEntries, options.registers);
  const context = createServiceContext(platform, config, options.logger ?? silentLogger(), {
    ...(receiver ? { callbackCa: receiver.cert } : {}), jobChunkRows: options.jobChunkRows ?? 250,
    ...(options.clock ? { projectionClock: options.clock } : {}), ...options.overrides,
  });
  // With workers, the consumers as npm start runs them (processes.ts embeddedServices).
  const running: RunningService[] = [];
  if (options.workers) {
    running.push(await startServiceInWorker('projection', config, context.overrides));
    for (const matcher of embeddedMatchers(config.EMBEDDED_MATCHER_THREADS)) running.push(await startPlanned(matcher, context));
  } else {
    running.push(await startProjection(context), await startMatcher(context));
  }
  const api = await startApi(context);
  running.push(api);
  const monitor = options.monitor ? await startMonitorService(context) : null;
  if (monitor) running.push(monitor);
  return {
    ...seeded,
    platform,
    dataDir,
    monitor,
    baseUrl: api.address,
    async stop() {
      for (const service of running.reverse()) await service.stop();
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Resolves when the process has exited (after a kill or a SIGTERM). */
  exited: Promise<number | null>;
}

export interface DistributedDeployment extends Seeded {
  baseUrl: string;
  platform: Platform;
  config: Config;
  env: Record<string, string>;
  processes: ServiceProcess[];
  /**
   * Starts `node services/run-service.ts <name>` with this deployment's environment (plus `env`;
   * an `api` needs its PORT there).
   */
  spawnService(name: 'api' | 'matcher' | 'projection' | 'sftp' | 'email' | 'connectors' | 'monitor', env?: Record<string, string>): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

export interface DistributedOptions {
  brokers?: string[];
  matchers?: number;
  /** Projection processes in the one consumer group (default 1). */
  projections?: number;
  /** Rows per checks.rows message published by the API. */
  jobChunkRows?: number;
  listEntries?: Iterable<ListEntry>;
  /** Grant the company and phone add-ons and seed these registers (true: those of test/support/pipeline.ts). */
  registers?: boolean | RegisterSeed;
  env?: Record<string, string>;
  /** For the API in this process (e.g. overlapIntake). */
  overrides?: ServiceOverrides;
  /** The API's logger in this process (default silent). */
  logger?: Logger;
  /** LOG_LEVEL of the child processes (default info: they log `process.started`). */
  serviceLogLevel?: string;
}

/**
 * A distributed deployment on its own ClickHouse database and topic prefix: the API here, the
 * matchers and the projection as child processes. Fails (never skips) when a server is missing.
 */
export async function startDistributed(receiver: CallbackReceiver | null, options: DistributedOptions = {}): Promise<DistributedDeployment> {
  const brokers = options.brokers ?? servers.kafkaBrokers;
  const ping = await fetch(new URL('/ping', servers.clickhouseUrl), { signal: AbortSignal.timeout(3000) }).catch((e: Error) => e);
  if (ping instanceof Error || !ping.ok) throw new Error(`ClickHouse does not answer at ${servers.clickhouseUrl}; ${startHint}`);
  const id = randomBytes(5).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-distributed-'));
  const env: Record<string, string> = {
    ...TEST_ENV,
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_TOPIC_PREFIX: `e2e-${id}.`,
    CLICKHOUSE_URL: servers.clickhouseUrl,
    CLICKHOUSE_DATABASE: `robinson_e2e_${id}`,
    DATA_DIR: dataDir,
    ...options.env,
  };
  const config = loadConfig({ ...env, PORT: '0' });
  let platform: Platform;
  try {
    platform = await openPlatform(config, silentLogger(), { clientId: 'e2e-api' });
  } catch (error) {
    throw new Error(`cannot open Kafka ${brokers.join(',')} / ClickHouse (${(error as Error).message}); ${startHint}`);
  }
  const seeded = await seedAccountAndList(platform, options.listEntries, options.registers);
  const processes: ServiceProcess[] = [];

  async function spawnService(name: 'api' | 'matcher' | 'projection' | 'sftp' | 'email' | 'connectors' | 'monitor', extraEnv: Record<string, string> = {}): Promise<ServiceProcess> {
    const child = spawn(process.execPath, [RUN_SERVICE, name], {
      // info: the process logs `process.started` once its consumer joined the group (or it listens).
      env: { ...process.env, ...env, LOG_LEVEL: options.serviceLogLevel ?? 'info', ...(receiver ? { NODE_EXTRA_CA_CERTS: receiver.certFile } : {}), ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const service: ServiceProcess = { name, child, output: () => out, exited };
    processes.push(service);
    // Started once it logged that its services run (its consumer joined the group). The deadline
    // only bounds a failure: a group join takes a minute and more on a loaded CI machine.
    const deadline = Date.now() + 150_000;
    while (!out.includes('process.started')) {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`${name} did not start within 150 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return service;
  }

  const context = createServiceContext(platform, config, options.logger ?? silentLogger(), { jobChunkRows: options.jobChunkRows ?? 250, ...options.overrides });
  let api: RunningApi | null = null;
  try {
    for (let i = 0; i < (options.matchers ?? 2); i++) await spawnService('matcher');
    for (let i = 0; i < (options.projections ?? 1); i++) await spawnService('projection');
    api = await startApi(context);
  } catch (error) {
    for (const p of processes) p.child.kill('SIGKILL');
    await platform.close();
    await dropDatabase(env.CLICKHOUSE_DATABASE);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const started = api;
  return {
    ...seeded,
    baseUrl: started.address,
    platform,
    config,
    env,
    processes,
    spawnService,
    async stop() {
      await started.stop();
      for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await Promise.all(processes.map((p) => Promise.race([p.exited, new Promise((r) => setTimeout(r, 10_000))])));
      for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await platform.close();
      await deleteTopics(brokers, env.KAFKA_TOPIC_PREFIX);
      await dropDatabase(env.CLICKHOUSE_DATABASE);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Deletes this run's topics, so the shared broker does not collect partitions run after run. */
export async function deleteTopics(brokers: readonly string[], prefix: string): Promise<void> {
  const admin = new Kafka({ clientId: 'e2e-cleanup', brokers: [...brokers], logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
  } catch {
    // Cleanup only: a broker that is gone (the restart test stops its own) leaves nothing to tidy.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function dropDatabase(database: string): Promise<void> {
  await clickhouseOverHttp(sql`DROP DATABASE IF EXISTS ${ident(database)}`, { rows: false });
}
