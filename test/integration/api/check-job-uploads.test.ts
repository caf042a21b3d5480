/**
 * File uploads through the API (DECISIONS §7, §14) on one in-memory database with the embedded
 * event log: multipart → draft (columns, mapping, preview) → start → rows with their cells on the
 * log; refusals that leave no job, no spool or draft file and no event; GET …/file of a done job.
 * The whole pipeline (matcher, projection) with files made by LibreOffice and exceljs runs in
 * test/e2e/uploads.*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fileRefusalMessage } from '../../../services/ingest/index.ts';
import { matchChunk } from '../../../services/matcher/match-chunk.ts';
import type { PipelineEvent } from '../../../services/pipeline/events.ts';
import type { FormPart } from '../../support/multipart.ts';
import { bearer, errorOf } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

type Json = Record<string, any>;

/** Test keys answer by surname (DECISIONS §3): Robinson 5, Bygning 4, Fornavn 3, Efternavn 2, Husstand 1, else 0. */
const SURNAMES = ['Robinson', 'Bygning', 'Fornavn', 'Efternavn', 'Husstand', 'Jensen'] as const;
const LEVEL_OF: Record<string, number> = { Robinson: 5, Bygning: 4, Fornavn: 3, Efternavn: 2, Husstand: 1, Jensen: 0 };
const HEADER = ['Kundenr.', 'Fornavn', 'Efternavn', 'Adresse', 'Postnr.', 'By', 'Note'];
function rowsOf(count: number): string[][] {
  return Array.from({ length: count }, (_, i) => [
    `K-${i}`, i % 2 ? 'Søren' : 'Åse', SURNAMES[i % SURNAMES.length], `Østergade ${i + 1}`, '8000', 'Aarhus C', i === 3 ? '=1+2' : `n${i}`,
  ]);
}
const csvOf = (rows: string[][]) => Buffer.from([HEADER, ...rows].map((r) => r.join(',')).join('\r\n') + '\r\n');
const csvFile = (bytes: Uint8Array, filename = 'kunder.csv'): FormPart => ({ name: 'file', value: { bytes, filename } });

function eventsOf(all: PipelineEvent[], jobId: string) {
  const mine = all.filter((e) => (e.value as { job_id?: string }).job_id === jobId);
  return {
    created: mine.filter((e) => e.type === 'JobCreated'),
    chunks: mine.filter((e) => e.type === 'RowsChunk').map((e) => e.value).sort((a, b) => a.chunk - b.chunk),
    complete: mine.filter((e) => e.type === 'RowsComplete'),
  };
}

