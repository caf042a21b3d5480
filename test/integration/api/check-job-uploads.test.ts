/**
 * File uploads through the API (docs/decisions.md §7, §14) on one in-memory database with the embedded
 * event log: multipart → draft (columns, mapping, preview) → start → rows with their cells on the
 * log; refusals that leave no job, no spool or draft file and no event; GET …/file of a done job.
 * The whole pipeline (matcher, projection) with files made by LibreOffice and exceljs runs in
 * test/e2e/uploads.*.test.ts.
 */
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { fileRefusalMessage } from '../../../services/ingest/index.ts';
import { matchChunk } from '../../../services/matcher/match-chunk.ts';
import type { PipelineEvent } from '../../../services/pipeline/events.ts';
import type { FormPart } from '../../support/multipart.ts';
import { bearer, errorOf } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';
import { parseCsv } from '../../e2e/uploads-scenarios.ts';

type Json = Record<string, any>;

/** Test keys answer by surname (docs/decisions.md §3): Robinson 5, Bygning 4, Fornavn 3, Efternavn 2, Husstand 1, else 0. */
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
      list_version: { id: '00000000-0000-4000-8000-000000000001' }, price: null, external_ref: 'crm-7', processed_count: 0,
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
    // The file has no CVR column: the company check's warning is confirmed (warnings: their own tests below).
    const start = (options: Json) => app.inject({
      method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: { ...bearer(orgA.testKey), 'accept-language': 'da' }, payload: { options, confirm_warnings: true },
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

  it('options.start with more rows than the overlap: rows published while the file is read; a wider row and a Windows-1252 byte past the head end up on the record', async () => {
    const { upload, orgA, log, jobs, spoolDir, filesIn } = await uploadsApi();
    const rows = rowsOf(12_000);
    rows[11_500].push('extra');
    const text = [HEADER, ...rows].map((r) => r.join(',')).join('\r\n') + '\r\n';
    // UTF-8 up to here (the first 64 KiB decide the encoding), then one byte that only Windows-1252 reads: "ø".
    const bytes = Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from('K-x,Bo,Jensen,N\xf8rregade 1,8000,Aarhus C,n\r\n', 'latin1')]);
    const response = await upload(orgA.testKey, [csvFile(bytes), { name: 'options', value: JSON.stringify({ start: true }) }]);
    expect(response.statusCode, response.body).toBe(202);
    const job = response.json<Json>();
    expect(job).toMatchObject({ status: 'queued', row_count: 12_001, columns: [...HEADER, ''] });
    const record = await jobs.getJobById(job.id);
    expect(record).toMatchObject({ row_count: 12_001, columns: [...HEADER, ''], csv_dialect: { encoding: 'windows-1252', delimiter: ',' } });
    expect(record?.input_sha256).toMatch(/^[0-9a-f]{64}$/);
    const events = eventsOf(await log.decoded(), job.id);
    expect(events.created).toHaveLength(1);
    const published = events.chunks.flatMap((c) => c.rows);
    expect(published).toHaveLength(12_001);
    expect(published.at(-1)).toMatchObject({ cells: ['K-x', 'Bo', 'Jensen', 'Nørregade 1', '8000', 'Aarhus C', 'n'] });
    expect(events.complete).toHaveLength(1);
    expect(filesIn(spoolDir)).toEqual([]);
  });

  it('options.start: a refusal after the overlap began abandons the job it published to; no job is left to see', async () => {
    const { app, upload, orgA, log, jobs, spoolDir, filesIn } = await uploadsApi();
    const rows = rowsOf(12_000);
    rows[11_000][1] = 'x'.repeat(201);
    const response = await upload(orgA.testKey, [csvFile(csvOf(rows)), { name: 'options', value: JSON.stringify({ start: true }) }], { 'accept-language': 'en' });
    expect(response.statusCode).toBe(422);
    expect(errorOf(response).details?.issues).toEqual([{ path: 'rows[11000].first_name', message: expect.stringContaining('200') }]);
    // The overlap had begun: a job was created and rows were published, then it was given up.
    const created = (await log.decoded()).filter((e) => e.type === 'JobCreated');
    expect(created).toHaveLength(1);
    const jobId = (created[0].value as { job_id: string }).job_id;
    expect(await jobs.getJobById(jobId)).toMatchObject({ status: 'deleted', error: 'intake_refused' });
    expect((await log.decoded()).filter((e) => e.type === 'RowsChunk').length).toBeGreaterThan(0);
    expect((await log.decoded()).filter((e) => e.type === 'RowsComplete')).toEqual([]);
    const list = await app.inject({ method: 'GET', url: '/v2/check-jobs', headers: bearer(orgA.testKey) });
    expect(list.json<Json>().data).toEqual([]);
    expect(filesIn(spoolDir)).toEqual([]);
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
    // Numbers as names and addresses: every row unreadable, so the start needs the warning confirmed.
    const mapping = { header_row: -1, name: 0, address: 1 };
    const unconfirmed = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: { ...bearer(orgA.testKey), 'accept-language': 'en' }, payload: { column_mapping: mapping } });
    expect(unconfirmed.statusCode, unconfirmed.body).toBe(409);
    expect(errorOf(unconfirmed)).toMatchObject({ code: 'conflict', details: { reason: 'warnings_unconfirmed', warnings: ['mostly_unreadable'] } });
    expect(errorOf(unconfirmed).message).toBe('The check was not started: 3 of the first 3 rows cannot be read (unreadable address or no name). '
      + 'Check that the right columns are chosen. Fix the columns, or start with confirm_warnings: true.');
    const started = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey), payload: { column_mapping: mapping, confirm_warnings: true } });
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

  /** The verdict in words by test-key surname (docs/decisions.md §3 levels, stop line 1), written out here. */
  const WORDS_EN: Record<string, [string, string, string, string]> = {
    Robinson: ['Blocked', '5', 'Same name and address', 'Same name and same home on the list'],
    Bygning: ['Blocked', '4', 'Same name, other flat in the building', 'Same name at the address on the list'],
    Fornavn: ['Blocked', '3', 'Given name matches at the address', 'Part of the name matches at the address'],
    Efternavn: ['Blocked', '2', 'Surname matches at the address', 'Part of the name matches at the address'],
    Husstand: ['Manual review', '1', 'Household: someone else at the address', 'Someone else in the home is on the list'],
    Jensen: ['Allowed', '0', 'No match', ''],
  };

  it('gives the customer\'s own CSV back with the verdict in words, the list version as its date; formulas neutralised', async () => {
    const rows = rowsOf(30);
    const { app, orgA, id } = await doneJob(rows);
    const response = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file`, headers: { ...bearer(orgA.testKey), 'accept-language': 'en' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toContain('kunder.result.csv');
    const lines = parseCsv(response.body.replace(/^\uFEFF/, ''), ',');
    expect(lines[0]).toEqual([...HEADER, 'Status', 'Match level', 'Match', 'Reason', 'List version (published)', 'Approximate name']);
    expect(lines).toHaveLength(31);
    for (const [i, row] of rows.entries()) {
      const cells = lines[i + 1];
      expect(cells.slice(0, HEADER.length)).toEqual(row.map((c) => (c.startsWith('=') ? `'${c}` : c)));
      expect(cells.slice(HEADER.length)).toEqual([...WORDS_EN[row[2]], '2026-01-01', 'No']);
    }
    const danish = parseCsv((await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file`, headers: bearer(orgA.testKey) })).body, ',');
    expect(danish[0].slice(HEADER.length)).toEqual(['Status', 'Matchniveau', 'Match', 'Årsag', 'Listeversion (udgivet)', 'Navn tilnærmet']);
    expect(danish[1].slice(HEADER.length)).toEqual(['Blokeret', '5', 'Samme navn og adresse', 'Samme navn og samme bolig på listen', '2026-01-01', 'Nej']);
    expect(danish[5].slice(HEADER.length, HEADER.length + 1)).toEqual(['Manuel vurdering']);
    expect(danish[6].slice(HEADER.length, HEADER.length + 1)).toEqual(['Tilladt']);
  });

  it('?rows=blocked / allowed / manual give only those rows, named for them; an unknown value is 422', async () => {
    const rows = rowsOf(30);
    const { app, orgA, id } = await doneJob(rows);
    for (const [only, word] of [['blocked', 'Blocked'], ['allowed', 'Allowed'], ['manual', 'Manual review']] as const) {
      const response = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file?rows=${only}`, headers: { ...bearer(orgA.testKey), 'accept-language': 'en' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-disposition']).toContain(`kunder.${only}.result.csv`);
      const lines = parseCsv(response.body, ',').slice(1);
      const expected = rows.filter((r) => WORDS_EN[r[2]][0] === word);
      expect(lines.map((l) => l[0])).toEqual(expected.map((r) => r[0]));
      expect(lines.length).toBeGreaterThan(0);
    }
    const all = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file?rows=all`, headers: bearer(orgA.testKey) });
    expect(parseCsv(all.body, ',')).toHaveLength(31);
    const bad = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file?rows=some`, headers: { ...bearer(orgA.testKey), 'accept-language': 'en' } });
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).details?.issues).toEqual([{ path: 'rows', message: expect.any(String) }]);
    // A change report is a monitor re-check's: an uploaded file's job has no changes to give.
    for (const [language, message] of [['da', 'Kun for job fra en overvågning.'], ['en', 'Only for jobs of a monitor.']] as const) {
      const notMonitor = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file?change=any`, headers: { ...bearer(orgA.testKey), 'accept-language': language } });
      expect(notMonitor.statusCode).toBe(422);
      expect(errorOf(notMonitor).details?.issues).toEqual([{ path: 'change', message }]);
    }
  });

  it('xlsx for people: bold, filled, frozen header with filters, coloured status cells, a legend sheet with the counts', async () => {
    const rows = rowsOf(12);
    const { app, orgA, id, jobs } = await doneJob(rows);
    await jobs.updateJob(id, { row_count: 12, blocked_count: 8, allowed_count: 2, manual_count: 2, finished_at: '2026-03-02T10:15:00.000Z' });
    const response = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/file?format=xlsx`, headers: bearer(orgA.testKey) });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    expect(workbook.worksheets.map((w) => w.name)).toEqual(['Resultater', 'Forklaring']);
    const sheet = workbook.worksheets[0];
    const statusAt = HEADER.length + 1;
    expect(sheet.getRow(1).getCell(statusAt).value).toBe('Status');
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect((sheet.getRow(1).getCell(1).fill as ExcelJS.FillPattern).pattern).toBe('solid');
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).toBe(`A1:${String.fromCharCode(64 + HEADER.length + 6)}13`);
    expect(sheet.getRow(2).getCell(statusAt).value).toBe('Blokeret');
    expect(sheet.getRow(2).getCell(statusAt + 1).value).toBe(5);
    const fillOf = (r: number) => ((sheet.getRow(r).getCell(statusAt).fill as ExcelJS.FillPattern).fgColor?.argb);
    expect(new Set([fillOf(2), fillOf(6), fillOf(7)]).size).toBe(3);
    const legend = workbook.worksheets[1];
    const text: string[] = [];
    legend.eachRow((row) => text.push((row.values as unknown[]).slice(1).map((v) => String(v ?? '')).join(' | ')));
    expect(text).toContain('Fil | kunder.csv');
    expect(text).toContain('Tjekket | 2026-03-02 10:15 UTC');
    expect(text).toContain('Listeversion (udgivet) | 2026-01-01');
    expect(text).toContain('Rækker i jobbet | 12');
    expect(text).toContain('Blokeret | 8');
    expect(text).toContain('Tilladt | 2');
    expect(text).toContain('Manuel vurdering | 2');
    expect(text).toContain('Niveau 5 | Samme navn og adresse');
    expect(text.some((l) => l.startsWith('Matchniveau | Hvor tæt personen matcher listen'))).toBe(true);
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

