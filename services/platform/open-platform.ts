import type { DatabaseSync } from 'node:sqlite';
import { pipelineTopics } from '../../infra/topics.ts';
import type { Config } from './config.ts';
import { ConfigError } from './config.ts';
import { createEmbeddedEventLog } from './log/embedded.ts';
import { createKafkaEventLog } from './log/kafka.ts';
import type { EventLog } from './log/port.ts';
import type { Logger } from './logger.ts';
import { createConfluentSchemaRegistry } from './schema-registry/confluent.ts';
import type { SchemaRegistry } from './schema-registry/port.ts';
import { createStaticSchemaRegistry } from './schema-registry/static.ts';
import type { AccountStore } from './store/accounts-port.ts';
import type { PeopleStore } from './store/people-port.ts';
import { createEmbeddedPeopleStore } from './store/embedded/people.ts';
import { openClickHouseStores, type ClickHouseStores } from './store/clickhouse/stores.ts';
import { createEmbeddedAccountStore } from './store/embedded/accounts.ts';
import { embeddedDatabasePath, eventLogDatabasePath, openEmbeddedDatabase, openEmbeddedDatabases, type EmbeddedDatabases } from './store/embedded/database.ts';
import { createEmbeddedIdempotencyStore } from './store/embedded/idempotency.ts';
import { createEmbeddedInboundStore } from './store/embedded/inbound.ts';
import { createEmbeddedConnectorStore } from './store/embedded/connectors.ts';
import type { ConnectorStore } from './store/connectors-port.ts';
import { createEmbeddedSavedMappingStore } from './store/embedded/saved-mappings.ts';
import type { SavedMappingStore } from './store/saved-mappings-port.ts';
import { createEmbeddedJobStore } from './store/embedded/jobs.ts';
import { createEmbeddedKeyRing } from './store/embedded/keyring.ts';
import { createEmbeddedUsageStore } from './store/embedded/usage.ts';
import { createEmbeddedListStore } from './store/embedded/lists.ts';
import { createEmbeddedAddressStore } from './store/embedded/addresses.ts';
import type { AddressStore } from './store/addresses-port.ts';
import type { IdempotencyStore } from './store/idempotency-port.ts';
import type { InboundStore } from './store/inbound-port.ts';
import type { JobStore } from './store/jobs-port.ts';
import type { KeyRing } from './store/keyring-port.ts';
import type { DataKeyStore } from './store/data-keys-port.ts';
import type { RateUsageStore } from './store/rate-usage-port.ts';
import { createEmbeddedRateUsageStore } from './store/embedded/rate-usage.ts';
import { createEmbeddedDataKeyStore } from './store/embedded/data-keys.ts';
import { createJobDataKeys, type JobDataKeys } from './keys/data-keys.ts';
import type { UsageStore } from './store/usage-port.ts';
import type { ListStore } from './store/lists-port.ts';
import type { MonitorStore } from './store/monitors-port.ts';
import { createEmbeddedMonitorStore } from './store/embedded/monitors.ts';
import { createEmbeddedRegisterStore } from './store/embedded/registers.ts';
import type { RegisterStore } from './store/registers-port.ts';

/**
 * Every adapter a process needs, chosen by configuration (docs/architecture.md "Two ways to run"):
 * - embedded (nothing set): node:sqlite files in DATA_DIR: the main one holds accounts, lists,
 *   jobs and idempotency records, the event log and the results each have a file of their own (no
 *   shared write lock); every service runs in the one process (services/main.ts);
 * - distributed (KAFKA_BROKERS and CLICKHOUSE_URL set): Kafka for the event log, ClickHouse for
 *   accounts, lists, jobs and results, the Confluent registry when SCHEMA_REGISTRY_URL is set
 *   (else the static one, same bytes); idempotency records in ClickHouse too, shared by every API
 *   process (docs/privacy-and-proof.md); DATA_DIR keeps only a database file nothing uses (see
 *   docs/platform-clickhouse-registry.md). Each service may run as its own process.
 * Topics of the pipeline are created (idempotently) before anything is returned.
 */
export interface Platform extends Stores {
  idempotency: IdempotencyStore;
  log: EventLog;
  registry: SchemaRegistry;
  topicPrefix: string;
  /** Where the embedded main database is (embedded: accounts, jobs, …; distributed: opened, unused by the stores). */
  databasePath: string;
  /** The embedded event log's file (distributed: none, the log is Kafka). */
  eventLogPath: string | null;
  /** The jobs' data keys, cached (rows and results on the topics are sealed with them). */
  jobKeys: JobDataKeys;
  /** Rate-limit counts shared by the API processes (used by the distributed deployment). */
  rateUsage: RateUsageStore;
}

type PlatformConfig = Pick<Config,
  'DATA_DIR' | 'KAFKA_BROKERS' | 'KAFKA_TOPIC_PREFIX' | 'CLICKHOUSE_URL' | 'CLICKHOUSE_DATABASE' | 'CLICKHOUSE_USER'
  | 'CLICKHOUSE_PASSWORD' | 'SCHEMA_REGISTRY_URL' | 'KAFKA_SESSION_TIMEOUT_MS' | 'DATA_MASTER_KEYS'>;

