import type { Connector, ConnectorStatus, ConnectorStore } from '../connectors-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * ConnectorStore on ClickHouse (infra/clickhouse/migrations/011_connectors.sql): every record is
 * a row of `connector_records` keyed by (kind, id), written again with revision + 1 on change,
 * read with FINAL. Read-then-write is safe because one connector process owns the schedule (the
 * port's "does not promise"); the admin tool only creates and removes.
 */
type Kind = 'connector' | 'status';

export function createClickHouseConnectorStore(conn: ClickHouseConnection): ConnectorStore {
  const table = conn.table('connector_records');

  async function read<T>(kind: Kind, id: string): Promise<{ revision: number; record: T } | null> {
    const [row] = await conn.rows<{ revision: string; body: string }>(
      sql`SELECT revision, body FROM ${table} FINAL WHERE kind = ${kind} AND id = ${id}`,
    );
    return row ? { revision: Number(row.revision), record: JSON.parse(row.body) as T } : null;
  }

  async function write(kind: Kind, id: string, revision: number, record: object, org: { org_id?: string; created_at?: string; removed?: boolean }): Promise<void> {
    await conn.insert('connector_records', [{
      kind, id, revision, org_id: org.org_id ?? '', created_at: org.created_at ?? '', removed: org.removed ? 1 : 0, body: JSON.stringify(record),
    }]);
  }

  return {
    async createConnector(connector) {
      if (await read('connector', connector.id)) throw new Error(`connector ${connector.id} already exists`);
      await write('connector', connector.id, 1, connector, { org_id: connector.org_id, created_at: connector.created_at, removed: connector.removed_at !== null });
    },
    async getConnector(id) {
      return (await read<Connector>('connector', id))?.record ?? null;
    },
    async listConnectors(orgId) {
      const org = orgId ?? '';
      const rows = await conn.rows<{ body: string }>(sql`SELECT body FROM ${table} FINAL
        WHERE kind = 'connector' AND (${org} = '' OR org_id = ${org}) AND removed = 0 ORDER BY created_at, id`);
      return rows.map((row) => JSON.parse(row.body) as Connector);
    },
    async removeConnector(id, at) {
      const current = await read<Connector>('connector', id);
      if (!current) return false;
      const connector = { ...current.record, removed_at: current.record.removed_at ?? at };
      await write('connector', id, current.revision + 1, connector, { org_id: connector.org_id, created_at: connector.created_at, removed: true });
      return true;
    },
    async recordStatus(status) {
      const current = await read<ConnectorStatus>('status', status.connector_id);
      await write('status', status.connector_id, (current?.revision ?? 0) + 1, status, {});
    },
    async getStatus(connectorId) {
      return (await read<ConnectorStatus>('status', connectorId))?.record ?? null;
    },
  };
}
