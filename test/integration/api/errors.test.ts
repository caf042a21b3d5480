import { describe, expect, it } from 'vitest';
import { message, type MessageKey } from '../../../services/api/messages.ts';
import type { Locale } from '../../../services/domain/types.ts';
import { bearer, build, errorOf } from './helper.ts';

type Ctx = Awaited<ReturnType<typeof build>>;

interface Case {
  name: string;
  status: number;
  code: string;
  messageKey: MessageKey;
  options?: Parameters<typeof build>[0];
  request: (ctx: Ctx, locale: Locale) => { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string | object };
  /** Requests sent first (e.g. to use up the rate limit). */
  before?: (ctx: Ctx, locale: Locale) => Promise<void>;
}

const person = { id: 'p1', name: 'Jens Jensen', address: 'Vestergade 12, 8000 Aarhus C' };
const checks = (key: string, payload: string | object, headers: Record<string, string> = {}) => ({
  method: 'POST' as const,
  url: '/v2/checks',
  headers: { ...bearer(key), ...headers },
  payload,
});

const cases: Case[] = [
  {
    name: 'invalid JSON',
    status: 400,
    code: 'invalid_request',
    messageKey: 'invalid_json',
    request: (c) => ({ ...checks(c.orgA.testKey, '{"people": [', { 'content-type': 'application/json' }) }),
  },
  {
    name: 'missing key',
    status: 401,
    code: 'unauthorized',
    messageKey: 'unauthorized',
    request: () => ({ method: 'POST', url: '/v2/checks', payload: { people: [person] } }),
  },
  {
    name: 'pay_per_list without API agreement (live key)',
    status: 402,
    code: 'payment_required',
    messageKey: 'no_api_agreement',
    request: (c) => checks(c.payPerList.liveKey, { people: [person] }),
  },
  {
    name: 'suspended organisation on a free route',
    status: 402,
    code: 'payment_required',
    messageKey: 'suspended',
    request: (c) => ({ method: 'POST', url: '/v2/addresses/resolve', headers: bearer(c.suspended.liveKey), payload: { addresses: [] } }),
  },
  {
    name: 'unknown route',
    status: 404,
    code: 'not_found',
    messageKey: 'not_found',
    request: (c) => ({ method: 'GET', url: '/v2/nothing-here', headers: bearer(c.orgA.liveKey) }),
  },
  {
    name: 'Idempotency-Key in flight',
    status: 409,
    code: 'conflict',
    messageKey: 'idempotency_in_flight',
    before: async (c, locale) => {
      // Claim the key as a request that is still running would (fingerprint of the same body).
      const { createEmbeddedIdempotencyStore } = await import('../../../services/platform/store/embedded/idempotency.ts');
      const { canonicalJson } = await import('../../../services/api/idempotency.ts');
      const { createHash } = await import('node:crypto');
      const now = new Date();
      await createEmbeddedIdempotencyStore(c.db).begin(
        { orgId: c.orgA.org.id, mode: 'test', endpoint: 'POST /v2/checks' },
        `busy-${locale}`,
        createHash('sha256').update(canonicalJson({ people: [person] })).digest('hex'),
        { now, expiresAt: new Date(now.getTime() + 60_000), leaseUntil: new Date(now.getTime() + 60_000) },
      );
    },
    request: (c, locale) => checks(c.orgA.testKey, { people: [person] }, { 'idempotency-key': `busy-${locale}` }),
  },
  {
    name: 'body over 5 MB',
    status: 413,
    code: 'invalid_request',
    messageKey: 'body_too_large',
    request: (c) => checks(c.orgA.testKey, { people: [{ name: 'x'.repeat(5 * 1024 * 1024) }] }),
  },
  {
    name: 'schema violation',
    status: 422,
    code: 'invalid_request',
    messageKey: 'validation',
    request: (c) => checks(c.orgA.testKey, { people: [] }),
  },
  {
    name: 'rate limited',
    status: 429,
    code: 'rate_limited',
    messageKey: 'rate_limited',
    options: { ratePerSecond: 1, burst: 1, clock: () => new Date('2026-11-21T10:00:00Z') },
    before: async (c) => {
      const first = await c.app.inject(checks(c.orgA.testKey, { people: [person] }));
      expect(first.statusCode).toBe(200);
    },
    request: (c) => checks(c.orgA.testKey, { people: [person] }),
  },
  {
    name: 'no active list for a live check',
    status: 503,
    code: 'list_not_ready',
    messageKey: 'list_not_ready',
    request: (c) => checks(c.orgA.liveKey, { people: [person] }),
  },
  {
    name: 'internal error',
    status: 500,
    code: 'internal_error',
    messageKey: 'internal_error',
    options: {
      wrapAccounts: (accounts) => ({
        ...accounts,
        findKeyByHash: async () => {
          throw new Error('db exploded while reading Jens Jensen, Vestergade 12');
        },
      }),
    },
    request: (c) => checks(c.orgA.testKey, { people: [person] }),
  },
];