export function platformKind(config: PlatformConfig): 'embedded' | 'distributed' {
  if (config.KAFKA_BROKERS && config.CLICKHOUSE_URL) return 'distributed';
  if (config.KAFKA_BROKERS || config.CLICKHOUSE_URL) {
    throw new ConfigError(`the distributed deployment needs both KAFKA_BROKERS and CLICKHOUSE_URL (only ${config.KAFKA_BROKERS ? 'KAFKA_BROKERS' : 'CLICKHOUSE_URL'} is set)`);
  }
  return 'embedded';
}

/** The account, list and job stores, without the event log (openStores). */
export interface Stores {
  kind: 'embedded' | 'distributed';
  accounts: AccountStore;
  /** The portal's users, invitations, sessions and audit log (docs/people.md). */
  people: PeopleStore;
  lists: ListStore;
  /** Address register versions. */
  addresses: AddressStore;
  jobs: JobStore;
  /** SFTP drop folders, email senders and inbound claims (docs/decisions.md §15). */
  inbound: InboundStore;
  /** Scheduled HTTPS pulls and their last outcome (docs/decisions.md §16, docs/connectors.md). */
  connectors: ConnectorStore;
  /** The organisations' saved column mappings (docs/web.md "Saved column mappings"). */
  savedMappings: SavedMappingStore;
  /** Company register and phone directory versions. */
  registers: RegisterStore;
  /** The service's own keys: certificate signing keys, cursor secrets. */
  keys: KeyRing;
  /** Billable usage per organisation and month (kept by the projection). */
  usage: UsageStore;
  /** The jobs' wrapped data keys (crypto-shredding); `jobs.purgeJob` deletes a job's keys first. */
  dataKeys: DataKeyStore;
  /** Monitored contact sets and their re-checks (docs/decisions.md §16). */
  monitors: MonitorStore;
  close(): Promise<void>;
}

/**
 * The stores alone, chosen exactly as openPlatform chooses them, for the admin tool (no event log,
 * no topics, no schema registry). Embedded: the DATA_DIR database; distributed: ClickHouse
 * (migrated first) and DATA_DIR is not touched. Half of the distributed configuration is a
 * ConfigError here as there.
 */
export async function openStores(config: PlatformConfig, logger: Logger): Promise<Stores> {
  const kind = platformKind(config);
  if (kind === 'embedded') {
    const dbs = openEmbeddedDatabases(config.DATA_DIR);
    return { kind, ...embeddedStores(dbs), close: async () => dbs.close() };
  }
  const stores = await openDistributedStores(config, logger);
  return {
    kind, accounts: stores.accounts, people: stores.people, lists: stores.lists, addresses: stores.addresses,
    jobs: forgettingKeysOnPurge(stores.jobs, forgettingBoth((id) => stores.dataKeys.deleteJobKeys(id), stores.idempotency)), dataKeys: stores.dataKeys,
    keys: stores.keys, usage: stores.usage, registers: stores.registers, inbound: stores.inbound, connectors: stores.connectors,
    savedMappings: stores.savedMappings, monitors: stores.monitors, close: () => stores.close(),
  };
}

/**
 * The job store whose purgeJob first deletes the job's data keys (crypto-shredding): every purge
 * (DELETE, delete_after, an abandoned intake, a deleted draft) makes the job's rows and results on
 * the topics unreadable at once, before its stored rows go. Keys first: should the purge fail
 * half-way, the log is already unreadable, and the purge is retried as before.
 */
export function forgettingKeysOnPurge(jobs: JobStore, forget: (jobId: string) => Promise<void>): JobStore {
  // The adapters are object literals of closures (no `this`), so a copy keeps every method and
  // can itself be spread by callers.
  return {
    ...jobs,
    async purgeJob(id: string, at: string) {
      await forget(id);
      return jobs.purgeJob(id, at);
    },
  };
}

/**
 * What a purge forgets before the job's rows: its data keys, and every remembered response of a
 * call that made or showed it (a draft's answer holds its preview people; docs/privacy-and-proof.md
 * "Every store").
 */
function forgettingBoth(forgetKeys: (jobId: string) => Promise<void>, idempotency: Pick<IdempotencyStore, 'forgetResponsesAbout'>) {
  return async (jobId: string) => {
    await forgetKeys(jobId);
    await idempotency.forgetResponsesAbout(jobId);
  };
}

