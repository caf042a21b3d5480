/**
 * Per-organisation quotas of the check-job and monitor endpoints (docs/api-decisions.md "Quotas"), each
 * through the API on the embedded job store and event log: open drafts, rows waiting to be checked,
 * uploads at once, previews per minute, monitor uploads per hour. Every refusal is 429 `rate_limited` in the contract's error shape
 * with Retry-After and `details.reason`, in the caller's language, and changes nothing: no job, no
 * event, no draft file, the draft as it was. Small limits from configuration keep the tests short.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { FormPart } from '../../support/multipart.ts';
import { multipartBody } from '../../support/multipart.ts';
import { until } from '../../support/until.ts';
import { bearer, errorOf } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

type Json = Record<string, any>;

const HEADER = 'Fornavn,Efternavn,Adresse,Postnr.,By';
const csvOf = (rows: number) =>
  Buffer.from([HEADER, ...Array.from({ length: rows }, (_, i) => `Åse,Jensen,Østergade ${i + 1},8000,Aarhus C`)].join('\r\n') + '\r\n');
const csvFile = (rows: number): FormPart => ({ name: 'file', value: { bytes: csvOf(rows), filename: 'kunder.csv' } });
const people = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `Åse Jensen ${i}`, address: `Østergade ${i + 1}, 8000 Aarhus C` }));

/** The refusal every quota answers, checked in both languages' shape; returns the error. */
function expectQuota(response: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, reason: string, language: 'da' | 'en') {
  expect(response.statusCode).toBe(429);
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  const error = errorOf(response);
  expect(error.code).toBe('rate_limited');
  expect(error.details).toMatchObject({ reason });
  expect(error.message).toMatch(language === 'da' ? /organisationen|forhåndsvisninger/i : /organisation|previews/i);
  return error;
}

