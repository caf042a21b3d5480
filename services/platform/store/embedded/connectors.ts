import type { DatabaseSync } from 'node:sqlite';
import type { Connector, ConnectorStatus, ConnectorStore } from '../connectors-port.ts';

/**
 * ConnectorStore on the embedded database: one row per connector and per status, the searched
 * columns beside the whole record as JSON (the port's shape, so nothing restates it). Each call is
 * one statement, durable when its promise resolves.
 */
export function createEmbeddedConnectorStore(db: DatabaseSync): ConnectorStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS connectors (
      id TEXT PRIMARY KEY, org_id TEXT NOT NULL, removed INTEGER NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS connector_status (connector_id TEXT PRIMARY KEY, body TEXT NOT NULL);
  `);
  const insert = db.prepare('INSERT INTO connectors (id, org_id, removed, created_at, body) VALUES (?, ?, ?, ?, ?)');
  const selectOne = db.prepare('SELECT body FROM connectors WHERE id = ?');
  const selectAll = db.prepare('SELECT body FROM connectors WHERE removed = 0 ORDER BY created_at, id');
  const selectOrg = db.prepare('SELECT body FROM connectors WHERE removed = 0 AND org_id = ? ORDER BY created_at, id');
  const update = db.prepare('UPDATE connectors SET removed = ?, body = ? WHERE id = ?');
  const upsertStatus = db.prepare(`INSERT INTO connector_status (connector_id, body) VALUES (?, ?)
    ON CONFLICT (connector_id) DO UPDATE SET body = excluded.body`);
  const selectStatus = db.prepare('SELECT body FROM connector_status WHERE connector_id = ?');
  const parse = <T>(row: unknown): T => JSON.parse((row as { body: string }).body) as T;

  return {
    async createConnector(connector) {
      insert.run(connector.id, connector.org_id, connector.removed_at ? 1 : 0, connector.created_at, JSON.stringify(connector));
    },
    async getConnector(id) {
      const row = selectOne.get(id);
      return row ? parse<Connector>(row) : null;
    },
    async listConnectors(orgId) {
      return (orgId === undefined ? selectAll.all() : selectOrg.all(orgId)).map((row) => parse<Connector>(row));
    },
    async removeConnector(id, at) {
      const row = selectOne.get(id);
      if (!row) return false;
      const connector = parse<Connector>(row);
      update.run(1, JSON.stringify({ ...connector, removed_at: connector.removed_at ?? at }), id);
      return true;
    },
    async recordStatus(status) {
      upsertStatus.run(status.connector_id, JSON.stringify(status));
    },
    async getStatus(connectorId) {
      const row = selectStatus.get(connectorId);
      return row ? parse<ConnectorStatus>(row) : null;
    },
  };
}
