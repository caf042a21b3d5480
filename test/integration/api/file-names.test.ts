/**
 * An uploaded file's name cannot disguise itself (docs/uploads.md "File names"): bidi overrides,
 * NUL and other controls are taken out, folders dropped; what the job shows is what it is.
 */
import { describe, expect, it } from 'vitest';
import { plainFileName } from '../../../services/ingest/uploads/file-name.ts';
import { bearer } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

describe('file names keep no control or bidi override characters', () => {
  it.each([
    ['kunder\u202Eslx.csv', 'kunderslx.csv'],
    ['a\u0000b.csv', 'ab.csv'],
    ['liste\u2066\u2069\u200F.xlsx', 'liste.xlsx'],
    ['C:\\Users\\x\\kunder.csv', 'kunder.csv'],
    ['../../etc/kunder.csv', 'kunder.csv'],
    ['tab\there\r\n.csv', 'tabhere.csv'],
    ['\u202E', null],
    ['..', null],
    ['Kunder æøå (2).csv', 'Kunder æøå (2).csv'],
  ])('%j → %j', (raw, plain) => {
    expect(plainFileName(raw)).toBe(plain);
  });

  it('an upload named with a right-to-left override shows and downloads under its plain name', async () => {
    const api = await uploadsApi();
    const csv = Buffer.from('Fornavn,Efternavn,Adresse\r\nÅse,Jensen,"Østergade 1, 8000 Aarhus C"\r\n');
    const draft = await api.upload(api.orgA.testKey, [{ name: 'file', value: { bytes: csv, filename: 'kunder\u202Eslx.exe.csv' } }]);
    expect(draft.statusCode, draft.body).toBe(202);
    expect(draft.json<Record<string, unknown>>().filename).toBe('kunderslx.exe.csv');
    const listed = await api.app.inject({ method: 'GET', url: '/v2/check-jobs', headers: bearer(api.orgA.testKey) });
    expect(listed.body).not.toMatch(/\u202E|\\u202e/i);
  });
});