describe('multipart POST /v2/check-jobs → draft', () => {
  it('makes a draft with columns, the guessed mapping and a 20-row preview checked as the job would be; nothing published', async () => {
    const { upload, orgA, log, draftDir, spoolDir, filesIn } = await uploadsApi();
    const rows = rowsOf(45);
    const response = await upload(orgA.testKey, [csvFile(csvOf(rows)), { name: 'external_ref', value: 'crm-7' }], { 'accept-language': 'en' });
    expect(response.statusCode, response.body).toBe(202);
    const job = response.json<Json>();
    expect(job).toMatchObject({
      source: 'upload', status: 'draft', filename: 'kunder.csv', file_format: 'csv', row_count: 45, columns: HEADER,
      column_mapping: { header_row: 0, external_id: 'Kundenr.', first_name: 'Fornavn', last_name: 'Efternavn', address: 'Adresse', postal_code: 'Postnr.', city: 'By' },
      list_version: null, external_ref: 'crm-7', processed_count: 0,
    });
    expect(response.headers.location).toBe(`/v2/check-jobs/${job.id}`);
    expect(job.preview).toHaveLength(20);
    expect(job.preview.map((p: Json) => p.cells)).toEqual(rows.slice(0, 20));
    expect(job.preview.map((p: Json) => p.result.match.level)).toEqual(rows.slice(0, 20).map((r) => LEVEL_OF[r[2]]));
    expect(job.preview.map((p: Json) => p.result.id)).toEqual(rows.slice(0, 20).map((r) => r[0]));
    expect(await log.count()).toBe(0);
    expect(filesIn(draftDir)).toEqual([`draft-${job.id}.upload`]);
    expect(filesIn(spoolDir)).toEqual([]);
  });

  it('company and phone options without the add-on are 403 forbidden (da/en), on upload and on start; the draft stays', async () => {
    const { app, upload, orgA, log, accounts } = await uploadsApi();
    const refused = await upload(orgA.testKey, [csvFile(csvOf(rowsOf(3))), { name: 'options', value: JSON.stringify({ start: true, check_phones: true }) }], { 'accept-language': 'en' });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'forbidden', details: { reason: 'addon_required', addon: 'phone' } });
    const draft = (await upload(orgA.testKey, [csvFile(csvOf(rowsOf(3)))])).json<Json>();
    const start = (options: Json) => app.inject({
      method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: { ...bearer(orgA.testKey), 'accept-language': 'da' }, payload: { options },
    });
    const forbidden = await start({ check_companies: true });
    expect(forbidden.statusCode).toBe(403);
    expect(errorOf(forbidden).message).toContain('virksomhedstjek');
    // With the add-on the draft starts with company checks on its chunks.
    await accounts.updateOrganisation(orgA.org.id, { addons: ['company'] });
    const started = await start({ check_companies: true });
    expect(started.statusCode, started.body).toBe(202);
    const chunks = eventsOf(await log.decoded(), draft.id).chunks;
    expect(chunks.flatMap((c) => c.rows)).toHaveLength(3);
    expect(chunks.every((c) => c.check_companies)).toBe(true);
  });

  it('start moves it to queued and publishes every row with its cells; the draft file goes; a second start is 409', async () => {
    const { app, upload, orgA, log, draftDir, spoolDir, filesIn } = await uploadsApi();
    const rows = rowsOf(120);
    const draft = (await upload(orgA.testKey, [csvFile(csvOf(rows))])).json<Json>();
    const started = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey), payload: { options: { stop_level: 3 } } });
    expect(started.statusCode, started.body).toBe(202);
    expect(started.json()).toMatchObject({ id: draft.id, status: 'queued', row_count: 120, options: { stop_level: 3 }, list_version: { id: '00000000-0000-4000-8000-000000000001' } });
    const { created, chunks, complete } = eventsOf(await log.decoded(), draft.id);
    expect(created).toHaveLength(1);
    expect(complete).toHaveLength(1);
    const published = chunks.flatMap((c) => c.rows);
    expect(published.map((r) => r.row)).toEqual(rows.map((_, i) => i));
    expect(published.map((r) => r.cells)).toEqual(rows);
    expect(published[7].person).toMatchObject({ id: 'K-7', first_name: 'Søren', last_name: 'Bygning', address: 'Østergade 8', postal_code: '8000' });
    expect(chunks[0].stop_level).toBe(3);
    expect(filesIn(draftDir)).toEqual([]);
    expect(filesIn(spoolDir)).toEqual([]);
    const again = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey) });
    expect(again.statusCode).toBe(409);
    expect(errorOf(again).details).toMatchObject({ reason: 'job_not_draft', status: 'queued' });
  });

  it('options.start: true queues the job at once', async () => {
    const { upload, orgA, log, draftDir, filesIn } = await uploadsApi();
    const response = await upload(orgA.testKey, [csvFile(csvOf(rowsOf(7))), { name: 'options', value: JSON.stringify({ start: true, policy: 'strict' }) }]);
    expect(response.statusCode, response.body).toBe(202);
    const job = response.json<Json>();
    expect(job).toMatchObject({ status: 'queued', row_count: 7, options: { policy: 'strict' }, file_format: 'csv' });
    expect(job.options).not.toHaveProperty('start');
    expect(eventsOf(await log.decoded(), job.id).chunks.flatMap((c) => c.rows)).toHaveLength(7);
    expect(filesIn(draftDir)).toEqual([]);
  });

  it('a file whose columns cannot be told is a draft without a mapping; start asks for one, then takes one by index', async () => {
    const { app, upload, orgA } = await uploadsApi();
    const bytes = Buffer.from('1;2;3\n4;5;6\n7;8;9\n');
    const draft = (await upload(orgA.testKey, [csvFile(bytes, 'tal.csv')])).json<Json>();
    expect(draft).toMatchObject({ status: 'draft', column_mapping: null, row_count: 2, columns: ['1', '2', '3'] });
    const refused = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: { ...bearer(orgA.testKey), 'accept-language': 'en' }, payload: {} });
    expect(refused.statusCode).toBe(422);
    expect(errorOf(refused).details?.issues).toEqual([{ path: 'column_mapping', message: expect.stringContaining('column_mapping') }]);
    const missing = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey), payload: { column_mapping: { header_row: -1, name: 7 } } });
    expect(missing.statusCode).toBe(422);
    expect(errorOf(missing).details?.issues).toEqual([{ path: 'column_mapping.name', message: 'Kolonnen findes ikke i filen.' }]);
    const started = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey), payload: { column_mapping: { header_row: -1, name: 0, address: 1 } } });
    expect(started.statusCode, started.body).toBe(202);
    expect(started.json()).toMatchObject({ status: 'queued', row_count: 3, column_mapping: { header_row: -1, name: 0, address: 1 } });
  });

  it('a mapped value over 200 characters refuses the start, naming the row; the draft stays a draft', async () => {
    const { app, upload, orgA, log, jobs } = await uploadsApi();
    const rows = rowsOf(5);
    rows[3][1] = 'x'.repeat(201);
    const draft = (await upload(orgA.testKey, [csvFile(csvOf(rows))])).json<Json>();
    const response = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey) });
    expect(response.statusCode).toBe(422);
    expect(errorOf(response).details?.issues).toEqual([{ path: 'rows[3].first_name', message: 'Må højst være 200 tegn.' }]);
    expect(response.body).not.toContain('xxxxxxxx');
    expect((await jobs.getJobById(draft.id))?.status).toBe('draft');
    expect(await log.count()).toBe(0);
  });

  it('DELETE of a draft removes its file at once', async () => {
    const { app, upload, orgA, draftDir, filesIn } = await uploadsApi();
    const draft = (await upload(orgA.testKey, [csvFile(csvOf(rowsOf(3)))])).json<Json>();
    expect(filesIn(draftDir)).toHaveLength(1);
    const deleted = await app.inject({ method: 'DELETE', url: `/v2/check-jobs/${draft.id}`, headers: bearer(orgA.testKey) });
    expect(deleted.json()).toMatchObject({ status: 'deleted', preview: [] });
    expect(filesIn(draftDir)).toEqual([]);
    const start = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey) });
    expect(start.statusCode).toBe(409);
  });

  it('the same Idempotency-Key and file replays the first draft; another file with it is 422', async () => {
    const { upload, orgA, allJobs } = await uploadsApi();
    const parts = [csvFile(csvOf(rowsOf(4)))];
    const first = await upload(orgA.testKey, parts, { 'idempotency-key': 'up-1' });
    const second = await upload(orgA.testKey, parts, { 'idempotency-key': 'up-1' });
    expect(second.statusCode).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    const other = await upload(orgA.testKey, [csvFile(csvOf(rowsOf(5)))], { 'idempotency-key': 'up-1' });
    expect(other.statusCode).toBe(422);
    expect(errorOf(other).details).toMatchObject({ reason: 'idempotency_key_reused' });
    expect(await allJobs()).toHaveLength(1);
  });

  it('another organisation cannot start a draft (404)', async () => {
    const { app, upload, orgA, orgB } = await uploadsApi();
    const draft = (await upload(orgA.testKey, [csvFile(csvOf(rowsOf(3)))])).json<Json>();
    const response = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgB.testKey) });
    expect(response.statusCode).toBe(404);
  });
});

