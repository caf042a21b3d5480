import type { DatabaseSync } from 'node:sqlite';
import { connectorStoreOf, type Connector, type ConnectorStatus, type ConnectorStore } from '../connectors-port.ts';
import { embeddedRemovableRecords } from './removable-records.ts';

/** ConnectorStore on the embedded database: removable records with a status (removable-records.ts). */
export function createEmbeddedConnectorStore(db: DatabaseSync): ConnectorStore {
  const connectors = embeddedRemovableRecords<Connector, ConnectorStatus>(db, { records: 'connectors', statuses: 'connector_status', statusKey: 'connector_id' });
  return connectorStoreOf(connectors);
}
