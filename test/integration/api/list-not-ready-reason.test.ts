/**
 * When a person gets the reason `list_not_ready` (docs/uploads.md "Drafts before a list is active"):
 * only in the preview of a live draft uploaded while no national list version is active. The draft
 * is kept (the column reading is useful before the list arrives), names no list version, and its
 * rows say `list_not_ready` (status manual, level null) — or, for a row that cannot be checked at
 * all, only why. Its /start is 503 until a list is active; then a new preview has verdicts and the
 * start pins the version. Every other way to check without a list is refused whole (503 / 422).
 */
import { describe, expect, it } from 'vitest';
import type { FormPart } from '../../support/multipart.ts';
import { bearer, errorOf, LIVE_ENTRIES, LIVE_VERSION_ID } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

type Json = Record<string, any>;

const csv = Buffer.from('Navn,Adresse\r\nSøren Kjær,"Vestergade 12, 2. tv, 8000 Aarhus C"\r\n,"Nørregade 3, 1000 København K"\r\n');
const file: FormPart = { name: 'file', value: { bytes: csv, filename: 'kunder.csv' } };

describe('the result reason list_not_ready', () => {
  it('marks the preview rows of a live draft uploaded before any list is active; once one is, the draft gets verdicts and starts pinned to it', async () => {
    const api = await uploadsApi();
    const key = api.orgA.liveKey;
    const upload = await api.upload(key, [file], { 'accept-language': 'en' });
    expect(upload.statusCode, upload.body).toBe(202);
    const draft = upload.json<Json>();
    expect(draft).toMatchObject({ status: 'draft', list_version: null, row_count: 2 });
    const [readable, nameless] = draft.preview.map((row: Json) => row.result);
    expect(readable).toMatchObject({
      status: 'manual', reasons: ['list_not_ready'], level: null,
      match: { level: null, code: null, label: 'The list is not ready yet', on: [] },
    });
    expect(readable.address).toMatchObject({ ok: true, postal_code: '8000' });
    expect(nameless).toMatchObject({ status: 'manual', reasons: ['no_name'], match: { level: null } });

    // Nothing can be pinned yet: the start is refused and the draft stays.
    const early = await api.app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: { ...bearer(key), 'accept-language': 'da' }, payload: { confirm_warnings: true } });
    expect(early.statusCode).toBe(503);
    expect(errorOf(early).code).toBe('list_not_ready');
    expect(early.headers['retry-after']).toBeDefined();
    expect((await api.app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}`, headers: bearer(key) })).json<Json>().status).toBe('draft');

    // The list arrives: the same draft previews with verdicts and starts pinned to it.
    await api.lists.createListVersion({ id: LIVE_VERSION_ID, source: 'cpr', org_id: null, published_on: '2026-10-01', created_at: new Date().toISOString(), activated_at: null, entry_count: 0 });
    await api.lists.appendListEntries(LIVE_VERSION_ID, LIVE_ENTRIES);
    await api.lists.sealListVersion(LIVE_VERSION_ID);
    await api.lists.activateListVersion(LIVE_VERSION_ID, new Date().toISOString());
    await api.activeIndex.refresh();
    const again = await api.app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/preview`, headers: bearer(key), payload: {} });
    expect(again.statusCode).toBe(200);
    expect(again.json<Json>().preview[0].result).toMatchObject({ status: 'blocked', match: { level: 5 } });
    expect(again.json<Json>().preview[0].result.reasons).not.toContain('list_not_ready');
    const started = await api.app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(key), payload: { confirm_warnings: true } });
    expect(started.statusCode, started.body).toBe(202);
    expect(started.json<Json>()).toMatchObject({ status: 'queued', list_version: { id: LIVE_VERSION_ID } });
  });

  it('is never a result of a call that checks without a list: those are refused whole with 503', async () => {
    const api = await uploadsApi();
    const checks = await api.app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(api.orgA.liveKey), payload: { people: [{ name: 'Søren Kjær', address: 'Vestergade 12, 8000 Aarhus C' }] } });
    expect(checks.statusCode).toBe(503);
    expect(errorOf(checks).code).toBe('list_not_ready');
    const job = await api.app.inject({ method: 'POST', url: '/v2/check-jobs', headers: bearer(api.orgA.liveKey), payload: { people: [{ name: 'Søren Kjær', address: 'Vestergade 12, 8000 Aarhus C' }] } });
    expect(job.statusCode).toBe(503);
    const startedAtOnce = await api.upload(api.orgA.liveKey, [file, { name: 'options', value: JSON.stringify({ start: true, confirm_warnings: true }) }]);
    expect(startedAtOnce.statusCode).toBe(503);
    expect(await api.allJobs()).toEqual([]);
  });
});
