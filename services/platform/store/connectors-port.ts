import type { CheckJobOptions, ColumnMapping } from '../../domain/check-job.ts';
import type { RemovableRecords } from './removable-records.ts';

/**
 * Connectors (docs/decisions.md §16, docs/connectors.md): an organisation's HTTPS URL that the connector
 * service pulls on a schedule, each pull making one job (`source: connector`) or replacing a
 * monitor's contacts, and the outcome of the last pull.
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - A write is durable and visible to every later read (of any process) once its promise resolves.
 * - A removed connector stays readable by id but is no longer listed.
 * - `recordStatus` keeps the latest status written per connector (last write wins).
 * Does not promise: atomic read-modify-write between processes. One connector process per
 * deployment owns the schedule (a slot's job id is derived from the slot, so even two would make
 * one job per slot; see services/ingest/connector/schedule.ts).
 * Nothing here holds personal data; the auth header value is stored only sealed (AES-256-GCM,
 * services/ingest/inbound/secrets.ts, the connector id as additional data).
 */
export interface Connector {
  id: string;
  org_id: string;
  /** https URL, checked by the callback address rules when added and before every pull. */
  url: string;
  /** Name of the header sent with every pull (e.g. `Authorization`); null: none. */
  auth_header_name: string | null;
  /** The header's value, sealed; null when there is no header. */
  auth_header_sealed: string | null;
  /** A pull per schedule slot of this many seconds (slots are aligned to the Unix epoch). */
  interval_seconds: number;
  /** What a pull feeds: a new check job, or the contact set of a monitor. */
  target: ConnectorTarget;
  /** Mapping for csv/xlsx/xls answers; null: guessed from the headers. */
  column_mapping: ColumnMapping | null;
  options: CheckJobOptions;
  /** Language of result headers and of texts about refused files. */
  locale: 'da' | 'en';
  created_at: string;
  removed_at: string | null;
}

export type ConnectorTarget = { kind: 'job' } | { kind: 'monitor'; monitor_id: string };

/** The last pull of a connector (shown by the admin tool). */
export interface ConnectorStatus {
  connector_id: string;
  /** The last schedule slot whose pull ran to an outcome (success or error); null: none yet. */
  last_slot: number | null;
  last_run_at: string | null;
  last_ok_at: string | null;
  /** The job the last successful pull made (or found, after a crash); null for monitor targets. */
  last_job_id: string | null;
  /** A code with a short technical detail (`http_status:503`, `connect_error:ECONNREFUSED`); never a credential or file content. */
  last_error: string | null;
  last_error_at: string | null;
  /** Failed pulls in a row; 0 after a success. */
  failures: number;
}

export interface ConnectorStore {
  createConnector(connector: Connector): Promise<void>;
  getConnector(id: string): Promise<Connector | null>;
  /** Active (not removed) connectors, of one organisation or all, oldest first. */
  listConnectors(orgId?: string): Promise<Connector[]>;
  /** Marks the connector removed; false when unknown. */
  removeConnector(id: string, at: string): Promise<boolean>;
  recordStatus(status: ConnectorStatus): Promise<void>;
  getStatus(connectorId: string): Promise<ConnectorStatus | null>;
}

/** A ConnectorStore made of an adapter's removable records (removable-records.ts). */
export function connectorStoreOf(connectors: RemovableRecords<Connector, ConnectorStatus>): ConnectorStore {
  return {
    createConnector: (connector) => connectors.create(connector),
    getConnector: (id) => connectors.get(id),
    listConnectors: (orgId) => connectors.list(orgId),
    removeConnector: (id, at) => connectors.remove(id, at),
    recordStatus: (status) => connectors.recordStatus(status.connector_id, status),
    getStatus: (connectorId) => connectors.getStatus(connectorId),
  };
}
