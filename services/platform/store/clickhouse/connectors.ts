import { connectorStoreOf, type Connector, type ConnectorStatus, type ConnectorStore } from '../connectors-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { clickHouseRemovableRecords, type RevisedRows } from './removable-records.ts';
import { sql } from './sql.ts';

/**
 * ConnectorStore on ClickHouse (infra/clickhouse/migrations/011_connectors.sql): every record is
 * a row of `connector_records` keyed by (kind, id), written again with revision + 1 on change,
 * read with FINAL (removable-records.ts). Read-then-write is safe because one connector process
 * owns the schedule (the port's "does not promise"); the admin tool only creates and removes.
 */
export function createClickHouseConnectorStore(conn: ClickHouseConnection): ConnectorStore {
  const table = conn.table('connector_records');
  const rows: RevisedRows = {
    async read<T>(kind: string, id: string) {
      const [row] = await conn.rows<{ revision: string; body: string }>(
        sql`SELECT revision, body FROM ${table} FINAL WHERE kind = ${kind} AND id = ${id}`,
      );
      return row ? { revision: Number(row.revision), record: JSON.parse(row.body) as T } : null;
    },
    async write(kind, id, revision, record, columns) {
      await conn.insert('connector_records', [{
        kind, id, revision, org_id: columns.org_id ?? '', created_at: columns.created_at ?? '', removed: columns.removed ? 1 : 0, body: JSON.stringify(record),
      }]);
    },
  };
  const connectors = clickHouseRemovableRecords<Connector, ConnectorStatus>(conn, 'connector_records', { record: 'connector', status: 'status' }, rows);
  return connectorStoreOf(connectors);
}