describe('warnings before a check: no silent failure', () => {
  /** The customer's file of the report: the address column headed "Adr.", or headed nothing the service knows. */
  const fileWith = (addressHeader: string, address: (i: number) => string, count = 30) => Buffer.from([
    ['Navn', addressHeader, 'Postnr', 'By'].join(';'),
    ...Array.from({ length: count }, (_, i) => [`Anne ${SURNAMES[i % SURNAMES.length]}`, address(i), '8000', 'Aarhus C'].join(';')),
  ].join('\r\n') + '\r\n');

  it('an "Adr." column of street-and-number texts is read as the address: no warning, the preview checked', async () => {
    const { upload, orgA } = await uploadsApi();
    const job = (await upload(orgA.testKey, [csvFile(fileWith('Adr.', (i) => `Vestergade ${i + 1}, 2. tv`))])).json<Json>();
    expect(job.column_mapping).toEqual({ header_row: 0, name: 'Navn', address: 'Adr.', postal_code: 'Postnr', city: 'By' });
    expect(job.warnings).toEqual([]);
    expect(job.preview.filter((p: Json) => p.result.match.level === null)).toHaveLength(0);
  });

  it('no address column: the draft says so in da and en, /start is 409 until confirmed and publishes nothing meanwhile', async () => {
    const { app, upload, orgA, log } = await uploadsApi();
    // House number first: neither the header nor the content says "address".
    const draft = (await upload(orgA.testKey, [csvFile(fileWith('Lokation', (i) => `${i + 1} Vestergade`))])).json<Json>();
    expect(draft.column_mapping).toEqual({ header_row: 0, name: 'Navn', postal_code: 'Postnr', city: 'By' });
    expect(draft.warnings).toEqual([{
      code: 'no_address_column',
      messages: { da: expect.stringContaining('Ingen kolonne blev genkendt som adresse'), en: expect.stringContaining('No column was recognised as the address') },
    }]);
    const start = (payload: Json, language = 'da') => app.inject({
      method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: { ...bearer(orgA.testKey), 'accept-language': language }, payload,
    });
    for (const language of ['da', 'en']) {
      const refused = await start({}, language);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(errorOf(refused)).toMatchObject({ code: 'conflict', details: { reason: 'warnings_unconfirmed', warnings: ['no_address_column'] } });
      expect(errorOf(refused).message).toContain(language === 'da' ? 'manuel vurdering' : 'manual review');
    }
    expect(await log.count()).toBe(0);
    const still = await app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}`, headers: bearer(orgA.testKey) });
    expect(still.json()).toMatchObject({ status: 'draft', warnings: [{ code: 'no_address_column' }] });
    // Fixed by mapping the column: the new mapping's rows are read again, so no confirmation is needed…
    // …unless they still cannot be read: "12 Vestergade" parses as no street with a number.
    const stillUnreadable = await start({ column_mapping: { ...draft.column_mapping, address: 'Lokation' } });
    expect(stillUnreadable.statusCode, stillUnreadable.body).toBe(409);
    expect(errorOf(stillUnreadable).details).toMatchObject({ warnings: ['mostly_unreadable'] });
    const confirmed = await start({ confirm_warnings: true });
    expect(confirmed.statusCode, confirmed.body).toBe(202);
    expect(confirmed.json()).toMatchObject({ status: 'queued', warnings: [] });
  });

  it('a mapping given at start is judged on its own rows: a good one starts without confirming', async () => {
    const { app, upload, orgA } = await uploadsApi();
    const bytes = Buffer.from(['Navn;Felt 2;Felt 3;Postnr', ...Array.from({ length: 5 }, (_, i) => `Anne Jensen;Vestergade;${i + 1};8000`)].join('\r\n'));
    const draft = (await upload(orgA.testKey, [csvFile(bytes)])).json<Json>();
    expect(draft.warnings.map((w: Json) => w.code)).toEqual(['no_address_column']);
    const start = (column_mapping: Json) => app.inject({
      method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey), payload: { column_mapping },
    });
    // A street without its number is no address: still refused, for the rows this time.
    const streetOnly = await start({ name: 'Navn', street: 'Felt 2', postal_code: 'Postnr' });
    expect(streetOnly.statusCode).toBe(409);
    expect(errorOf(streetOnly).details).toMatchObject({ warnings: ['mostly_unreadable'] });
    const fixed = await start({ name: 'Navn', street: 'Felt 2', house_number: 'Felt 3', postal_code: 'Postnr' });
    expect(fixed.statusCode, fixed.body).toBe(202);
    expect(fixed.json()).toMatchObject({ status: 'queued', row_count: 5 });
  });

  it('a draft whose preview is mostly unreadable says how many rows', async () => {
    const { upload, orgA } = await uploadsApi();
    const job = (await upload(orgA.testKey, [csvFile(fileWith('Adresse', (i) => (i % 4 === 0 ? `Vestergade ${i + 1}` : '?')))])).json<Json>();
    expect(job.warnings).toEqual([{
      code: 'mostly_unreadable', rows: { unreadable: 15, of: 20 },
      messages: { da: expect.stringContaining('15 af de første 20 rækker'), en: expect.stringContaining('15 of the first 20 rows') },
    }]);
  });

  it('options.start with a warning creates nothing (409); with confirm_warnings it starts', async () => {
    const { upload, orgA, log, draftDir, filesIn, app } = await uploadsApi();
    const file = () => csvFile(fileWith('Lokation', (i) => `${i + 1} Vestergade`));
    const refused = await upload(orgA.testKey, [file(), { name: 'options', value: JSON.stringify({ start: true }) }], { 'accept-language': 'en' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(errorOf(refused)).toMatchObject({ details: { reason: 'warnings_unconfirmed', warnings: ['no_address_column'] } });
    expect(await log.count()).toBe(0);
    expect(filesIn(draftDir)).toEqual([]);
    const list = await app.inject({ method: 'GET', url: '/v2/check-jobs', headers: bearer(orgA.testKey) });
    expect(list.json().data).toEqual([]);
    const started = await upload(orgA.testKey, [file(), { name: 'options', value: JSON.stringify({ start: true, confirm_warnings: true }) }]);
    expect(started.statusCode, started.body).toBe(202);
    expect(started.json()).toMatchObject({ status: 'queued', row_count: 30 });
  });
});

describe('POST /v2/check-jobs/{id}/preview: fix the mapping of the same draft', () => {
  it('checks the first rows again with the new mapping: new preview and warnings, same id, nothing published; then starts unconfirmed', async () => {
    const { app, upload, orgA, log } = await uploadsApi();
    const bytes = Buffer.from(['Navn;Felt 2;Felt 3;Postnr', ...Array.from({ length: 25 }, (_, i) => `Anne ${SURNAMES[i % SURNAMES.length]};Vestergade;${i + 1};8000`)].join('\r\n'));
    const draft = (await upload(orgA.testKey, [csvFile(bytes)])).json<Json>();
    expect(draft.warnings.map((w: Json) => w.code)).toEqual(['no_address_column']);
    expect(draft.preview.every((p: Json) => p.result.match.level === null)).toBe(true);
    const post = (payload: Json, language = 'da') => app.inject({
      method: 'POST', url: `/v2/check-jobs/${draft.id}/preview`, headers: { ...bearer(orgA.testKey), 'accept-language': language }, payload,
    });
    const fixed = await post({ column_mapping: { name: 'Navn', street: 'Felt 2', house_number: 'Felt 3', postal_code: 'Postnr' } });
    expect(fixed.statusCode, fixed.body).toBe(200);
    const job = fixed.json<Json>();
    expect(job).toMatchObject({ id: draft.id, status: 'draft', row_count: 25, warnings: [], column_mapping: { street: 'Felt 2', house_number: 'Felt 3' } });
    expect(job.preview).toHaveLength(20);
    expect(job.preview.map((p: Json) => p.result.match.level)).toEqual(Array.from({ length: 20 }, (_, i) => LEVEL_OF[SURNAMES[i % SURNAMES.length]]));
    expect(job.preview.map((p: Json) => p.cells)).toEqual(draft.preview.map((p: Json) => p.cells));
    expect(await log.count()).toBe(0);
    // GET shows the same; a mapping naming a missing column is 422 and changes nothing.
    expect((await app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}`, headers: bearer(orgA.testKey) })).json()).toMatchObject({ warnings: [], column_mapping: job.column_mapping });
    const bad = await post({ column_mapping: { name: 'Navn', address: 'Gade' } }, 'en');
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).details?.issues).toEqual([{ path: 'column_mapping.address', message: 'The column does not exist in the file.' }]);
    expect((await app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}`, headers: bearer(orgA.testKey) })).json()).toMatchObject({ column_mapping: job.column_mapping });
    // Another header row: the rows are counted again.
    const shifted = await post({ column_mapping: { header_row: 1, name: 0, street: 1, house_number: 2, postal_code: 3 } });
    expect(shifted.json()).toMatchObject({ row_count: 24, columns: ['Anne Robinson', 'Vestergade', '1', '8000'] });
    await post({ column_mapping: job.column_mapping });
    // The draft's own mapping has no warning now: it starts without a confirmation.
    const started = await app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(orgA.testKey), payload: {} });
    expect(started.statusCode, started.body).toBe(202);
    expect(started.json()).toMatchObject({ status: 'queued', row_count: 25 });
    const again = await post({});
    expect(again.statusCode).toBe(409);
    expect(errorOf(again).details).toMatchObject({ reason: 'job_not_draft', status: 'queued' });
  });
});
