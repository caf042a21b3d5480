import { randomUUID } from 'node:crypto';
import { responsePrefixOf, type IdempotencyBegin, type IdempotencyScope, type IdempotencyStore } from '../idempotency-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { sql } from './sql.ts';

/**
 * IdempotencyStore on ClickHouse (migration 012, table idempotency_events), shared by every API
 * process of the distributed deployment, so a key sent to two processes at once gives one job.
 *
 * ClickHouse has no insert-if-absent; the single winner comes from insert deduplication: a claim
 * of generation n of (scope, key) is inserted with the deduplication token `scope/key/n`, the
 * table remembers recent tokens, and of concurrent inserts with one token exactly one row is
 * stored (the check and the commit happen under the table's parts lock). Every claimer then reads
 * the generation back: the stored owner is the winner; everyone else sees an ordinary in-flight
 * claim. A generation ends by its answer (`done`, replayed until expires), by `abandon`, by expiry
 * or by its lease running out; then the next claim is for generation n + 1, a new token.
 */
interface EventRow {
  epoch: string;
  kind: 'claim' | 'done' | 'abandon';
  owner: string;
  fingerprint: string;
  status: number;
  body: string;
  expires_ms: string;
  lease_ms: string;
}

const scopeText = (scope: IdempotencyScope) => `${scope.orgId}\u0000${scope.mode}\u0000${scope.endpoint}`;

export function createClickHouseIdempotencyStore(conn: ClickHouseConnection): IdempotencyStore {
  const table = conn.table('idempotency_events');
  /** Generations this process won and has not answered yet: complete/abandon name no epoch. */
  const mine = new Map<string, { epoch: number; owner: string }>();

  async function latest(scope: string, key: string): Promise<{ epoch: number; claim: EventRow | null; end: EventRow | null }> {
    const rows = await conn.rows<EventRow>(sql`SELECT epoch, kind, owner, fingerprint, status, body, expires_ms, lease_ms
      FROM ${table} WHERE scope = ${scope} AND key = ${key}
      AND epoch = (SELECT max(epoch) FROM ${table} WHERE scope = ${scope} AND key = ${key})`);
    if (rows.length === 0) return { epoch: 0, claim: null, end: null };
    return {
      epoch: Number(rows[0].epoch),
      claim: rows.find((r) => r.kind === 'claim') ?? null,
      // A generation ends once: the first answer or release written is what counts.
      end: rows.find((r) => r.kind === 'done') ?? rows.find((r) => r.kind === 'abandon') ?? null,
    };
  }

  /** What a claim that is still live means for a caller with `fingerprint`; null when it is over. */
  function liveOutcome(claim: EventRow | null, end: EventRow | null, fingerprint: string, now: number): IdempotencyBegin | null {
    if (!claim || Number(claim.expires_ms) <= now || end?.kind === 'abandon') return null;
    const done = end?.kind === 'done';
    if (!done && Number(claim.lease_ms) <= now) return null;
    if (claim.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (!done) return { kind: 'in_flight' };
    return { kind: 'replay', response: { status: Number(end.status), body: end.body } };
  }

  async function insertEvent(scope: string, key: string, epoch: number, event: Partial<EventRow> & { kind: EventRow['kind'] }, token: string): Promise<void> {
    await conn.client.insert({
      table: table.name,
      format: 'JSONEachRow',
      values: [{ scope, key, epoch, owner: '', fingerprint: '', status: 0, body: '', expires_ms: 0, lease_ms: 0, ...event }],
      clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: token },
    });
  }

  return {
    async begin(scope, key, fingerprint, { now, expiresAt, leaseUntil }) {
      const s = scopeText(scope);
      const at = now.getTime();
      const current = await latest(s, key);
      const live = liveOutcome(current.claim, current.end, fingerprint, at);
      if (live) return live;
      const epoch = current.epoch + 1;
      const owner = randomUUID();
      // Every claimer tries the same tokens in the same order and takes the next one only when
      // its insert left no claim of this generation at all: that happens when the table still
      // remembers a token of a purged generation (a key used again after its records expired).
      // So at most one token of a generation ever stores a row, and its owner is the winner.
      for (let attempt = 0; attempt < 5; attempt++) {
        await insertEvent(s, key, epoch, {
          kind: 'claim', owner, fingerprint, expires_ms: String(expiresAt.getTime()), lease_ms: String(leaseUntil.getTime()),
        }, `${s}\u0000${key}\u0000${epoch}\u0000claim\u0000${attempt}`);
        const after = await latest(s, key);
        if (after.epoch < epoch) continue;
        if (after.epoch === epoch && after.claim?.owner === owner) {
          mine.set(`${s}\u0000${key}`, { epoch, owner });
          return { kind: 'started' };
        }
        // Another process won this generation (or already moved past it): as any later caller.
        return liveOutcome(after.claim, after.end, fingerprint, at) ?? { kind: 'in_flight' };
      }
      throw new Error('idempotency claim: no generation could be stored');
    },

    async complete(scope, key, response) {
      const s = scopeText(scope);
      const claimed = mine.get(`${s}\u0000${key}`);
      if (!claimed) return;
      mine.delete(`${s}\u0000${key}`);
      await insertEvent(s, key, claimed.epoch, { kind: 'done', owner: claimed.owner, status: response.status, body: response.body },
        `${s}\u0000${key}\u0000${claimed.epoch}\u0000end\u0000${claimed.owner}`);
    },

    async abandon(scope, key) {
      const s = scopeText(scope);
      const claimed = mine.get(`${s}\u0000${key}`);
      if (!claimed) return;
      mine.delete(`${s}\u0000${key}`);
      await insertEvent(s, key, claimed.epoch, { kind: 'abandon', owner: claimed.owner }, `${s}\u0000${key}\u0000${claimed.epoch}\u0000end\u0000${claimed.owner}`);
    },

    async purgeExpired(now) {
      const [{ n }] = await conn.rows<{ n: string }>(sql`SELECT count() AS n FROM ${table} WHERE expires_ms < ${now.getTime()} AND kind = 'claim'`);
      if (Number(n) === 0) return 0;
      // Every event of an expired generation goes (done rows carry expires_ms 0, so they are
      // matched through their claim).
      await conn.command(sql`ALTER TABLE ${table} DELETE WHERE (scope, key, epoch) IN
        (SELECT scope, key, epoch FROM ${table} WHERE kind = 'claim' AND expires_ms < ${now.getTime()})`, { mutations_sync: '2' });
      return Number(n);
    },

    async forgetResponsesAbout(id) {
      const prefix = responsePrefixOf(id);
      // Rare (a job purge) and must be done when the purge answers: a mutation waited for, as
      // purgeExpired. Every event of the generation goes, so no claim is left without its end.
      await conn.command(sql`ALTER TABLE ${table} DELETE WHERE (scope, key, epoch) IN
        (SELECT scope, key, epoch FROM ${table} WHERE kind = 'done' AND startsWith(body, ${prefix}))`, { mutations_sync: '2' });
    },
  };
}
