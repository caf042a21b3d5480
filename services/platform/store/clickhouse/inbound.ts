import { dropFolderOperationsOf, patchedClaim, type AllowedSender, type DropFolder, type DropFolderStatus, type InboundClaim, type InboundStore } from '../inbound-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { clickHouseRemovableRecords } from './removable-records.ts';
import { sql, type Statement } from './sql.ts';

/**
 * InboundStore on ClickHouse (infra/clickhouse/migrations/008_inbound.sql): every record is a row
 * of `inbound_records` keyed by (kind, id), written again with revision + 1 on change, read with
 * FINAL. The filter columns (kind, id, org_id, source_ref) never change between revisions of a
 * record; the others (state, removed, delete_after) are filtered after FINAL picks the latest.
 * No unique constraints in ClickHouse: `claim` reads before it writes, which is safe because one
 * inbound process owns a channel (the port's "does not promise").
 */

interface Row {
  revision: string;
  body: string;
}

interface Columns {
  org_id?: string;
  source_ref?: string;
  state?: string;
  delete_after?: string | null;
  created_at?: string;
  removed?: boolean;
}

export function createClickHouseInboundStore(conn: ClickHouseConnection): InboundStore {
  const table = conn.table('inbound_records');

  async function read<T>(kind: string, id: string): Promise<{ revision: number; removed: boolean; record: T } | null> {
    const [row] = await conn.rows<Row & { removed: number }>(
      sql`SELECT revision, removed, body FROM ${table} FINAL WHERE kind = ${kind} AND id = ${id}`,
    );
    return row ? { revision: Number(row.revision), removed: Number(row.removed) === 1, record: JSON.parse(row.body) as T } : null;
  }

  async function write(kind: string, id: string, revision: number, record: object, columns: Columns): Promise<void> {
    await conn.insert('inbound_records', [{
      kind, id, revision,
      org_id: columns.org_id ?? '',
      source_ref: columns.source_ref ?? '',
      state: columns.state ?? '',
      delete_after: columns.delete_after ?? '',
      created_at: columns.created_at ?? '',
      removed: columns.removed ? 1 : 0,
      body: JSON.stringify(record),
    }]);
  }

  const bodies = async <T>(query: Statement): Promise<T[]> =>
    (await conn.rows<Row>(query)).map((row) => JSON.parse(row.body) as T);

  const folders = clickHouseRemovableRecords<DropFolder, DropFolderStatus>(conn, 'inbound_records', { record: 'drop_folder', status: 'folder_status' }, { read, write });
  const senderId = (orgId: string, address: string) => `${orgId}/${address.toLowerCase()}`;
  const claimColumns = (c: InboundClaim): Columns => ({
    org_id: c.org_id, source_ref: `${c.channel}/${c.source_ref}`, state: c.state, delete_after: c.delete_after, created_at: c.created_at,
  });

  return {
    ...dropFolderOperationsOf(folders),
    async addSender(sender) {
      const stored: AllowedSender = { ...sender, address: sender.address.toLowerCase() };
      const id = senderId(stored.org_id, stored.address);
      const current = await read<AllowedSender>('sender', id);
      await write('sender', id, (current?.revision ?? 0) + 1, stored, { org_id: stored.org_id, source_ref: stored.address, created_at: stored.created_at });
    },
    async removeSender(orgId, address) {
      const id = senderId(orgId, address);
      const current = await read<AllowedSender>('sender', id);
      if (!current || current.removed) return false;
      await write('sender', id, current.revision + 1, current.record, {
        org_id: current.record.org_id, source_ref: current.record.address, created_at: current.record.created_at, removed: true,
      });
      return true;
    },
    async findSender(address) {
      const [found] = await bodies<AllowedSender>(sql`SELECT revision, body FROM ${table} FINAL
        WHERE kind = 'sender' AND source_ref = ${address.toLowerCase()} AND removed = 0 ORDER BY created_at, org_id LIMIT 1`);
      return found ?? null;
    },
    async listSenders(orgId) {
      const org = orgId ?? '';
      return bodies<AllowedSender>(sql`SELECT revision, body FROM ${table} FINAL
        WHERE kind = 'sender' AND (${org} = '' OR org_id = ${org}) AND removed = 0 ORDER BY created_at, org_id, source_ref`);
    },

    async claim(claim) {
      const current = await read<InboundClaim>('claim', claim.id);
      if (current) return current.record;
      await write('claim', claim.id, 1, claim, claimColumns(claim));
      return claim;
    },
    async getClaim(id) {
      return (await read<InboundClaim>('claim', id))?.record ?? null;
    },
    async updateClaim(id, patch) {
      const current = await read<InboundClaim>('claim', id);
      if (!current) return null;
      const next = patchedClaim(current.record, patch);
      await write('claim', id, current.revision + 1, next, claimColumns(next));
      return next;
    },
    async listOpenClaims(channel, sourceRef) {
      return bodies<InboundClaim>(sql`SELECT revision, body FROM ${table} FINAL
        WHERE kind = 'claim' AND source_ref = ${`${channel}/${sourceRef}`} AND state IN ('claimed', 'job_created')
        ORDER BY created_at, id`);
    },
    async listClaimsDue(now, limit) {
      return bodies<InboundClaim>(sql`SELECT revision, body FROM ${table} FINAL
        WHERE kind = 'claim' AND state != 'deleted' AND delete_after != '' AND delete_after <= ${now}
        ORDER BY delete_after, id LIMIT ${limit}`);
    },
  };
}
