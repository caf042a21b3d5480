import { describe, expect, it } from 'vitest';
import { CheckResultSchema } from '../../../services/api/schemas/check-result.ts';
import { bearer, build, LIVE_ENTRIES, LIVE_VERSION_ID } from './helper.ts';

const soren = { id: 'row-1', first_name: 'Søren', last_name: 'Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' };
const stranger = { id: 'row-2', name: 'Ukendt Person', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' };
const unreadable = { id: 'row-3', name: 'Anne Hansen', address: '?' };

describe('POST /v2/checks (live key)', () => {
  it('checks against the active list, in input order, naming the list version', async () => {
    const { app, orgA } = await build({ liveEntries: LIVE_ENTRIES });
    const response = await app.inject({
      method: 'POST',
      url: '/v2/checks',
      headers: bearer(orgA.liveKey),
      payload: { people: [stranger, soren, unreadable] },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.list_version).toMatchObject({ id: LIVE_VERSION_ID, source: 'cpr', published_on: '2026-10-01' });
    expect(body.list_version.activated_at).toBeTruthy();
    expect(body.results.map((r: { id: string }) => r.id)).toEqual(['row-2', 'row-1', 'row-3']);
    for (const result of body.results) expect(CheckResultSchema.safeParse(result).success).toBe(true);
    const [household, full, manual] = body.results;
    expect(full.match).toMatchObject({ level: 5, code: 'name_address' });
    expect(full.status).toBe('blocked');
    expect(household.match.level).toBe(1);
    expect(manual.match.level).toBeNull();
    expect(manual.status).toBe('manual');
    expect(manual.reasons).toContain('address_unreadable');
  });

  it("takes stop_level from the request, else the organisation's stop line", async () => {
    const { app, orgB } = await build({ liveEntries: LIVE_ENTRIES });
    const partial = { first_name: 'Anders', last_name: 'Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' };
    const fromOrg = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(orgB.liveKey), payload: { people: [partial] } });
    expect(fromOrg.json().results[0]).toMatchObject({ stop_level: 3, status: 'allowed', match: { level: 2 } });
    const fromRequest = await app.inject({
      method: 'POST',
      url: '/v2/checks',
      headers: bearer(orgB.liveKey),
      payload: { people: [partial], stop_level: 2, policy: 'standard' },
    });
    expect(fromRequest.json().results[0]).toMatchObject({ stop_level: 2, status: 'blocked' });
  });

  it('a name found through a slip or an initial says so: match.approximate and the label, in the caller\'s language', async () => {
    const { app, orgA } = await build({ liveEntries: LIVE_ENTRIES });
    const check = async (person: object, lang: string) => (
      await app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(orgA.liveKey), 'accept-language': lang }, payload: { people: [person] } })
    ).json().results[0];
    const exact = await check(soren, 'en');
    expect(exact.match).toMatchObject({ level: 5, approximate: false });
    const initial = await check({ ...soren, first_name: 'S.' }, 'en');
    expect(CheckResultSchema.safeParse(initial).success).toBe(true);
    expect(initial.match).toMatchObject({ level: 5, approximate: true, label: 'Same name and address (name differs: a slip or an initial)' });
    expect(initial.status).toBe('blocked');
    const slip = await check({ ...soren, first_name: 'Søern' }, 'da');
    expect(slip.match).toMatchObject({ level: 5, approximate: true, label: 'Samme navn og adresse (navnet afviger: stavefejl eller forbogstav)' });
  });

  it('labels follow Accept-Language', async () => {
    const { app, orgA } = await build({ liveEntries: LIVE_ENTRIES });
    const label = async (lang: string) =>
      (
        await app.inject({ method: 'POST', url: '/v2/checks', headers: { ...bearer(orgA.liveKey), 'accept-language': lang }, payload: { people: [soren] } })
      ).json().results[0].match.label;
    const [da, en] = [await label('da'), await label('en')];
    expect(da).toBeTruthy();
    expect(en).toBeTruthy();
    expect(da).not.toBe(en);
  });

  it('accepts 1000 people and a pay_per_list organisation with an agreement', async () => {
    const { app, payPerListWithAgreement } = await build({ liveEntries: LIVE_ENTRIES });
    const people = Array.from({ length: 1000 }, (_, i) => ({ id: String(i), name: `Person ${i}`, address: `Gade ${i + 1}, 8000 Aarhus C` }));
    const response = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(payPerListWithAgreement.liveKey), payload: { people } });
    expect(response.statusCode).toBe(200);
    expect(response.json().results).toHaveLength(1000);
    expect(response.json().results[999].id).toBe('999');
  });
});

describe('GET /v2/list-versions/current', () => {
  it('names the active version for live keys', async () => {
    const { app, orgA } = await build({ liveEntries: LIVE_ENTRIES });
    const response = await app.inject({ method: 'GET', url: '/v2/list-versions/current', headers: bearer(orgA.liveKey) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: LIVE_VERSION_ID, source: 'cpr', published_on: '2026-10-01' });
  });
});

describe('POST /v2/addresses/resolve', () => {
  it('parses each address in order, parse-only (unresolved confidence)', async () => {
    const { app, orgA } = await build();
    const response = await app.inject({
      method: 'POST',
      url: '/v2/addresses/resolve',
      headers: bearer(orgA.liveKey),
      payload: { addresses: ['Gl. Kongevej 12A, 3. tv, 1610 København V', '?'] },
    });
    expect(response.statusCode).toBe(200);
    const [good, bad] = response.json().results;
    expect(good).toMatchObject({ ok: true, postal_code: '1610', confidence: 'unresolved' });
    expect(good.input).toBe('Gl. Kongevej 12A, 3. tv, 1610 København V');
    expect(bad).toMatchObject({ ok: false, confidence: 'unresolved', formatted: null });
  });

  it('rejects more than 100 addresses and strings over 200 characters', async () => {
    const { app, orgA } = await build();
    const many = await app.inject({
      method: 'POST',
      url: '/v2/addresses/resolve',
      headers: bearer(orgA.liveKey),
      payload: { addresses: Array.from({ length: 101 }, () => 'Vestergade 1, 8000 Aarhus C') },
    });
    expect(many.statusCode).toBe(422);
    const long = await app.inject({
      method: 'POST',
      url: '/v2/addresses/resolve',
      headers: { ...bearer(orgA.liveKey), 'accept-language': 'en' },
      payload: { addresses: ['x'.repeat(201)] },
    });
    expect(long.statusCode).toBe(422);
    expect(long.json().error.details.issues).toEqual([{ path: 'addresses[0]', message: 'Must be at most 200 characters.' }]);
  });
});
