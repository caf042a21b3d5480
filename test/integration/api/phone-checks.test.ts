import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckResultSchema } from '../../../services/api/schemas/check-result.ts';
import { createHttpDirectory } from '../../../services/registers/phones/http-directory.ts';
import { startFakeDirectory, type FakeDirectory } from '../../support/fake-phone-directory.ts';
import { bearer, errorOf, LIVE_VERSION_ID } from './helper.ts';
import { buildWithRegisters, DIRECTORY } from './companies-phones-helper.ts';

type App = Awaited<ReturnType<typeof buildWithRegisters>>['app'];
const post = (app: App, key: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/v2/phone-checks', headers: { ...bearer(key), ...headers }, payload: payload as object });

describe('POST /v2/phone-checks: docs/decisions.md §17 (live key, imported directory file)', () => {
  it('found → the person is checked; unlisted → manual/phone_unlisted; not found or no number → manual/phone_not_found', async () => {
    const { app, withAddons } = await buildWithRegisters();
    const response = await post(app, withAddons.liveKey, {
      phones: [
        { id: 'on-list', phone: '20 12 34 56' },
        { id: 'secret', phone: '+45 33-12-34-56' },
        { id: 'unknown', phone: '0045 9999 9999' },
        { id: 'not-a-number', phone: '1234' },
        { id: 'stranger', phone: '40123456' },
      ],
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.list_version).toMatchObject({ id: LIVE_VERSION_ID });
    for (const result of body.results) expect(CheckResultSchema.safeParse(result).success).toBe(true);
    const [onList, secret, unknown, notANumber, stranger] = body.results;
    expect(onList).toMatchObject({
      id: 'on-list', status: 'blocked', reasons: ['name_and_unit'], match: { level: 5 },
      phone_lookup: { outcome: 'found', name: DIRECTORY[0].name, address: DIRECTORY[0].address },
    });
    // A secret number never reveals whom it belongs to.
    expect(secret).toMatchObject({ id: 'secret', status: 'manual', reasons: ['phone_unlisted'], match: { level: null }, phone_lookup: { outcome: 'unlisted' } });
    expect(secret.phone_lookup.name).toBeUndefined();
    expect(unknown).toMatchObject({ status: 'manual', reasons: ['phone_not_found'], phone_lookup: { outcome: 'not_found' } });
    expect(notANumber).toMatchObject({ status: 'manual', reasons: ['phone_not_found'], phone_lookup: { outcome: 'not_found' } });
    expect(stranger).toMatchObject({ status: 'allowed', reasons: [], match: { level: 0 }, phone_lookup: { outcome: 'found' } });
  });

  it('applies stop_level and policy like /v2/checks to the person found', async () => {
    const { app, strictOrg } = await buildWithRegisters();
    const [result] = (await post(app, strictOrg.liveKey, { phones: [{ phone: '20123456' }], stop_level: 5 })).json().results;
    expect(result).toMatchObject({ stop_level: 5, status: 'blocked' });
  });

  it('503 list_not_ready (da/en) when no directory was imported', async () => {
    const { app, withAddons } = await buildWithRegisters({ registers: false });
    for (const [lang, text] of [['da', 'Telefonbogen'], ['en', 'phone directory']] as const) {
      const response = await post(app, withAddons.liveKey, { phones: [{ phone: '20123456' }] }, { 'accept-language': lang });
      expect(response.statusCode).toBe(503);
      expect(errorOf(response)).toMatchObject({ code: 'list_not_ready', details: { reason: 'phone_directory_not_ready' } });
      expect(errorOf(response).message).toContain(text);
    }
  });
});

describe('POST /v2/phone-checks with the HTTP directory adapter (fake directory server, a test double, on loopback)', () => {
  let fake: FakeDirectory;
  beforeAll(async () => {
    fake = await startFakeDirectory('provider-key', DIRECTORY);
  });
  afterAll(async () => fake.close());

  it('asks the provider and answers the same outcomes; a provider failure is 503, never "not found"', async () => {
    const { app, withAddons } = await buildWithRegisters({ directory: createHttpDirectory({ url: fake.url, key: 'provider-key' }) });
    const body = (await post(app, withAddons.liveKey, { phones: [{ phone: '20123456' }, { phone: '33123456' }, { phone: '99999999' }] })).json();
    expect(body.results.map((r: { phone_lookup: { outcome: string } }) => r.phone_lookup.outcome)).toEqual(['found', 'unlisted', 'not_found']);
    expect(body.results[0].status).toBe('blocked');
    fake.failing.add('+4599999999');
    const failed = await post(app, withAddons.liveKey, { phones: [{ phone: '20123456' }, { phone: '99999999' }] }, { 'accept-language': 'en' });
    expect(failed.statusCode).toBe(503);
    expect(errorOf(failed)).toMatchObject({ code: 'list_not_ready', details: { reason: 'phone_directory_unavailable' } });
    expect(failed.body).not.toContain('4599999999');
    fake.failing.clear();
  });
});

describe('POST /v2/phone-checks: status codes and test keys', () => {
  it('401 without a key; 403 forbidden (da/en) without the phone add-on', async () => {
    const { app, orgA, accounts } = await buildWithRegisters();
    expect((await app.inject({ method: 'POST', url: '/v2/phone-checks', payload: { phones: [{ phone: '20123456' }] } })).statusCode).toBe(401);
    for (const [key, lang, text] of [[orgA.liveKey, 'da', 'telefontjek'], [orgA.testKey, 'en', 'phone check add-on']] as const) {
      const response = await post(app, key, { phones: [{ phone: '20123456' }] }, { 'accept-language': lang });
      expect(response.statusCode).toBe(403);
      expect(errorOf(response)).toMatchObject({ code: 'forbidden', details: { reason: 'addon_required', addon: 'phone' } });
      expect(errorOf(response).message).toContain(text);
    }
    await accounts.updateOrganisation(orgA.org.id, { addons: ['company'] });
    expect((await post(app, orgA.liveKey, { phones: [{ phone: '20123456' }] })).statusCode).toBe(403);
  });

  it('422 over 500 numbers, without phone, with unknown fields or over-long text (da/en)', async () => {
    const { app, withAddons } = await buildWithRegisters();
    const tooMany = await post(app, withAddons.liveKey, { phones: Array.from({ length: 501 }, () => ({ phone: '20123456' })) }, { 'accept-language': 'en' });
    expect(tooMany.statusCode).toBe(422);
    expect(errorOf(tooMany).details!.issues).toEqual([{ path: 'phones', message: 'Must have at most 500 items.' }]);
    const missing = await post(app, withAddons.liveKey, { phones: [{ id: 'x' }] }, { 'accept-language': 'da' });
    expect(errorOf(missing).details!.issues).toEqual([{ path: 'phones[0].phone', message: 'Skal udfyldes.' }]);
    expect((await post(app, withAddons.liveKey, { phones: [{ phone: '2'.repeat(201) }] })).statusCode).toBe(422);
    expect((await post(app, withAddons.liveKey, { phones: [{ phone: '20123456', name: 'x' }] })).statusCode).toBe(422);
    // 500 is allowed.
    expect((await post(app, withAddons.liveKey, { phones: Array.from({ length: 500 }, () => ({ phone: '20123456' })) })).statusCode).toBe(200);
  });

  it('test keys: ending 0000 not found, 1111 unlisted, others found with a made-up person; no directory or list needed', async () => {
    const { app, withAddons } = await buildWithRegisters({ registers: false, liveEntries: undefined });
    const body = (await post(app, withAddons.testKey, { phones: [{ phone: '20 12 00 00' }, { phone: '+45 20 12 11 11' }, { phone: '20123456' }] })).json();
    expect(body.list_version.id).toBe('00000000-0000-4000-8000-000000000001');
    expect(body.results.map((r: { status: string; reasons: string[] }) => [r.status, r.reasons])).toEqual([
      ['manual', ['phone_not_found']], ['manual', ['phone_unlisted']], ['allowed', []],
    ]);
    expect(body.results[2].phone_lookup).toEqual({ outcome: 'found', name: 'Test Testesen', address: 'Testvej 1, 1000 København K' });
  });

  it('an Idempotency-Key replays the first answer', async () => {
    const { app, withAddons } = await buildWithRegisters();
    const first = await post(app, withAddons.liveKey, { phones: [{ phone: '20123456' }] }, { 'idempotency-key': 'ph-1' });
    const again = await post(app, withAddons.liveKey, { phones: [{ phone: '20123456' }] }, { 'idempotency-key': 'ph-1' });
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([200, 'true', first.body]);
  });
});
