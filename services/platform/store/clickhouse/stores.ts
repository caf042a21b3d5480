import type { AccountStore } from '../accounts-port.ts';
import type { ConnectorStore } from '../connectors-port.ts';
import type { SavedMappingStore } from '../saved-mappings-port.ts';
import { createClickHouseSavedMappingStore } from './saved-mappings.ts';
import type { InboundStore } from '../inbound-port.ts';
import type { AddressStore } from '../addresses-port.ts';
import type { JobStore } from '../jobs-port.ts';
import type { KeyRing } from '../keyring-port.ts';
import type { UsageStore } from '../usage-port.ts';
import type { ListStore } from '../lists-port.ts';
import type { MonitorStore } from '../monitors-port.ts';
import type { Logger } from '../../logger.ts';
import { createClickHouseAccountStore } from './accounts.ts';
import { createClickHousePeopleStore } from './people.ts';
import type { PeopleStore } from '../people-port.ts';
import { createClickHouseAddressStore } from './addresses.ts';
import { createClickHouseConnection, type ClickHouseConnection } from './connection.ts';
import { createClickHouseConnectorStore } from './connectors.ts';
import { createClickHouseInboundStore } from './inbound.ts';
import { createClickHouseJobStore } from './jobs.ts';
import { createClickHouseKeyRing } from './keyring.ts';
import { createClickHouseDataKeyStore } from './data-keys.ts';
import { createClickHouseIdempotencyStore } from './idempotency.ts';
import { createClickHouseRateUsageStore } from './rate-usage.ts';
import type { RateUsageStore } from '../rate-usage-port.ts';
import type { IdempotencyStore } from '../idempotency-port.ts';
import type { DataKeyStore } from '../data-keys-port.ts';
import { createClickHouseUsageStore } from './usage.ts';
import { createClickHouseListStore } from './lists.ts';
import { migrate } from './migrate.ts';
import { createClickHouseMonitorStore } from './monitors.ts';
import { createClickHouseRegisterStore } from './registers.ts';
import type { RegisterStore } from '../registers-port.ts';

/** Every ClickHouse-backed store of the distributed deployment, on one connection. */
export interface ClickHouseStores {
  connection: ClickHouseConnection;
  accounts: AccountStore;
  people: PeopleStore;
  lists: ListStore;
  addresses: AddressStore;
  jobs: JobStore;
  inbound: InboundStore;
  connectors: ConnectorStore;
  savedMappings: SavedMappingStore;
  registers: RegisterStore;
  keys: KeyRing;
  usage: UsageStore;
  dataKeys: DataKeyStore;
  /** Idempotency records shared by every API process. */
  idempotency: IdempotencyStore;
  /** Rate-limit counts shared by the API processes. */
  rateUsage: RateUsageStore;
  monitors: MonitorStore;
  close(): Promise<void>;
}

/** The config fields it needs (services/platform/config.ts names). */
export interface ClickHouseSettings {
  CLICKHOUSE_URL: string;
  CLICKHOUSE_DATABASE?: string;
  CLICKHOUSE_USER?: string;
  CLICKHOUSE_PASSWORD?: string;
}

export const DEFAULT_CLICKHOUSE_DATABASE = 'robinson';

/** Connects and, unless `migrate: false`, applies pending migrations first (idempotent). */
export async function openClickHouseStores(
  settings: ClickHouseSettings,
  options: { logger?: Logger; migrate?: boolean } = {},
): Promise<ClickHouseStores> {
  const connection = createClickHouseConnection({
    url: settings.CLICKHOUSE_URL,
    database: settings.CLICKHOUSE_DATABASE ?? DEFAULT_CLICKHOUSE_DATABASE,
    username: settings.CLICKHOUSE_USER,
    password: settings.CLICKHOUSE_PASSWORD,
  });
  if (options.migrate !== false) await migrate(connection, { logger: options.logger });
  return {
    connection,
    accounts: createClickHouseAccountStore(connection),
    people: createClickHousePeopleStore(connection),
    lists: createClickHouseListStore(connection),
    addresses: createClickHouseAddressStore(connection),
    jobs: createClickHouseJobStore(connection),
    inbound: createClickHouseInboundStore(connection),
    connectors: createClickHouseConnectorStore(connection),
    savedMappings: createClickHouseSavedMappingStore(connection),
    registers: createClickHouseRegisterStore(connection),
    keys: createClickHouseKeyRing(connection),
    usage: createClickHouseUsageStore(connection),
    dataKeys: createClickHouseDataKeyStore(connection),
    idempotency: createClickHouseIdempotencyStore(connection),
    rateUsage: createClickHouseRateUsageStore(connection),
    monitors: createClickHouseMonitorStore(connection),
    close: () => connection.close(),
  };
}
