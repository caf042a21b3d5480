import { describe, expect, it } from 'vitest';
import { TEST_LIST_VERSION } from '../../../services/domain/index.ts';
import { bearer, build, LIVE_ENTRIES } from './helper.ts';

const soren = { id: 's', first_name: 'Søren', last_name: 'Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' };

describe('tenant isolation', () => {
  it("each key acts for its own organisation only (stop line, idempotency records)", async () => {
    const { app, orgA, orgB } = await build({ liveEntries: LIVE_ENTRIES });
    const payload = { people: [{ first_name: 'Anders', last_name: 'Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' }] };
    const headers = { 'idempotency-key': 'shared-key-1' };
    const a = await app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(orgA.liveKey), ...headers }, payload });
    const b = await app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(orgB.liveKey), ...headers }, payload });
    expect(a.json().results[0].stop_level).toBe(1);
    // Org B's identical key and body is not org A's record: it is checked afresh with B's stop line.
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().results[0].stop_level).toBe(3);
  });

  it('a revoked key is 401 while the organisation\'s other keys keep working', async () => {
    const { app, accounts, orgA } = await build();
    const live = (await accounts.listKeys(orgA.org.id)).find((k) => k.mode === 'live')!;
    await accounts.revokeKey(live.id, new Date().toISOString());
    const revoked = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(orgA.liveKey) });
    expect(revoked.statusCode).toBe(401);
    const other = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(orgA.testKey) });
    expect(other.statusCode).toBe(200);
  });

  it('a key whose stored mode disagrees with its prefix is 401', async () => {
    const { app, accounts, orgA } = await build();
    const { hashApiKey, apiKeyPrefix } = await import('../../../services/platform/api-keys.ts');
    const text = `rl_test_${'A'.repeat(40)}`;
    await accounts.createKey({
      id: crypto.randomUUID(), org_id: orgA.org.id, mode: 'live', key_hash: hashApiKey(text), prefix: apiKeyPrefix(text),
      created_at: new Date().toISOString(), revoked_at: null,
    });
    const response = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(text) });
    expect(response.statusCode).toBe(401);
  });
});

describe('test keys (docs/decisions.md §3)', () => {
  it('work with no active list version while live keys get 503', async () => {
    const { app, orgA } = await build();
    const payload = { people: [{ id: 'r', name: 'Anne Robinson', address: 'Vestergade 1, 8000 Aarhus C' }] };
    const test = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(orgA.testKey), payload });
    expect(test.statusCode).toBe(200);
    expect(test.json().list_version).toEqual(TEST_LIST_VERSION);
    expect(test.json().results[0]).toMatchObject({ id: 'r', status: 'blocked', match: { level: 5 } });
    const live = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(orgA.liveKey), payload });
    expect(live.statusCode).toBe(503);
    expect(live.headers['retry-after']).toBe('30');
    const version = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(orgA.testKey) });
    expect(version.json()).toEqual(TEST_LIST_VERSION);
    const liveVersion = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(orgA.liveKey) });
    expect(liveVersion.statusCode).toBe(503);
  });

  it('never read the live list, even when one is active', async () => {
    const ctx = await build({ liveEntries: LIVE_ENTRIES });
    let liveReads = 0;
    const current = ctx.activeIndex.current.bind(ctx.activeIndex);
    ctx.activeIndex.current = () => {
      liveReads += 1;
      return current();
    };
    const test = await ctx.app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(ctx.orgA.testKey), payload: { people: [soren] } });
    // Søren is on the live list at that very flat; the test list knows only the fixed surnames.
    expect(test.json().results[0].match.level).toBe(0);
    expect(test.json().list_version.id).toBe(TEST_LIST_VERSION.id);
    await ctx.app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(ctx.orgA.testKey) });
    expect(liveReads).toBe(0);
    const live = await ctx.app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(ctx.orgA.liveKey), payload: { people: [soren] } });
    expect(live.json().results[0].match.level).toBe(5);
    expect(liveReads).toBe(1);
  });

  it('are not refused for a missing API agreement (never billed), but are for a suspended organisation', async () => {
    const { app, payPerList, suspended } = await build();
    const payload = { people: [{ name: 'Anne Husstand', address: 'Vestergade 1, 8000 Aarhus C' }] };
    const ok = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(payPerList.testKey), payload });
    expect(ok.statusCode).toBe(200);
    const refused = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(suspended.testKey), payload });
    expect(refused.statusCode).toBe(402);
  });
});