describe('quotas of the check-job endpoints', () => {
  it('open drafts: an upload beyond QUOTA_OPEN_DRAFTS is refused with nothing kept, and fits again once a draft is deleted', async () => {
    const api = await uploadsApi({ config: { QUOTA_OPEN_DRAFTS: 2 } });
    const key = api.orgA.testKey;
    const first = (await api.upload(key, [csvFile(3)])).json<Json>();
    expect((await api.upload(key, [csvFile(3)])).statusCode).toBe(202);
    const jobsBefore = (await api.allJobs()).length;
    const draftFilesBefore = api.filesIn(api.draftDir).length;
    const eventsBefore = await api.log.count();

    const refusedEn = await api.upload(key, [csvFile(3)], { 'accept-language': 'en' });
    expect(expectQuota(refusedEn, 'open_drafts', 'en').details).toMatchObject({ limit: 2 });
    expectQuota(await api.upload(key, [csvFile(3)], { 'accept-language': 'da' }), 'open_drafts', 'da');
    expect((await api.allJobs()).length).toBe(jobsBefore);
    expect(api.filesIn(api.draftDir)).toHaveLength(draftFilesBefore);
    expect(api.filesIn(api.spoolDir)).toEqual([]);
    expect(await api.log.count()).toBe(eventsBefore);

    // Another organisation, and the same one's live mode, have drafts of their own to count.
    expect((await api.upload(api.orgB.testKey, [csvFile(3)])).statusCode).toBe(202);
    // Room again once the customer deletes a draft.
    expect((await api.app.inject({ method: 'DELETE', url: `/v2/check-jobs/${first.id}`, headers: bearer(key) })).statusCode).toBe(200);
    expect((await api.upload(key, [csvFile(3)])).statusCode).toBe(202);
  });

  it('waiting rows: a JSON job, a start and an upload started at once that would pass QUOTA_QUEUED_ROWS_TEST are refused before anything is created', async () => {
    const api = await uploadsApi({ config: { QUOTA_QUEUED_ROWS_TEST: 5 } });
    const key = api.orgA.testKey;
    const postJob = (count: number, language = 'en') => api.app.inject({
      method: 'POST', url: '/v2/check-jobs', payload: { people: people(count) },
      headers: { ...bearer(key), 'content-type': 'application/json', 'accept-language': language },
    });
    // A draft is not waiting: its rows count once it starts.
    const draft = (await api.upload(key, [csvFile(3)])).json<Json>();
    expect((await postJob(3)).statusCode).toBe(202);
    const jobsBefore = (await api.allJobs()).length;
    const eventsBefore = await api.log.count();

    // 3 waiting + 3 > 5: the body is read, counted, and refused; nothing is published.
    expect(expectQuota(await postJob(3), 'queued_rows', 'en').details).toMatchObject({ limit: 5 });
    expectQuota(await postJob(3, 'da'), 'queued_rows', 'da');
    // Starting the 3-row draft would make 6; it stays a draft.
    const start = await api.app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: { ...bearer(key), 'accept-language': 'en' } });
    expectQuota(start, 'queued_rows', 'en');
    expect((await api.app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}`, headers: bearer(key) })).json<Json>().status).toBe('draft');
    // A file started at once is counted when it has been read.
    expectQuota(await api.upload(key, [csvFile(3), { name: 'options', value: JSON.stringify({ start: true }) }], { 'accept-language': 'en' }), 'queued_rows', 'en');
    expect((await api.allJobs()).length).toBe(jobsBefore);
    expect(await api.log.count()).toBe(eventsBefore);
    expect(api.filesIn(api.spoolDir)).toEqual([]);

    // What fits is taken: 3 + 2 = 5; then there is no room for a single row, in any form.
    expect((await postJob(2)).statusCode).toBe(202);
    expectQuota(await postJob(1), 'queued_rows', 'en');
    // Live rows are counted apart from test rows.
    const live = await api.app.inject({
      method: 'POST', url: '/v2/check-jobs', payload: { people: people(3) }, headers: { ...bearer(api.orgA.liveKey), 'content-type': 'application/json' },
    });
    expect(live.statusCode).not.toBe(429);
  });

  it('uploads at once: a second upload of the organisation while one is still arriving is refused; after it, uploads fit again', async () => {
    const api = await uploadsApi({ config: { QUOTA_PARALLEL_UPLOADS: 1 } });
    const key = api.orgA.testKey;
    const { body, contentType } = await multipartBody([csvFile(40)]);
    // The first upload's body arrives in two parts; until the second, the upload is in progress.
    const stream = new PassThrough();
    const held = api.app.inject({ method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(key), 'content-type': contentType }, payload: stream });
    stream.write(body.subarray(0, body.length - 100));
    // The server's own sign that the upload is being read: its bytes are in the spool.
    await until('the first upload in the spool', () => api.filesIn(api.spoolDir).length === 1, 60_000);

    expectQuota(await api.upload(key, [csvFile(3)], { 'accept-language': 'en' }), 'parallel_uploads', 'en');
    expectQuota(await api.upload(key, [csvFile(3)], { 'accept-language': 'da' }), 'parallel_uploads', 'da');
    // Another organisation is not held up by this one.
    expect((await api.upload(api.orgB.testKey, [csvFile(3)])).statusCode).toBe(202);

    stream.end(body.subarray(body.length - 100));
    const first = await held;
    expect(first.statusCode).toBe(202);
    expect(first.json<Json>().row_count).toBe(40);
    expect((await api.upload(key, [csvFile(3)])).statusCode).toBe(202);
  });

  it('previews: uploads and POST …/preview beyond QUOTA_PREVIEW_BURST are refused until the allowance refills, and the draft stays as it was', async () => {
    let now = Date.parse('2026-11-26T12:00:00.000Z');
    const api = await uploadsApi({ config: { QUOTA_PREVIEWS_PER_MINUTE: 6, QUOTA_PREVIEW_BURST: 2 }, clock: () => new Date(now) });
    const key = api.orgA.testKey;
    const preview = (id: string, mapping: Json, language = 'en') => api.app.inject({
      method: 'POST', url: `/v2/check-jobs/${id}/preview`, payload: { column_mapping: mapping },
      headers: { ...bearer(key), 'content-type': 'application/json', 'accept-language': language },
    });
    const draft = (await api.upload(key, [csvFile(3)])).json<Json>();
    expect((await preview(draft.id, { first_name: 0, last_name: 1, address: 2, postal_code: 3, city: 4 })).statusCode).toBe(200);
    const before = (await api.app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}`, headers: bearer(key) })).json<Json>();

    const refused = await preview(draft.id, { name: 1, address: 2 });
    // 6 a minute: the next fits in 10 s.
    expect(Number(expectQuota(refused, 'previews', 'en') && refused.headers['retry-after'])).toBe(10);
    expectQuota(await preview(draft.id, { name: 1, address: 2 }, 'da'), 'previews', 'da');
    expectQuota(await api.upload(key, [csvFile(3)], { 'accept-language': 'en' }), 'previews', 'en');
    const after = (await api.app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}`, headers: bearer(key) })).json<Json>();
    expect(after.column_mapping).toEqual(before.column_mapping);
    expect(after.preview).toEqual(before.preview);
    // Each organisation has its own allowance.
    expect((await api.upload(api.orgB.testKey, [csvFile(3)])).statusCode).toBe(202);

    now += 10_000;
    expect((await preview(draft.id, { name: 1, address: 2 })).statusCode).toBe(200);
  });

  it('monitor uploads: creating monitors and replacing their contacts beyond QUOTA_MONITOR_UPLOAD_BURST is refused until the allowance refills, nothing stored', async () => {
    let now = Date.parse('2026-11-26T12:00:00.000Z');
    const api = await uploadsApi({ config: { QUOTA_MONITOR_UPLOADS_PER_HOUR: 60, QUOTA_MONITOR_UPLOAD_BURST: 2 }, clock: () => new Date(now) });
    const key = api.orgA.testKey;
    const send = (method: 'POST' | 'PUT', url: string, count: number, language = 'en') => api.app.inject({
      method, url, payload: { people: people(count) }, headers: { ...bearer(key), 'content-type': 'application/json', 'accept-language': language },
    });
    const monitorsOf = async (k: string) => (await api.app.inject({ method: 'GET', url: '/v2/monitors', headers: bearer(k) })).json<Json>().monitors as Json[];
    const created = await send('POST', '/v2/monitors', 3);
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<Json>().id as string;
    expect((await send('PUT', `/v2/monitors/${id}/contacts`, 4)).statusCode).toBe(200);

    const refused = await send('POST', '/v2/monitors', 5);
    // 60 an hour: the next fits in 60 s.
    expect(expectQuota(refused, 'monitor_uploads', 'en').details).toMatchObject({ limit: 60 });
    expect(Number(refused.headers['retry-after'])).toBe(60);
    expectQuota(await send('PUT', `/v2/monitors/${id}/contacts`, 5, 'da'), 'monitor_uploads', 'da');
    // Nothing stored: one monitor, with the contacts of the last replacement that fitted.
    const monitors = await monitorsOf(key);
    expect(monitors.map((m) => [m.id, m.contact_count])).toEqual([[id, 4]]);
    expect(api.filesIn(api.spoolDir)).toEqual([]);
    // Each organisation has its own allowance.
    expect((await api.app.inject({
      method: 'POST', url: '/v2/monitors', payload: { people: people(2) }, headers: { ...bearer(api.orgB.testKey), 'content-type': 'application/json' },
    })).statusCode).toBe(201);

    now += 60_000;
    expect((await send('PUT', `/v2/monitors/${id}/contacts`, 5)).statusCode).toBe(200);
    expectQuota(await send('PUT', `/v2/monitors/${id}/contacts`, 6), 'monitor_uploads', 'en');
    expect((await monitorsOf(key)).map((m) => m.contact_count)).toEqual([5]);
  });

  it('monitor uploads take an upload slot: a monitor upload while the organisation\'s upload is arriving is refused (parallel_uploads)', async () => {
    const api = await uploadsApi({ config: { QUOTA_PARALLEL_UPLOADS: 1 } });
    const key = api.orgA.testKey;
    const { body, contentType } = await multipartBody([csvFile(40)]);
    const stream = new PassThrough();
    const held = api.app.inject({ method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(key), 'content-type': contentType }, payload: stream });
    stream.write(body.subarray(0, body.length - 100));
    await until('the upload in the spool', () => api.filesIn(api.spoolDir).length === 1, 60_000);

    const refused = await api.app.inject({
      method: 'POST', url: '/v2/monitors', payload: { people: people(3) }, headers: { ...bearer(key), 'content-type': 'application/json', 'accept-language': 'da' },
    });
    expectQuota(refused, 'parallel_uploads', 'da');
    expect((await api.app.inject({ method: 'GET', url: '/v2/monitors', headers: bearer(key) })).json<Json>().monitors).toEqual([]);

    stream.end(body.subarray(body.length - 100));
    expect((await held).statusCode).toBe(202);
    expect((await api.app.inject({
      method: 'POST', url: '/v2/monitors', payload: { people: people(3) }, headers: { ...bearer(key), 'content-type': 'application/json' },
    })).statusCode).toBe(201);
  });
});