describe('HTTP errors (docs/decisions.md §5) in both languages', () => {
  for (const testCase of cases) {
    for (const locale of ['da', 'en'] as const) {
      it(`${testCase.status} ${testCase.code}: ${testCase.name} (${locale})`, async () => {
        const ctx = await build(testCase.options);
        await testCase.before?.(ctx, locale);
        const request = testCase.request(ctx, locale);
        const headers = { ...request.headers, 'accept-language': locale === 'da' ? 'da-DK,da;q=0.9' : 'en-GB,en;q=0.8' };
        const response = await ctx.app.inject({ ...request, headers });

        expect(response.statusCode).toBe(testCase.status);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        const error = errorOf(response);
        expect(error.code).toBe(testCase.code);
        expect(error.message).toBe(message(testCase.messageKey, locale));
        expect(error.request_id).toBeTruthy();
        expect(response.headers['request-id']).toBe(error.request_id);
        // No personal data of the request ever comes back in an error.
        expect(response.body).not.toContain('Jensen');
        expect(response.body).not.toContain('Vestergade');
        if (testCase.status === 429 || testCase.status === 503) {
          expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        }
        if (testCase.status === 401) expect(response.headers['www-authenticate']).toBe('Bearer');
      });
    }
  }

  it('defaults to Danish without Accept-Language and for other languages', async () => {
    const { app } = await build();
    for (const headers of [{}, { 'accept-language': 'de-DE, fr;q=0.5' }]) {
      const response = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers });
      expect(response.statusCode).toBe(401);
      expect(errorOf(response).message).toBe(message('unauthorized', 'da'));
    }
  });

  it('422 lists every issue with a path and never echoes the value', async () => {
    const { app, orgA } = await build();
    const secret = 'Hemmelig Person Gade 7';
    const response = await app.inject(
      checks(
        orgA.testKey,
        { people: [{ name: 'ok' }, { name: secret.repeat(20), shoe_size: '44' }], stop_level: 9, policy: 'lenient' },
        { 'accept-language': 'en' },
      ),
    );
    expect(response.statusCode).toBe(422);
    const error = errorOf(response);
    const issues = (error.details as { issues: Array<{ path: string; message: string }> }).issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'people[1].name', message: 'Must be at most 200 characters.' },
        { path: 'people[1].shoe_size', message: 'Unknown field.' },
        { path: 'stop_level', message: 'Must be at most 5.' },
        { path: 'policy', message: 'Must be one of "standard", "strict", "bdq".' },
      ]),
    );
    expect(response.body).not.toContain('Hemmelig');
    expect(response.body).not.toContain('lenient');
  });

  it('422 for an unknown key that is not a field name names the object, not the key', async () => {
    const { app, orgA } = await build();
    const response = await app.inject(checks(orgA.testKey, { people: [{ name: 'ok', 'Hemmelig Person': 'x' }] }, { 'accept-language': 'en' }));
    expect(response.statusCode).toBe(422);
    const issues = (errorOf(response).details as { issues: Array<{ path: string; message: string }> }).issues;
    expect(issues).toEqual([{ path: 'people[0]', message: 'Unknown field.' }]);
    expect(response.body).not.toContain('Hemmelig');
  });

  it('422 in Danish for a missing people array and 1001 people', async () => {
    const { app, orgA } = await build();
    const missing = await app.inject(checks(orgA.testKey, { policy: 'strict' }));
    expect(missing.statusCode).toBe(422);
    expect((errorOf(missing).details as { issues: unknown[] }).issues).toEqual([{ path: 'people', message: 'Skal udfyldes.' }]);
    const tooMany = await app.inject(checks(orgA.testKey, { people: Array.from({ length: 1001 }, () => ({ name: 'A B' })) }));
    expect(tooMany.statusCode).toBe(422);
    expect((errorOf(tooMany).details as { issues: unknown[] }).issues).toEqual([
      { path: 'people', message: 'Skal have højst 1000 elementer.' },
    ]);
  });

  it('400 (not 500) for other client errors fastify finds, e.g. a malformed URL', async () => {
    const { app, orgA } = await build();
    const response = await app.inject({ method: 'GET', url: '/v2/list-versions/%zz', headers: { ...bearer(orgA.testKey), 'accept-language': 'en' } });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'invalid_request', message: message('bad_request', 'en') });
    expect(response.headers['request-id']).toBe(errorOf(response).request_id);
  });

  it('422 "Is required" for a POST without a body', async () => {
    const { app, orgA } = await build();
    const response = await app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(orgA.testKey), 'accept-language': 'en' } });
    expect(response.statusCode).toBe(422);
    expect(errorOf(response).details).toEqual({ issues: [{ path: '', message: 'Is required.' }] });
  });

  it('400 for a non-JSON content type; 405 with Allow for a known path with another method; Request-Id on success too', async () => {
    const { app, orgA } = await build();
    const text = await app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(orgA.testKey), 'content-type': 'text/plain' }, payload: 'hello' });
    expect(text.statusCode).toBe(400);
    expect(errorOf(text).code).toBe('invalid_request');
    const wrongMethod = await app.inject({ method: 'DELETE', url: '/v2/checks', headers: { ...bearer(orgA.testKey), 'accept-language': 'en' } });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
    expect(errorOf(wrongMethod)).toMatchObject({ code: 'invalid_request', details: { reason: 'method_not_allowed' } });
    expect(errorOf(wrongMethod).message).toContain('Allow');
    const withQuery = await app.inject({ method: 'PUT', url: '/v2/list-versions/current?x=1' });
    expect(withQuery.statusCode).toBe(405);
    expect(withQuery.headers.allow).toBe('GET, HEAD');
    // QUERY without a Content-Type (fastify's own 400 if the route existed) is 405 too.
    const query = await app.inject({ method: 'QUERY', url: '/v2/list-versions/current' });
    expect(query.statusCode).toBe(405);
    expect(query.headers.allow).toBe('GET, HEAD');
    const unknownPath = await app.inject({ method: 'DELETE', url: '/v2/nothing-here' });
    expect(unknownPath.statusCode).toBe(404);
    expect(unknownPath.headers.allow).toBeUndefined();
    const ok = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(orgA.testKey) });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('401 is the same for malformed, unknown, revoked and wrong-scheme keys', async () => {
    const { app, accounts, orgA } = await build();
    const [liveKeyRecord] = (await accounts.listKeys(orgA.org.id)).filter((k) => k.mode === 'live');
    await accounts.revokeKey(liveKeyRecord.id, new Date().toISOString());
    const attempts = [
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer rl_live_${'x'.repeat(40)}` },
      { authorization: `Basic ${orgA.testKey}` },
      { authorization: `Bearer rl_live_short` },
      bearer(orgA.liveKey),
    ];
    for (const headers of attempts) {
      const response = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers });
      expect(response.statusCode).toBe(401);
      expect(errorOf(response).code).toBe('unauthorized');
    }
  });
});
