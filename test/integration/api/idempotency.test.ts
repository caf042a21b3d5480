import { describe, expect, it } from 'vitest';
import { bearer, build, LIVE_ENTRIES } from './helper.ts';

const payload = { people: [{ id: 'a', first_name: 'Søren', last_name: 'Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' }] };

function countingChecks(ctx: Awaited<ReturnType<typeof build>>) {
  const counter = { reads: 0 };
  const current = ctx.activeIndex.current.bind(ctx.activeIndex);
  ctx.activeIndex.current = () => {
    counter.reads += 1;
    return current();
  };
  return counter;
}

describe('Idempotency-Key on POST /v2/checks (docs/decisions.md §6)', () => {
  it('replays the first response with Idempotent-Replayed and does not check again', async () => {
    const ctx = await build({ liveEntries: LIVE_ENTRIES });
    const counter = countingChecks(ctx);
    const send = (body: object) =>
      ctx.app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(ctx.orgA.liveKey), 'idempotency-key': 'order-42' }, payload: body });
    const first = await send(payload);
    // Same body with keys in another order is the same request.
    const second = await send({ people: [{ address: payload.people[0].address, last_name: 'Kjær', first_name: 'Søren', id: 'a' }] });
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(second.headers['request-id']).not.toBe(first.headers['request-id']);
    expect(counter.reads).toBe(1);
  });

  it('is 422 idempotency_key_reused for the same key with another body', async () => {
    const { app, orgA } = await build();
    const headers = { ...bearer(orgA.testKey), 'idempotency-key': 'k-1', 'accept-language': 'en' };
    expect((await app.inject({ method: 'POST', url: '/v2/checks', headers, payload })).statusCode).toBe(200);
    const reused = await app.inject({ method: 'POST', url: '/v2/checks', headers, payload: { ...payload, stop_level: 4 } });
    expect(reused.statusCode).toBe(422);
    expect(reused.json().error).toMatchObject({ code: 'invalid_request', details: { reason: 'idempotency_key_reused' } });
  });

  it('scopes keys by mode: the same key under the test key is a new call', async () => {
    const { app, orgA } = await build({ liveEntries: LIVE_ENTRIES });
    const live = await app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(orgA.liveKey), 'idempotency-key': 'k' }, payload });
    const test = await app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(orgA.testKey), 'idempotency-key': 'k' }, payload });
    expect(live.json().results[0].match.level).toBe(5);
    expect(test.headers['idempotent-replayed']).toBeUndefined();
    expect(test.json().results[0].match.level).toBe(0);
  });

  it('forgets keys after 24 hours and does not remember failed calls', async () => {
    let now = new Date('2026-11-21T10:00:00Z');
    const ctx = await build({ clock: () => now });
    const send = (key: string) =>
      ctx.app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(ctx.orgA.liveKey), 'idempotency-key': key }, payload });
    // No active list: 503, and the key is released so the retry runs.
    expect((await send('retry-me')).statusCode).toBe(503);
    expect((await send('retry-me')).statusCode).toBe(503);

    const testSend = () =>
      ctx.app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(ctx.orgA.testKey), 'idempotency-key': 'day' }, payload });
    expect((await testSend()).headers['idempotent-replayed']).toBeUndefined();
    now = new Date('2026-11-22T09:59:00Z');
    expect((await testSend()).headers['idempotent-replayed']).toBe('true');
    now = new Date('2026-11-22T10:00:01Z');
    expect((await testSend()).headers['idempotent-replayed']).toBeUndefined();
  });

  it('rejects a key longer than 255 characters', async () => {
    const { app, orgA } = await build();
    const response = await app.inject({
      method: 'POST',
      url: '/v2/checks',
      headers: { ...bearer(orgA.testKey), 'idempotency-key': 'k'.repeat(256) },
      payload,
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.reason).toBe('idempotency_key_invalid');
  });
});

describe('rate limit on POST /v2/checks (docs/decisions.md §11)', () => {
  it('allows the burst, then 429 with Retry-After, per key, and refills with time', async () => {
    let now = new Date('2026-11-21T10:00:00Z');
    const { app, orgA, orgB } = await build({ ratePerSecond: 2, burst: 3, clock: () => now });
    const send = (key: string) => app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(key), payload });
    for (let i = 0; i < 3; i++) expect((await send(orgA.testKey)).statusCode).toBe(200);
    const limited = await send(orgA.testKey);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.json().error.code).toBe('rate_limited');
    // Another key (even of another organisation) has its own bucket.
    expect((await send(orgB.testKey)).statusCode).toBe(200);
    // The address route is not limited.
    const resolve = await app.inject({ method: 'POST', url: '/v2/addresses/resolve', headers: bearer(orgA.testKey), payload: { addresses: [] } });
    expect(resolve.statusCode).toBe(200);
    now = new Date(now.getTime() + 500);
    expect((await send(orgA.testKey)).statusCode).toBe(200);
    expect((await send(orgA.testKey)).statusCode).toBe(429);
  });
});
