/**
 * Uploaded bytes on a full disk (docs/api-decisions.md "Spool full"): a file upload (the `.part`
 * in SPOOL_DIR), a draft's copy in UPLOAD_DIR, and a monitor's file or Idempotency-Key body are
 * 503 `service_unavailable` / `spool_full` with Retry-After in the caller's language, like the JSON
 * job spool, and leave nothing behind: no job or monitor, no file, no event. The full disk is a
 * real one: a small tmpfs (test/support/small-disk.ts).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { makeSpreadsheets, scratchDir, type Rows } from '../../support/files/spreadsheets.ts';
import type { FormPart } from '../../support/multipart.ts';
import { smallDisk } from '../../support/small-disk.ts';
import { bearer, errorOf } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

type Json = Record<string, any>;
/** The disk: 64 KiB. A file of 3,000 rows is about 150 KB; one of 20 rows fits. */
const DISK_KIB = 64;

/** The API with its spool, or its draft directory, on a full disk; requests ask for Danish. */
async function setup(full: 'spool' | 'drafts', diskKiB = DISK_KIB) {
  const disk = await smallDisk(diskKiB);
  const api = await uploadsApi(full === 'spool' ? { spoolDir: disk } : { draftDir: disk });
  const post = (url: string, key: string, parts: FormPart[]) => api.postForm(url, key, parts, { 'accept-language': 'da' });
  return { ...api, post };
}

const csvOf = (rows: number) =>
  Buffer.from(['Fornavn,Efternavn,Adresse,Postnr.,By', ...Array.from({ length: rows }, (_, i) => `Åse,Jensen,Østergade ${i + 1},8000,Aarhus C`)].join('\r\n') + '\r\n');
const csvFile = (rows: number): FormPart => ({ name: 'file', value: { bytes: csvOf(rows), filename: 'kunder.csv' } });

/** The answer of a full spool, in Danish (the request asked for it). */
function expectSpoolFull(response: { statusCode: number; body: string; headers: Record<string, unknown>; json: () => unknown }) {
  expect(response.statusCode, response.body).toBe(503);
  expect(errorOf(response)).toMatchObject({ code: 'service_unavailable', details: { reason: 'spool_full' } });
  expect(errorOf(response).message).toBe('Der er ikke plads til jobbet lige nu; intet er oprettet. Prøv igen senere.');
  expect(response.headers['retry-after']).toBe('300');
  expect(response.body).not.toContain('Østergade');
}

describe('uploaded bytes on a full disk: 503 spool_full, nothing left behind', () => {
  it('a file upload whose .part does not fit SPOOL_DIR; the next file that fits becomes a draft', async () => {
    const { post, orgA, log, allJobs, spoolDir, draftDir, filesIn } = await setup('spool');
    expectSpoolFull(await post('/v2/check-jobs', orgA.testKey, [csvFile(3000)]));
    expect(await allJobs()).toEqual([]);
    expect(filesIn(spoolDir), 'no .part left in the spool').toEqual([]);
    expect(filesIn(draftDir)).toEqual([]);
    expect(await log.count()).toBe(0);
    // The space was given back: a small file goes through the same spool.
    const next = await post('/v2/check-jobs', orgA.testKey, [csvFile(20)]);
    expect(next.statusCode, next.body).toBe(202);
    expect(next.json<Json>()).toMatchObject({ status: 'draft', row_count: 20 });
  });

  it("a draft whose copy does not fit UPLOAD_DIR (another file system than the spool's)", async () => {
    const { post, orgA, log, allJobs, spoolDir, draftDir, filesIn } = await setup('drafts');
    expectSpoolFull(await post('/v2/check-jobs', orgA.testKey, [csvFile(3000)]));
    expect(await allJobs()).toEqual([]);
    expect(filesIn(draftDir), 'no part of the draft file left').toEqual([]);
    expect(filesIn(spoolDir), 'no .part left in the spool').toEqual([]);
    expect(await log.count()).toBe(0);
  });

  it('a monitor from a file, and from a JSON body spooled for its Idempotency-Key', async () => {
    const { app, post, orgA, spoolDir, filesIn } = await setup('spool');
    expectSpoolFull(await post('/v2/monitors', orgA.testKey, [csvFile(3000)]));
    const people = Array.from({ length: 3000 }, (_, i) => ({ first_name: 'Åse', last_name: 'Jensen', address: `Østergade ${i + 1}, 8000 Aarhus C` }));
    expectSpoolFull(await app.inject({
      method: 'POST', url: '/v2/monitors', payload: { people },
      headers: { ...bearer(orgA.testKey), 'accept-language': 'da', 'idempotency-key': 'monitor-on-a-full-disk' },
    }));
    const listed = await app.inject({ method: 'GET', url: '/v2/monitors', headers: bearer(orgA.testKey) });
    expect(listed.json<Json>().monitors).toEqual([]);
    expect(filesIn(spoolDir), 'no .part left in the spool').toEqual([]);
    // The key was not used up by the refusal: the same key with a body that fits creates the monitor.
    const next = await app.inject({
      method: 'POST', url: '/v2/monitors', payload: { people: people.slice(0, 20) },
      headers: { ...bearer(orgA.testKey), 'idempotency-key': 'monitor-on-a-full-disk' },
    });
    expect(next.statusCode, next.body).toBe(201);
    expect(next.json<Json>()).toMatchObject({ contact_count: 20 });
  });

  it('an xlsx whose sheet XML is four times the free spool is read without a copy: a draft, nothing left in the spool', async () => {
    // 6,000 rows: the xlsx is about 140 KB, its sheet's XML over 1 MB; the disk 256 KiB. The sheet
    // is parsed from the zip by offset (docs/files.md "Reading an xlsx"), so the spool only holds
    // the upload's .part while it is read.
    const rows: Rows = [['Fornavn', 'Efternavn', 'Adresse', 'Postnr.', 'By']];
    for (let i = 0; i < 6000; i++) rows.push(['Åse', 'Jensen', `Østergade ${i + 1}`, '8000', 'Aarhus C']);
    const [xlsx] = await makeSpreadsheets(await scratchDir('spool-full-xlsx'), [{ name: 'kunder.xlsx', rows, via: 'exceljs' }]);
    const { post, orgA, spoolDir, filesIn } = await setup('spool', 256);
    const draft = await post('/v2/check-jobs', orgA.testKey, [{ name: 'file', value: { bytes: await readFile(xlsx), filename: 'kunder.xlsx' } }]);
    expect(draft.statusCode, draft.body).toBe(202);
    expect(draft.json<Json>()).toMatchObject({ status: 'draft', row_count: 6000 });
    expect(filesIn(spoolDir)).toEqual([]);
  }, 60_000);
});