function embeddedStores(dbs: Pick<EmbeddedDatabases, 'main' | 'results'>): Pick<Stores, 'accounts' | 'people' | 'lists' | 'addresses' | 'jobs' | 'keys' | 'registers' | 'inbound' | 'connectors' | 'savedMappings' | 'usage' | 'monitors' | 'dataKeys'> {
  const db = dbs.main;
  const dataKeys = createEmbeddedDataKeyStore(db);
  return {
    dataKeys, accounts: createEmbeddedAccountStore(db), people: createEmbeddedPeopleStore(db), lists: createEmbeddedListStore(db),
    jobs: forgettingKeysOnPurge(createEmbeddedJobStore(db, dbs.results), forgettingBoth((id) => dataKeys.deleteJobKeys(id), createEmbeddedIdempotencyStore(db))),
    addresses: createEmbeddedAddressStore(db), keys: createEmbeddedKeyRing(db), registers: createEmbeddedRegisterStore(db),
    inbound: createEmbeddedInboundStore(db), connectors: createEmbeddedConnectorStore(db), savedMappings: createEmbeddedSavedMappingStore(db), usage: createEmbeddedUsageStore(db),
    monitors: createEmbeddedMonitorStore(db),
  };
}

function openDistributedStores(config: PlatformConfig, logger: Logger): Promise<ClickHouseStores> {
  return openClickHouseStores({ ...config, CLICKHOUSE_URL: config.CLICKHOUSE_URL as string }, { logger });
}

/** The wake channel of the embedded event log in `path`: every thread appending to that file posts to it. */
export function eventLogWakeChannel(path: string): string {
  return `robinson-event-log:${path}`;
}

export async function openPlatform(config: PlatformConfig, logger: Logger, options: { clientId?: string; clock?: () => Date } = {}): Promise<Platform> {
  const kind = platformKind(config);
  const topicPrefix = config.KAFKA_TOPIC_PREFIX;
  const databasePath = embeddedDatabasePath(config.DATA_DIR);
  // Distributed: only the main file (its idempotency store is replaced below; see the doc above).
  const dbs: EmbeddedDatabases | null = kind === 'embedded' ? openEmbeddedDatabases(config.DATA_DIR) : null;
  const db: DatabaseSync = dbs ? dbs.main : openEmbeddedDatabase(databasePath);
  const closers: Array<() => Promise<void> | void> = [() => (dbs ? dbs.close() : db.close())];
  const close = async () => {
    for (const closeOne of closers.splice(0).reverse()) await closeOne();
  };
  try {
    let idempotency: IdempotencyStore = createEmbeddedIdempotencyStore(db);
    const registry = config.SCHEMA_REGISTRY_URL
      ? createConfluentSchemaRegistry({ url: config.SCHEMA_REGISTRY_URL, logger })
      : createStaticSchemaRegistry();
    let platform: Omit<Platform, 'close'>;
    if (dbs) {
      // The clock dates messages and expires them (retention); tests move it past retention.
      const clock = options.clock;
      const log = createEmbeddedEventLog({
        db: dbs.log, logger, pollIntervalMs: 200, wakeChannel: eventLogWakeChannel(eventLogDatabasePath(config.DATA_DIR)),
        ...(clock ? { now: () => clock().getTime() } : {}),
      });
      closers.push(() => log.close());
      const stores = embeddedStores(dbs);
      const jobKeys = createJobDataKeys({ store: stores.dataKeys, keyring: stores.keys, configured: config.DATA_MASTER_KEYS });
      platform = {
        kind, idempotency, registry, log, topicPrefix, databasePath, eventLogPath: eventLogDatabasePath(config.DATA_DIR), ...stores, jobKeys, rateUsage: createEmbeddedRateUsageStore(db),
        jobs: forgettingKeysOnPurge(stores.jobs, forgettingBoth((id) => jobKeys.forget(id), idempotency)),
      };
    } else {
      const stores = await openDistributedStores(config, logger);
      closers.push(() => stores.close());
      const brokers = (config.KAFKA_BROKERS as string).split(',').map((b) => b.trim()).filter(Boolean);
      const log = createKafkaEventLog({
        brokers, logger, clientId: options.clientId ?? 'robinson',
        sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
        heartbeatIntervalMs: Math.min(3000, Math.floor(config.KAFKA_SESSION_TIMEOUT_MS / 3)),
      });
      closers.push(() => log.close());
      const jobKeys = createJobDataKeys({ store: stores.dataKeys, keyring: stores.keys, configured: config.DATA_MASTER_KEYS });
      // One store of idempotency records for every API process: the same key sent to two of them
      // at once gives one job (a file in each process's DATA_DIR gave one per process).
      idempotency = stores.idempotency;
      platform = {
        kind, idempotency, registry, log, topicPrefix, databasePath, eventLogPath: null, jobKeys, dataKeys: stores.dataKeys, rateUsage: stores.rateUsage,
        accounts: stores.accounts, people: stores.people, lists: stores.lists, addresses: stores.addresses, keys: stores.keys, usage: stores.usage,
        registers: stores.registers, inbound: stores.inbound, connectors: stores.connectors, savedMappings: stores.savedMappings, monitors: stores.monitors,
        jobs: forgettingKeysOnPurge(stores.jobs, forgettingBoth((id) => jobKeys.forget(id), idempotency)),
      };
    }
    await platform.log.createTopics(pipelineTopics(topicPrefix));
    return { ...platform, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
