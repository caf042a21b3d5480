/**
 * A monitor keeps its contacts no longer than a job keeps its people (docs/monitors.md
 * "Retention"): at most 90 days, by default the organisation's retention, the same for a monitor
 * made from JSON and one made from a file.
 */
import { describe, expect, it } from 'vitest';
import type { FormPart } from '../../support/multipart.ts';
import { bearer, errorOf, seedOrg } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

type Json = Record<string, any>;
const DAY_MS = 24 * 60 * 60 * 1000;
const people = [{ first_name: 'Åse', last_name: 'Jensen', address: 'Østergade 1, 8000 Aarhus C' }];
const csvFile: FormPart = { name: 'file', value: { bytes: Buffer.from('Fornavn,Efternavn,Adresse\r\nÅse,Jensen,"Østergade 1, 8000 Aarhus C"\r\n'), filename: 'kunder.csv' } };
const daysKept = (monitor: Json) => Math.round((Date.parse(monitor.delete_after) - Date.parse(monitor.created_at)) / DAY_MS);

describe('monitor retention keeps the jobs\' promise: at most 90 days, the organisation\'s by default', () => {
  it('JSON: 91 days is refused at retention_days, 90 is taken, none means the organisation\'s retention', async () => {
    const api = await uploadsApi();
    const { testKey } = await seedOrg(api.accounts, { retention_days: 12 });
    const post = (body: Json) => api.app.inject({ method: 'POST', url: '/v2/monitors', headers: { ...bearer(testKey), 'accept-language': 'en' }, payload: body });

    const tooLong = await post({ people, retention_days: 91 });
    expect(tooLong.statusCode, tooLong.body).toBe(422);
    expect((errorOf(tooLong).details as Json).issues.map((i: Json) => i.path)).toEqual(['retention_days']);
    expect((await api.app.inject({ method: 'GET', url: '/v2/monitors', headers: bearer(testKey) })).json<Json>().monitors).toEqual([]);

    const longest = await post({ people, retention_days: 90 });
    expect(longest.statusCode, longest.body).toBe(201);
    expect(longest.json<Json>().retention_days).toBe(90);
    expect(daysKept(longest.json<Json>())).toBe(90);

    const byDefault = await post({ people });
    expect(byDefault.statusCode, byDefault.body).toBe(201);
    expect(byDefault.json<Json>().retention_days).toBe(12);
    expect(daysKept(byDefault.json<Json>())).toBe(12);
  });

  it('a file: the same default and the same bound', async () => {
    const api = await uploadsApi();
    const { testKey } = await seedOrg(api.accounts, { retention_days: 30 });
    const byDefault = await api.postForm('/v2/monitors', testKey, [csvFile]);
    expect(byDefault.statusCode, byDefault.body).toBe(201);
    expect(byDefault.json<Json>().retention_days).toBe(30);
    const tooLong = await api.postForm('/v2/monitors', testKey, [csvFile, { name: 'options', value: JSON.stringify({ retention_days: 91 }) }]);
    expect(tooLong.statusCode, tooLong.body).toBe(422);
  });
});
