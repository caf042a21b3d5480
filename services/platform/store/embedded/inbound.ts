import type { DatabaseSync } from 'node:sqlite';
import { embeddedRemovableRecords } from './removable-records.ts';
import { dropFolderOperationsOf, patchedClaim, type AllowedSender, type DropFolder, type DropFolderStatus, type InboundClaim, type InboundStore } from '../inbound-port.ts';

/**
 * InboundStore on the embedded database. Each record is one row: the columns that are searched
 * on, and the whole record as JSON (the record's shape is the port's, so nothing restates it).
 * Each call is one statement, durable (synchronous=FULL) when its promise resolves.
 */
export function createEmbeddedInboundStore(db: DatabaseSync): InboundStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS allowed_senders (
      org_id TEXT NOT NULL, address TEXT NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL,
      PRIMARY KEY (org_id, address)
    );
    CREATE TABLE IF NOT EXISTS inbound_claims (
      id TEXT PRIMARY KEY, channel TEXT NOT NULL, source_ref TEXT NOT NULL, state TEXT NOT NULL,
      delete_after TEXT, created_at TEXT NOT NULL, body TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS inbound_claims_open ON inbound_claims (channel, source_ref, state);
    CREATE INDEX IF NOT EXISTS inbound_claims_due ON inbound_claims (state, delete_after);
  `);
  const folders = embeddedRemovableRecords<DropFolder, DropFolderStatus>(db, { records: 'drop_folders', statuses: 'drop_folder_status', statusKey: 'folder_id' });
  const upsertSender = db.prepare(`INSERT INTO allowed_senders (org_id, address, created_at, body) VALUES (?, ?, ?, ?)
    ON CONFLICT (org_id, address) DO UPDATE SET body = excluded.body`);
  const deleteSender = db.prepare('DELETE FROM allowed_senders WHERE org_id = ? AND address = ?');
  const selectSender = db.prepare('SELECT body FROM allowed_senders WHERE address = ? ORDER BY created_at, org_id LIMIT 1');
  const selectSenders = db.prepare('SELECT body FROM allowed_senders ORDER BY created_at, org_id, address');
  const selectOrgSenders = db.prepare('SELECT body FROM allowed_senders WHERE org_id = ? ORDER BY created_at, address');
  const insertClaim = db.prepare(`INSERT INTO inbound_claims (id, channel, source_ref, state, delete_after, created_at, body)
    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`);
  const selectClaim = db.prepare('SELECT body FROM inbound_claims WHERE id = ?');
  const updateClaimRow = db.prepare('UPDATE inbound_claims SET state = ?, delete_after = ?, body = ? WHERE id = ?');
  const selectOpen = db.prepare(`SELECT body FROM inbound_claims WHERE channel = ? AND source_ref = ?
    AND state IN ('claimed', 'job_created') ORDER BY created_at, id`);
  const selectDue = db.prepare(`SELECT body FROM inbound_claims WHERE state != 'deleted'
    AND delete_after IS NOT NULL AND delete_after <= ? ORDER BY delete_after, id LIMIT ?`);

  const parse = <T>(row: unknown): T => JSON.parse((row as { body: string }).body) as T;
  const parseAll = <T>(rows: unknown[]): T[] => rows.map((row) => parse<T>(row));

  function readClaim(id: string): InboundClaim | null {
    const row = selectClaim.get(id);
    return row ? parse<InboundClaim>(row) : null;
  }

  return {
    ...dropFolderOperationsOf(folders),
    async addSender(sender) {
      const stored: AllowedSender = { ...sender, address: sender.address.toLowerCase() };
      upsertSender.run(stored.org_id, stored.address, stored.created_at, JSON.stringify(stored));
    },
    async removeSender(orgId, address) {
      return Number(deleteSender.run(orgId, address.toLowerCase()).changes) > 0;
    },
    async findSender(address) {
      const row = selectSender.get(address.toLowerCase());
      return row ? parse<AllowedSender>(row) : null;
    },
    async listSenders(orgId) {
      return parseAll<AllowedSender>(orgId === undefined ? selectSenders.all() : selectOrgSenders.all(orgId));
    },

    async claim(claim) {
      insertClaim.run(claim.id, claim.channel, claim.source_ref, claim.state, claim.delete_after, claim.created_at, JSON.stringify(claim));
      return readClaim(claim.id) as InboundClaim;
    },
    async getClaim(id) {
      return readClaim(id);
    },
    async updateClaim(id, patch) {
      const current = readClaim(id);
      if (!current) return null;
      const next = patchedClaim(current, patch);
      updateClaimRow.run(next.state, next.delete_after, JSON.stringify(next), id);
      return next;
    },
    async listOpenClaims(channel, sourceRef) {
      return parseAll<InboundClaim>(selectOpen.all(channel, sourceRef));
    },
    async listClaimsDue(now, limit) {
      return parseAll<InboundClaim>(selectDue.all(now, limit));
    },
  };
}