describe('refused uploads create nothing: no job, no spool or draft file, no event', () => {
  const zipHead = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]);
  const cases: Array<[string, FormPart[], number, Json]> = [
    ['an empty file', [csvFile(Buffer.alloc(0))], 422, { reason: 'file_empty' }],
    ['a header and no data rows', [csvFile(Buffer.from(`${HEADER.join(',')}\r\n`))], 422, { reason: 'file_no_data' }],
    ['a truncated xlsx (a zip cut off)', [csvFile(Buffer.concat([zipHead, Buffer.alloc(200, 7)]), 'kunder.xlsx')], 422, { reason: 'file_corrupt' }],
    ['text named .xlsx', [csvFile(csvOf(rowsOf(3)), 'kunder.xlsx')], 422, { reason: 'file_format_mismatch' }],
    ['a .pdf', [csvFile(Buffer.from('%PDF-1.4\n'), 'kunder.pdf')], 422, { reason: 'file_unsupported_format' }],
    ['no file part', [{ name: 'external_ref', value: 'x' }], 422, { issues: [{ path: 'file' }] }],
    ['two files', [csvFile(csvOf(rowsOf(2))), csvFile(csvOf(rowsOf(2)))], 422, { issues: [{ path: 'file' }] }],
    ['an unknown field', [csvFile(csvOf(rowsOf(2))), { name: 'colour', value: 'red' }], 422, { issues: [{ path: 'colour' }] }],
    ['column_mapping that is not JSON', [csvFile(csvOf(rowsOf(2))), { name: 'column_mapping', value: '{name:' }], 422, { issues: [{ path: 'column_mapping' }] }],
    ['a mapping naming a missing header', [csvFile(csvOf(rowsOf(2))), { name: 'column_mapping', value: '{"name":"Fulde navn"}' }], 422, { issues: [{ path: 'column_mapping.name' }] }],
    ['options with an unknown policy', [csvFile(csvOf(rowsOf(2))), { name: 'options', value: '{"policy":"lenient"}' }], 422, { issues: [{ path: 'options.policy' }] }],
    ['an http callback', [csvFile(csvOf(rowsOf(2))), { name: 'callback_url', value: 'http://example.com/x' }], 422, { issues: [{ path: 'callback_url' }] }],
  ];
  it.each(cases)('%s', async (_, parts, status, details) => {
    const { upload, orgA, log, allJobs, spoolDir, draftDir, filesIn } = await uploadsApi();
    const response = await upload(orgA.testKey, parts, { 'accept-language': 'en' });
    expect(response.statusCode, response.body).toBe(status);
    const error = errorOf(response);
    expect(error.code).toBe('invalid_request');
    expect(error.details).toMatchObject(details);
    if (typeof details.reason === 'string' && details.reason.startsWith('file_')) {
      expect(error.message).toBe(fileRefusalMessage(details.reason as never, 'en'));
    }
    expect(response.body).not.toContain('Østergade');
    expect(await log.count()).toBe(0);
    expect(await allJobs()).toEqual([]);
    expect(filesIn(spoolDir)).toEqual([]);
    expect(filesIn(draftDir)).toEqual([]);
  });

  it('a file over the upload limit is 413, in Danish by default', async () => {
    const { upload, orgA, allJobs, spoolDir, filesIn } = await uploadsApi({ maxUploadBytes: 1000 });
    const response = await upload(orgA.testKey, [csvFile(csvOf(rowsOf(100)))]);
    expect(response.statusCode).toBe(413);
    expect(errorOf(response)).toMatchObject({ code: 'invalid_request', details: { reason: 'body_too_large' } });
    expect(errorOf(response).message).toContain('for stor');
    expect(await allJobs()).toEqual([]);
    expect(filesIn(spoolDir)).toEqual([]);
  });

  it('a body that is not multipart despite its header is 400', async () => {
    const { app, orgA, allJobs } = await uploadsApi();
    const response = await app.inject({
      method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(orgA.testKey), 'content-type': 'multipart/form-data; boundary=xyz' }, payload: 'not a form',
    });
    expect(response.statusCode).toBe(400);
    expect(await allJobs()).toEqual([]);
  });
});

