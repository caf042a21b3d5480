/**
 * Saved column mappings over the API (docs/web.md "Saved column mappings"): saved from a draft's
 * header row (taken from the job at the server), found again for a later draft whose header row
 * matches after case and white-space folding, per organisation only; bad input is 422 in the
 * caller's language and saves nothing.
 */
import { describe, expect, it } from 'vitest';
import type { FormPart } from '../../support/multipart.ts';
import { bearer } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

type Json = Record<string, unknown>;
const csvFile = (lines: string[], filename: string): FormPart => ({ name: 'file', value: { bytes: Buffer.from(lines.join('\r\n') + '\r\n'), filename } });
const NOVEMBER = ['Kundenr,Kontakt,Adresse,Post nr,By', 'K-1,Anne Robinson,Vestergade 12,8000,Aarhus C'];
const DECEMBER = ['KUNDENR, kontakt,Adresse,post  nr,By', 'K-2,Bo Bygning,Nørregade 3,1000,København K'];
const OTHER = ['Kundenr,Kontakt,Adresse,Postnummer,By', 'W-1,Finn Jensen,Søndergade 9,8700,Horsens'];

describe('saved column mappings (GET/POST/DELETE /v2/column-mappings)', () => {
  it('saves a draft\'s mapping by its header row and finds it for a matching draft only, in the organisation only', async () => {
    const { app, upload, orgA, orgB } = await uploadsApi({ savedMappings: true });
    const draftOf = async (lines: string[], name: string) => (await upload(orgA.testKey, [csvFile(lines, name)])).json<Json>();
    const november = await draftOf(NOVEMBER, 'november.csv');
    const saved = await app.inject({
      method: 'POST', url: '/v2/column-mappings', headers: bearer(orgA.testKey),
      payload: { name: 'CRM-udtræk', job_id: november.id, column_mapping: { header_row: 0, name: 'Kontakt', address: 2, postal_code: 3, city: 4 } },
    });
    expect(saved.statusCode).toBe(201);
    const mapping = saved.json<Json>();
    // Header names become indexes; the header row is the file's own.
    expect(mapping).toMatchObject({ name: 'CRM-udtræk', columns: ['Kundenr', 'Kontakt', 'Adresse', 'Post nr', 'By'], column_mapping: { header_row: 0, name: 1, address: 2, postal_code: 3, city: 4 } });

    const december = await draftOf(DECEMBER, 'december.csv');
    const other = await draftOf(OTHER, 'webshop.csv');
    const matching = async (jobId: unknown, key = orgA.testKey) =>
      (await app.inject({ method: 'GET', url: `/v2/column-mappings?job_id=${String(jobId)}`, headers: bearer(key) })).json<{ data: Json[] }>().data.map((m) => m.id);
    expect(await matching(december.id)).toEqual([mapping.id]);
    expect(await matching(other.id)).toEqual([]);

    // Saving the same header row again (December's spelling) replaces it: one per header row.
    const again = await app.inject({
      method: 'POST', url: '/v2/column-mappings', headers: bearer(orgA.testKey),
      payload: { name: 'CRM hver måned', job_id: december.id, column_mapping: { header_row: 0, name: 1, address: 2 } },
    });
    expect(again.json<Json>()).toMatchObject({ id: mapping.id, name: 'CRM hver måned' });
    expect((await app.inject({ method: 'GET', url: '/v2/column-mappings', headers: bearer(orgA.testKey) })).json<{ data: Json[] }>().data).toHaveLength(1);

    // Another organisation: sees none, cannot delete it, cannot save for A's job.
    expect((await app.inject({ method: 'GET', url: '/v2/column-mappings', headers: bearer(orgB.testKey) })).json()).toEqual({ data: [] });
    expect((await app.inject({ method: 'DELETE', url: `/v2/column-mappings/${String(mapping.id)}`, headers: bearer(orgB.testKey) })).statusCode).toBe(404);
    const foreign = await app.inject({
      method: 'POST', url: '/v2/column-mappings', headers: { ...bearer(orgB.testKey), 'accept-language': 'en' },
      payload: { name: 'x', job_id: november.id, column_mapping: { name: 1 } },
    });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json<{ error: { details: Json } }>().error.details.issues).toEqual([{ path: 'job_id', message: 'Unknown job.' }]);
    expect((await app.inject({ method: 'GET', url: `/v2/column-mappings?job_id=${String(november.id)}`, headers: bearer(orgB.testKey) })).statusCode).toBe(422);

    expect((await app.inject({ method: 'DELETE', url: `/v2/column-mappings/${String(mapping.id)}`, headers: bearer(orgA.testKey) })).json()).toEqual({ id: mapping.id, removed: true });
    expect(await matching(december.id)).toEqual([]);
  });

  it('a mapping is for every channel unless kept to some: kept to SFTP, an upload\'s draft does not get it; an unknown channel is 422, nothing saved', async () => {
    const { app, upload, orgA } = await uploadsApi({ savedMappings: true });
    const november = (await upload(orgA.testKey, [csvFile(NOVEMBER, 'november.csv')])).json<Json>();
    const december = (await upload(orgA.testKey, [csvFile(DECEMBER, 'december.csv')])).json<Json>();
    const save = (channels: unknown, locale = 'da') => app.inject({
      method: 'POST', url: '/v2/column-mappings', headers: { ...bearer(orgA.testKey), 'accept-language': locale },
      payload: { name: 'CRM-udtræk', job_id: november.id, column_mapping: { header_row: 0, name: 1, address: 2 }, channels },
    });
    const matching = async () => (await app.inject({ method: 'GET', url: `/v2/column-mappings?job_id=${String(december.id)}`, headers: bearer(orgA.testKey) }))
      .json<{ data: Json[] }>().data.map((m) => m.channels);

    const bad = await save(['sftp', 'fax'], 'en');
    expect(bad.statusCode).toBe(422);
    expect(bad.json<{ error: { details: { issues: Array<{ path: string; message: string }> } } }>().error.details.issues).toEqual([{ path: 'channels[1]', message: 'Must be one of "upload", "sftp", "email", "connector".' }]);
    expect((await app.inject({ method: 'GET', url: '/v2/column-mappings', headers: bearer(orgA.testKey) })).json()).toEqual({ data: [] });

    expect((await save(['sftp', 'email', 'sftp'])).json<Json>().channels).toEqual(['sftp', 'email']);
    expect(await matching()).toEqual([]);
    expect((await save(['upload'])).json<Json>().channels).toEqual(['upload']);
    expect(await matching()).toEqual([['upload']]);
    // Saved again without channels: for every channel (null).
    expect((await save(undefined)).json<Json>().channels).toBeNull();
    expect(await matching()).toEqual([null]);
  });

  it('refuses a column the file lacks, a mapping of nothing and a file without headers, in the caller\'s language; nothing saved', async () => {
    const { app, upload, orgA } = await uploadsApi({ savedMappings: true });
    const draft = (await upload(orgA.testKey, [csvFile(NOVEMBER, 'november.csv')])).json<Json>();
    const post = (payload: Json, locale: 'da' | 'en') =>
      app.inject({ method: 'POST', url: '/v2/column-mappings', headers: { ...bearer(orgA.testKey), 'accept-language': locale }, payload });
    const issuesOf = async (payload: Json, locale: 'da' | 'en') => {
      const response = await post(payload, locale);
      expect(response.statusCode).toBe(422);
      return response.json<{ error: { details: { issues: Json[] } } }>().error.details.issues;
    };
    expect(await issuesOf({ name: 'x', job_id: draft.id, column_mapping: { name: 9, city: 'Byen' } }, 'da')).toEqual([
      { path: 'column_mapping.name', message: 'Kolonnen findes ikke i filen.' }, { path: 'column_mapping.city', message: 'Kolonnen findes ikke i filen.' },
    ]);
    expect(await issuesOf({ name: 'x', job_id: draft.id, column_mapping: { header_row: 0 } }, 'en')).toEqual([
      { path: 'column_mapping', message: 'At least one field must be mapped to a column.' },
    ]);
    expect(await issuesOf({ name: 'x', job_id: draft.id, column_mapping: { header_row: -1, name: 1 } }, 'en')).toEqual([
      { path: 'job_id', message: 'The file has no header row a later file could be recognised by; the columns cannot be saved.' },
    ]);
    expect(await issuesOf({ name: '  ', job_id: draft.id, column_mapping: { name: 1 } }, 'da')).toEqual([{ path: 'name', message: 'Må mindst være 1 tegn.' }]);
    expect((await app.inject({ method: 'GET', url: '/v2/column-mappings', headers: bearer(orgA.testKey) })).json()).toEqual({ data: [] });
  });
});
