import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../../services/admin/keys.ts';
import { createAuthenticator } from '../../../services/api/auth.ts';
import { cachedAccounts } from '../../../services/api/cached-accounts.ts';
import { ApiError } from '../../../services/api/errors.ts';
import { createEmbeddedAccountStore } from '../../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import type { AccountStore } from '../../../services/platform/store/accounts-port.ts';

/**
 * The authentication cache (docs/api-decisions.md "Authentication cache"): a key revoked or an
 * organisation suspended by another process (the admin tool: here a second handle on the same
 * database file) is refused once AUTH_CACHE_MS has passed since the answer was read, not before
 * and not later; a key issued a moment ago works at once.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const BOUND_MS = 2000;

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'auth-cache-'));
  dirs.push(dir);
  const file = join(dir, 'robinson.sqlite');
  const api: AccountStore = createEmbeddedAccountStore(openEmbeddedDatabase(file));
  const admin: AccountStore = createEmbeddedAccountStore(openEmbeddedDatabase(file));
  let now = 1_000_000;
  let reads = 0;
  /** Reads fail while set (the store unreachable); a held key read answers what it read only when the gate opens. */
  const faults: { failing: boolean; holdKeyReads: Promise<void> | null } = { failing: false, holdKeyReads: null };
  const counted: AccountStore = {
    ...api,
    findKeyByHash: async (hash) => {
      reads++;
      if (faults.failing) throw new Error('the account store does not answer');
      const record = await api.findKeyByHash(hash);
      if (faults.holdKeyReads) await faults.holdKeyReads;
      return record;
    },
    getOrganisation: async (id) => {
      reads++;
      if (faults.failing) throw new Error('the account store does not answer');
      return api.getOrganisation(id);
    },
  };
  const cached = cachedAccounts(counted, { maxStaleMs: BOUND_MS, now: () => now });
  const authenticate = createAuthenticator(cached);
  const orgId = randomUUID();
  await admin.createOrganisation({
    id: orgId, name: 'Acme', stop_level: 1, plan: 'annual', api_agreement: false, suspended: false,
    retention_days: 30, addons: [], created_at: new Date().toISOString(),
  });
  /** The status the API would answer: 200 when authenticated, else the error's. */
  const statusOf = async (key: string) => {
    const request = { headers: { authorization: `Bearer ${key}` } } as unknown as FastifyRequest;
    try {
      await authenticate(request);
      return 200;
    } catch (error) {
      if (error instanceof ApiError) return error.status;
      throw error;
    }
  };
  return { admin, cached, orgId, statusOf, faults, advance: (ms: number) => { now += ms; }, reads: () => reads };
}

describe('the authentication cache', () => {
  it('a revoked key is refused once the bound has passed since its record was read, and not later', async () => {
    const { admin, orgId, statusOf, advance, reads } = await setup();
    const issued = await issueApiKey(admin, orgId, 'live');
    expect(await statusOf(issued.key)).toBe(200);
    const readsAfterFirst = reads();
    expect(await statusOf(issued.key)).toBe(200);
    expect(reads(), 'the second request is answered from the cache').toBe(readsAfterFirst);

    await admin.revokeKey(issued.record.id, new Date().toISOString());
    advance(BOUND_MS - 1);
    expect(await statusOf(issued.key), 'within the documented bound the old answer may stand').toBe(200);
    advance(1);
    expect(await statusOf(issued.key), 'at the bound it is read again: revoked').toBe(401);
  });

  it('used in the second half of its bound, an entry is read again behind the request: steady traffic never waits for a read', async () => {
    const { admin, orgId, statusOf, faults, advance, reads } = await setup();
    const issued = await issueApiKey(admin, orgId, 'live');
    expect(await statusOf(issued.key)).toBe(200);
    const first = reads();
    advance(BOUND_MS * 0.75);
    expect(await statusOf(issued.key)).toBe(200);
    expect(reads(), 'key and organisation read again').toBe(first + 2);
    // The store's reads answer at once (no I/O): one turn of the event loop and both are kept.
    await new Promise((resolve) => setImmediate(resolve));
    // Past the first read's bound, within the second's: answered from the cache, no read of its own.
    faults.failing = true;
    advance(BOUND_MS * 0.5);
    expect(await statusOf(issued.key)).toBe(200);
    // Past the second read's bound too: read again, and that read's failure is the request's.
    advance(BOUND_MS);
    await expect(statusOf(issued.key)).rejects.toThrow('does not answer');
  });

  it('a read that began before a revoke through the cached store is not kept: the key is refused at once', async () => {
    const { admin, cached, orgId, statusOf, faults, advance } = await setup();
    const issued = await issueApiKey(admin, orgId, 'live');
    expect(await statusOf(issued.key)).toBe(200);
    let open!: () => void;
    faults.holdKeyReads = new Promise<void>((resolve) => (open = resolve));
    advance(BOUND_MS * 0.75);
    // Answered from the cache; its refresh has read the key as it was and waits to answer.
    expect(await statusOf(issued.key)).toBe(200);
    await cached.revokeKey(issued.record.id, new Date().toISOString());
    faults.holdKeyReads = null;
    open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await statusOf(issued.key), 'no time passed').toBe(401);
  });

  it('a suspended organisation gets 402 once the bound has passed', async () => {
    const { admin, orgId, statusOf, advance } = await setup();
    const issued = await issueApiKey(admin, orgId, 'test');
    expect(await statusOf(issued.key)).toBe(200);
    await admin.updateOrganisation(orgId, { suspended: true });
    advance(BOUND_MS);
    expect(await statusOf(issued.key)).toBe(402);
  });

  it('an unknown key is not remembered: issued a moment later, it works on its next request', async () => {
    const { admin, orgId, statusOf } = await setup();
    // A made-up key of the right shape: a miss, which is not kept.
    expect(await statusOf(`rl_live_${'A'.repeat(40)}`)).toBe(401);
    const issued = await issueApiKey(admin, orgId, 'live');
    expect(await statusOf(issued.key), 'no time passed').toBe(200);
  });

  it('a key revoked or an organisation suspended through the cached store itself (the portal) is refused at once', async () => {
    const { admin, cached, orgId, statusOf } = await setup();
    const issued = await issueApiKey(admin, orgId, 'live');
    const other = await issueApiKey(admin, orgId, 'live');
    expect(await statusOf(issued.key)).toBe(200);
    expect(await statusOf(other.key)).toBe(200);
    await cached.revokeKey(issued.record.id, new Date().toISOString());
    expect(await statusOf(issued.key), 'no time passed').toBe(401);
    expect(await statusOf(other.key), 'the other key is untouched').toBe(200);
    await cached.updateOrganisation(orgId, { suspended: true });
    expect(await statusOf(other.key), 'no time passed').toBe(402);
  });
});