describe('GET /v2/check-jobs/{id}/file', () => {
  /** A started upload made done the way the pipeline would: the matcher's pure step, then the store. */
  async function doneJob(rows: string[][], parts: FormPart[] = [csvFile(csvOf(rows))]) {
    const s = await uploadsApi();
    const draft = (await s.upload(s.orgA.testKey, parts)).json<Json>();
    await s.app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(s.orgA.testKey) });
    const { chunks } = eventsOf(await s.log.decoded(), draft.id);
    const record = (await s.jobs.getJobById(draft.id))!;
    for (const chunk of chunks) {
      const results = matchChunk(chunk, null).results;
      await s.jobs.putResults(draft.id, record.delete_after, results.map((r) => ({ row: r.row, result: r.result, cells: r.cells })));
    }
    await s.jobs.updateJob(draft.id, { status: 'done', finished_at: new Date().toISOString() });
    return { ...s, id: draft.id as string };
  }

  it('gives the customer\'s own CSV back with the verdict columns, neutralising formulas; headers localised', async () => {
    const rows = rowsOf(30);
    const { app, orgA, id } = await doneJob(rows);
    const response = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file`, headers: { ...bearer(orgA.testKey), 'accept-language': 'en' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toContain('kunder.result.csv');
    const lines = response.body.trim().split('\r\n').map((l) => l.split(','));
    expect(lines[0]).toEqual([...HEADER, 'status', 'match_level', 'match_code', 'reasons', 'list_version']);
    expect(lines).toHaveLength(31);
    for (const [i, row] of rows.entries()) {
      const cells = lines[i + 1];
      expect(cells.slice(0, HEADER.length)).toEqual(row.map((c) => (c.startsWith('=') ? `'${c}` : c)));
      expect(cells[HEADER.length + 1]).toBe(String(LEVEL_OF[row[2]]));
      expect(cells.at(-1)).toBe('00000000-0000-4000-8000-000000000001');
    }
    const danish = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file`, headers: bearer(orgA.testKey) });
    expect(danish.body.split('\r\n')[0]).toContain('Status');
  });

  it('?format=xlsx overrides; an unknown format is 422', async () => {
    const { app, orgA, id } = await doneJob(rowsOf(3));
    const xlsx = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file?format=xlsx`, headers: bearer(orgA.testKey) });
    expect(xlsx.statusCode).toBe(200);
    expect(xlsx.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(xlsx.rawPayload.subarray(0, 2).toString()).toBe('PK');
    const bad = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file?format=pdf`, headers: bearer(orgA.testKey) });
    expect(bad.statusCode).toBe(422);
  });

  it('is 409 before done, 410 once deleted, 404 for another organisation', async () => {
    const { app, upload, orgA, orgB } = await uploadsApi();
    const draft = (await upload(orgA.testKey, [csvFile(csvOf(rowsOf(3)))])).json<Json>();
    const early = await app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}/file`, headers: bearer(orgA.testKey) });
    expect(early.statusCode).toBe(409);
    expect(errorOf(early).details).toMatchObject({ reason: 'job_not_done', status: 'draft' });
    expect((await app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}/file`, headers: bearer(orgB.testKey) })).statusCode).toBe(404);
    await app.inject({ method: 'DELETE', url: `/v2/check-jobs/${draft.id}`, headers: bearer(orgA.testKey) });
    expect((await app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}/file`, headers: bearer(orgA.testKey) })).statusCode).toBe(410);
  });
});
