import { describe, expect, it } from 'vitest';
import { CompanyCheckResultSchema } from '../../../services/api/schemas/companies.ts';
import { bearer, errorOf, LIVE_VERSION_ID } from './helper.ts';
import { buildWithRegisters, COMPANIES, REGISTER_CREATED_AT, seedRegister } from './companies-phones-helper.ts';

const post = (app: Awaited<ReturnType<typeof buildWithRegisters>>['app'], key: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/v2/company-checks', headers: { ...bearer(key), ...headers }, payload: payload as object });

describe('POST /v2/company-checks: docs/decisions.md §17 (live key)', () => {
  it('protected → blocked/company_protected; sole proprietor on the list → the owner\'s status and reasons; other companies allowed', async () => {
    const { app, withAddons } = await buildWithRegisters();
    const response = await post(app, withAddons.liveKey, {
      companies: [
        { id: 'a', cvr: '10150817' },
        { id: 'b', cvr: '25 31 37 63' },
        { id: 'c', cvr: 'DK30698649' },
      ],
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.list_version).toMatchObject({ id: LIVE_VERSION_ID });
    for (const result of body.results) expect(CompanyCheckResultSchema.safeParse(result).success).toBe(true);
    expect(body.results).toEqual([
      { id: 'a', cvr: '10150817', name: 'Nordisk Rådgivning ApS', status: 'blocked', reasons: ['company_protected'], company_form: 'ApS', synced_at: REGISTER_CREATED_AT },
      // Søren Kjær is on the list at that very flat: level 5, blocked like a person check.
      { id: 'b', cvr: '25313763', name: 'Kjærs Tømrer', status: 'blocked', reasons: ['name_and_unit'], company_form: 'ENK', synced_at: REGISTER_CREATED_AT },
      // An A/S is no person, even with a list member's surname in its name.
      { id: 'c', cvr: '30698649', name: 'Kjær & Søn A/S', status: 'allowed', reasons: [], company_form: 'A/S', synced_at: REGISTER_CREATED_AT },
    ]);
  });

  it('a PMV with one owner is checked as its owner (not on the list: allowed), with the organisation\'s stop line', async () => {
    const { app, withAddons } = await buildWithRegisters();
    const [result] = (await post(app, withAddons.liveKey, { companies: [{ cvr: '35657339' }] })).json().results;
    expect(result).toMatchObject({ status: 'allowed', reasons: [], company_form: 'PMV' });
  });

  it('by name only when exactly one company has it; unknown CVR or shared name → manual, no reason', async () => {
    const { app, withAddons } = await buildWithRegisters();
    const body = (await post(app, withAddons.liveKey, {
      companies: [{ id: 'n1', name: 'nordisk  rådgivning aps' }, { id: 'n2', name: 'Fælles Navn ApS' }, { id: 'n3', cvr: '12345674' }, { id: 'n4', name: 'Findes Ikke' }],
    })).json();
    expect(body.results[0]).toMatchObject({ id: 'n1', cvr: '10150817', status: 'blocked', reasons: ['company_protected'] });
    expect(body.results[1]).toMatchObject({ id: 'n2', cvr: null, name: 'Fælles Navn ApS', status: 'manual', reasons: [], company_form: null });
    expect(body.results[2]).toMatchObject({ id: 'n3', cvr: '12345674', status: 'manual', reasons: [] });
    expect(body.results[3]).toMatchObject({ id: 'n4', status: 'manual', reasons: [], synced_at: REGISTER_CREATED_AT });
  });

  it('synced_at follows the version in use: a newer import swaps in at once', async () => {
    const { app, withAddons, store, registers } = await buildWithRegisters();
    await seedRegister(store, 'companies', COMPANIES.map((c) => ({ ...c, protected: true })), '2026-11-01T00:00:00.000Z');
    await registers.refresh();
    const [result] = (await post(app, withAddons.liveKey, { companies: [{ cvr: '30698649' }] })).json().results;
    expect(result).toMatchObject({ status: 'blocked', reasons: ['company_protected'], synced_at: '2026-11-01T00:00:00.000Z' });
  });

  it('503 list_not_ready while no company register was imported (da/en)', async () => {
    const { app, withAddons } = await buildWithRegisters({ registers: false });
    for (const [lang, text] of [['da', 'Virksomhedsregistret'], ['en', 'company register']] as const) {
      const response = await post(app, withAddons.liveKey, { companies: [{ cvr: '10150817' }] }, { 'accept-language': lang });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBeTruthy();
      expect(errorOf(response)).toMatchObject({ code: 'list_not_ready', details: { reason: 'company_register_not_ready' } });
      expect(errorOf(response).message).toContain(text);
    }
  });
});

describe('POST /v2/company-checks: status codes', () => {
  it('401 without or with a bad key', async () => {
    const { app } = await buildWithRegisters();
    expect((await app.inject({ method: 'POST', url: '/v2/company-checks', payload: { companies: [{ cvr: '10150817' }] } })).statusCode).toBe(401);
    const bad = await post(app, 'rl_live_nonsense', { companies: [{ cvr: '10150817' }] });
    expect([bad.statusCode, errorOf(bad).code]).toEqual([401, 'unauthorized']);
  });

  it('403 forbidden (da/en) without the company add-on, for live and test keys alike; nothing checked', async () => {
    const { app, orgA, accounts } = await buildWithRegisters();
    for (const [key, lang, text] of [[orgA.liveKey, 'da', 'virksomhedstjek'], [orgA.testKey, 'en', 'company check add-on']] as const) {
      const response = await post(app, key, { companies: [{ cvr: '10150817' }] }, { 'accept-language': lang });
      expect(response.statusCode).toBe(403);
      expect(errorOf(response)).toMatchObject({ code: 'forbidden', details: { reason: 'addon_required', addon: 'company' } });
      expect(errorOf(response).message).toContain(text);
    }
    // The phone add-on alone does not open company checks.
    await accounts.updateOrganisation(orgA.org.id, { addons: ['phone'] });
    expect((await post(app, orgA.liveKey, { companies: [{ cvr: '10150817' }] })).statusCode).toBe(403);
    await accounts.updateOrganisation(orgA.org.id, { addons: ['company'] });
    expect((await post(app, orgA.liveKey, { companies: [{ cvr: '10150817' }] })).statusCode).toBe(200);
  });

  it('422 with a per-item path for a malformed CVR, a wrong check digit, no cvr and no name, over 1000 items (da/en)', async () => {
    const { app, withAddons } = await buildWithRegisters();
    const response = await post(app, withAddons.liveKey, {
      companies: [{ cvr: '10150817' }, { cvr: '1015081' }, { cvr: '10150818' }, { id: 'x' }],
    }, { 'accept-language': 'en' });
    expect(response.statusCode).toBe(422);
    const issues = errorOf(response).details!.issues as Array<{ path: string; message: string }>;
    expect(issues).toEqual([
      { path: 'companies[1].cvr', message: 'The CVR number must be 8 digits.' },
      { path: 'companies[2].cvr', message: 'The CVR number cannot exist: its check digit (modulus 11) is wrong.' },
      { path: 'companies[3]', message: 'Give cvr or name.' },
    ]);
    const da = await post(app, withAddons.liveKey, { companies: [{ cvr: '10150818' }] }, { 'accept-language': 'da' });
    expect((errorOf(da).details!.issues as Array<{ message: string }>)[0].message).toContain('kontrolcifferet');
    const tooMany = await post(app, withAddons.liveKey, { companies: Array.from({ length: 1001 }, () => ({ cvr: '10150817' })) });
    expect(tooMany.statusCode).toBe(422);
    const empty = await post(app, withAddons.liveKey, { companies: [] });
    expect(empty.statusCode).toBe(422);
  });

  it('accepts 1000 companies; an Idempotency-Key replays the first answer', async () => {
    const { app, withAddons } = await buildWithRegisters();
    const payload = { companies: Array.from({ length: 1000 }, (_, i) => ({ id: String(i), cvr: COMPANIES[i % COMPANIES.length].cvr })) };
    const first = await post(app, withAddons.liveKey, payload, { 'idempotency-key': 'co-1' });
    expect(first.statusCode).toBe(200);
    expect(first.json().results).toHaveLength(1000);
    const again = await post(app, withAddons.liveKey, payload, { 'idempotency-key': 'co-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const other = await post(app, withAddons.liveKey, { companies: [{ cvr: '10150817' }] }, { 'idempotency-key': 'co-1' });
    expect([other.statusCode, errorOf(other).details?.reason]).toEqual([422, 'idempotency_key_reused']);
  });
});

describe('POST /v2/company-checks: test keys (docs/decisions.md §3)', () => {
  it('CVR 00000000-00000099 are protected, others allowed; no register or list needed', async () => {
    const { app, withAddons } = await buildWithRegisters({ registers: false, liveEntries: undefined });
    const body = (await post(app, withAddons.testKey, {
      companies: [{ cvr: '00000000' }, { cvr: '00000099' }, { cvr: '10150817' }, { name: 'Hvilket som helst ApS' }],
    })).json();
    expect(body.list_version.id).toBe('00000000-0000-4000-8000-000000000001');
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['blocked', 'blocked', 'allowed', 'allowed']);
    expect(body.results[0]).toMatchObject({ reasons: ['company_protected'], company_form: 'A/S', synced_at: '2026-01-01T00:00:00.000Z' });
    // Outside the reserved range a test CVR needs its check digit like a live one.
    expect((await post(app, withAddons.testKey, { companies: [{ cvr: '00000100' }] })).statusCode).toBe(422);
  });
});
