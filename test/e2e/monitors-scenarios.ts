/**
 * Monitors end to end (docs/decisions.md §16, docs/monitors.md), written once against a running deployment
 * reached over real HTTP, run by monitors.embedded.test.ts (npm start's wiring) and
 * monitors.distributed.test.ts (Kafka + ClickHouse, the monitor service as its own process).
 */
import { expect } from 'vitest';
import type { ListEntry, PersonInput } from '../../services/domain/types.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import type { MonitorRecord } from '../../services/platform/store/monitors-port.ts';
import { signatureVerifies } from '../support/callback-receiver.ts';
import { seedListVersion } from '../support/pipeline.ts';
import { readFile } from 'node:fs/promises';
import { makeSpreadsheet, scratchDir } from '../support/files/spreadsheets.ts';
import { multipartBody } from '../support/multipart.ts';
import { importListVersion } from '../../services/registers/lists/import.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { orgIdOfKey } from './private-list-scenario.ts';
import { allResults, api, getJob, type Deployment } from './pipeline-scenarios.ts';

type Json = Record<string, any>;

/** Contact i: a name and a building of its own, so a list entry of one never touches another. */
/**
 * The scenarios share one organisation and create or replace some twenty monitors within
 * seconds, beyond the default monitor upload allowance (docs/api-decisions.md "Quotas"): their
 * deployments raise it. The quota itself is tested in test/integration/api/quotas.test.ts.
 */
export const MONITOR_SCENARIO_ENV = { QUOTA_MONITOR_UPLOAD_BURST: '1000' } as const;

export function contact(i: number): PersonInput {
  return {
    id: `c${i}`,
    name: `Karen${i} Kontaktsen${i}`,
    address: `Overvågningsvej ${(i % 900) + 1}, ${Math.floor(i / 900) + 1}. th, ${8000 + (i % 200)} Aarhus`,
  };
}

/** The list entry of contact i (same person, same unit): a level-5 match, blocked. */
export function entryOf(i: number): ListEntry {
  const c = contact(i);
  return { name: `Kontaktsen${i},Karen${i}`, address: c.address };
}

/** Entries of people who are no contact (other street), so a version is never only the contacts. */
export function strangers(n: number): ListEntry[] {
  return Array.from({ length: n }, (_, i) => ({ name: `Fremmed${i},Ole`, address: `Andenvej ${i + 1}, 9000 Aalborg` }));
}

export const CONTACTS = 10_000;
/** On version N: contacts 0..99 (removed in N+1). On N+1: contacts 100..299 (added). */
export const versionN = (): ListEntry[] => [...Array.from({ length: 100 }, (_, i) => entryOf(i)), ...strangers(500)];
export const versionN1 = (): ListEntry[] => [...Array.from({ length: 200 }, (_, i) => entryOf(100 + i)), ...strangers(500)];

export async function getMonitor(d: Deployment, id: string): Promise<Json> {
  const { status, json } = await api(d, 'GET', `/v2/monitors/${id}`);
  expect(status, JSON.stringify(json)).toBe(200);
  return json;
}

/** Polls the monitor until `check` holds (the service's own state, read over the API). */
export async function waitForMonitor(d: Deployment, id: string, check: (m: Json) => boolean, timeoutMs = 120_000): Promise<Json> {
  const end = Date.now() + timeoutMs;
  let m: Json = {};
  while (Date.now() < end) {
    m = await getMonitor(d, id);
    if (check(m)) return m;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`monitor ${id} did not reach the expected state; last seen: ${JSON.stringify(m)}`);
}

/** The completion callbacks the receiver got for one job (by the body's id), answered 2xx. */
export function callbacksOf(d: Deployment, path: string, jobId: string): Json[] {
  return d.receiver.received(path)
    .filter((r) => r.answered < 300)
    .map((r) => ({ ...JSON.parse(r.body), _headers: r.headers, _raw: r.body }))
    .filter((b) => b.id === jobId);
}

export async function waitForCallback(d: Deployment, path: string, jobId: string): Promise<Json> {
  const end = Date.now() + 60_000;
  while (callbacksOf(d, path, jobId).length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  const got = callbacksOf(d, path, jobId);
  expect(got).toHaveLength(1);
  return got[0];
}

export interface MonitorScenarioHooks {
  platform: Platform;
  /** Resolves after the monitor service has finished `n` more whole walks (its own signal). */
  walks(n: number): Promise<void>;
}

/**
 * The must-show: a monitor of 10,000 contacts checked against version N; N+1 activated with 200
 * of them added and 100 removed → one monitor job with exactly those 300 changes and one
 * callback; activating N+1 again → no job, nothing reported.
 */
export async function monitorScenario(d: Deployment, hooks: MonitorScenarioHooks): Promise<void> {
  const people = Array.from({ length: CONTACTS }, (_, i) => contact(i));
  const created = await api(d, 'POST', '/v2/monitors', { external_ref: 'crm', people, callback_url: d.receiver.url('monitor') });
  expect(created.status, created.text).toBe(201);
  expect(created.json).toMatchObject({ status: 'active', contact_count: CONTACTS, external_ref: 'crm', last_check: null });
  const id = created.json.id as string;

  // The first check: against N, every blocked contact reported newly_blocked.
  const first = await waitForMonitor(d, id, (m) => m.last_check !== null);
  expect(first.last_check.list_version_id).toBe(d.listVersionId);
  expect(first.pending_check).toBeNull();
  const firstJob = await getJob(d, first.last_check.job_id);
  expect(firstJob).toMatchObject({ source: 'monitor', status: 'done', row_count: CONTACTS, blocked_count: 100 });
  expect(firstJob.monitor).toEqual({ id, previous_job_id: null, changes: { newly_blocked: 100, released: 0, changed_level: 0 } });
  await waitForCallback(d, 'monitor', firstJob.id);

  // Version N+1: 200 contacts added, 100 removed.
  const next = await seedListVersion(hooks.platform.lists, versionN1());
  const second = await waitForMonitor(d, id, (m) => m.last_check?.list_version_id === next.id);
  const job = await getJob(d, second.last_check.job_id);
  expect(job).toMatchObject({ source: 'monitor', status: 'done', row_count: CONTACTS, processed_count: CONTACTS, blocked_count: 200, external_ref: 'crm' });
  expect(job.list_version.id).toBe(next.id);
  expect(job.monitor).toEqual({ id, previous_job_id: firstJob.id, changes: { newly_blocked: 200, released: 100, changed_level: 0 } });
  const { results } = await allResults(d, job.id);
  expect(results).toHaveLength(CONTACTS);
  expect(results.map((r) => r.id)).toEqual(people.map((p) => p.id));
  const changed = results.filter((r) => r.change !== null);
  expect(changed).toHaveLength(300);
  expect(changed.filter((r) => r.change === 'released').map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, i) => `c${i}`));
  expect(changed.filter((r) => r.change === 'newly_blocked').map((r) => r.id)).toEqual(Array.from({ length: 200 }, (_, i) => `c${100 + i}`));
  for (const r of changed) expect(r.status).toBe(r.change === 'released' ? 'allowed' : 'blocked');

  // One callback for the re-check, signed, carrying the changes; the same as GET apart from delivery state.
  const callback = await waitForCallback(d, 'monitor', job.id);
  expect(callback._headers['service-event']).toBe('check_job.completed');
  expect(signatureVerifies(callback._headers, callback._raw, d.liveKey)).toBe(true);
  expect(callback.monitor).toEqual(job.monitor);
  expect(d.receiver.received('monitor').filter((r) => r.answered < 300)).toHaveLength(2);

  // The same version activated again: no job, nothing reported.
  await hooks.platform.lists.activateListVersion(next.id, new Date().toISOString());
  await hooks.walks(2);
  const after = await getMonitor(d, id);
  expect(after.last_check).toEqual(second.last_check);
  expect(after.pending_check).toBeNull();
  expect(d.receiver.received('monitor')).toHaveLength(2);

  // Only the last check's verdicts are kept (incremental: the history is never read).
  const stored = await hooks.platform.monitors.getMonitorById(id) as MonitorRecord;
  expect((await hooks.platform.monitors.readVerdicts(id, firstJob.id, ['x'])).size).toBe(0);
  expect(await hooks.platform.monitors.countRunChanges(id, firstJob.id)).toEqual({ newly_blocked: 0, released: 0, changed_level: 0 });
  expect(stored.checked?.job_id).toBe(job.id);
}

/**
 * The API's edges (run while version N is active): a monitor from an xlsx file (exceljs), get and
 * list, a refused replacement changes nothing, an NDJSON replacement keeps a kept contact's
 * verdict (no change reported for it), delete (contacts and key gone, 404 after); a test key of
 * the same organisation sees nothing of it.
 */
export async function monitorApiScenario(d: Deployment, hooks: MonitorScenarioHooks): Promise<void> {
  const dir = await scratchDir('monitor-upload');
  const rows = [['Navn', 'Adresse'], ...[0, 5000].map((i) => [contact(i).name as string, contact(i).address as string])];
  const file = await makeSpreadsheet(dir, { name: 'kontakter.xlsx', rows, via: 'exceljs' });
  const { body, contentType } = await multipartBody([
    { name: 'file', value: { bytes: await readFile(file), filename: 'kontakter.xlsx' } },
    { name: 'options', value: JSON.stringify({ stop_level: 1 }) },
  ]);
  const response = await fetch(new URL('/v2/monitors', d.baseUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': contentType }, body,
  });
  const created = await response.json() as Json;
  expect(response.status, JSON.stringify(created)).toBe(201);
  expect(created).toMatchObject({ contact_count: 2, stop_level: 1, status: 'active' });
  const id = created.id as string;
  expect((await api(d, 'GET', `/v2/monitors/${id}`, undefined, d.testKey)).status).toBe(404);
  const list = await api(d, 'GET', '/v2/monitors?limit=1000');
  expect(list.status).toBe(200);
  expect(list.json.monitors.map((m: Json) => m.id)).toContain(id);
  const first = await waitForMonitor(d, id, (m) => m.last_check !== null);
  const firstResults = (await allResults(d, first.last_check.job_id)).results;
  expect(firstResults.map((r) => [r.status, r.change])).toEqual([['blocked', 'newly_blocked'], ['allowed', null]]);
  // The change report as a filter (docs/monitors.md "Change reports"): only the changed contacts.
  const onlyChanged = async (change: string) =>
    (await api(d, 'GET', `/v2/check-jobs/${first.last_check.job_id}/results?change=${change}`)).json.results.map((r: Json) => r.change);
  expect(await onlyChanged('newly_blocked')).toEqual(['newly_blocked']);
  expect(await onlyChanged('any')).toEqual(['newly_blocked']);
  expect(await onlyChanged('released')).toEqual([]);
  expect((await api(d, 'GET', `/v2/check-jobs/${first.last_check.job_id}/results?change=bogus`)).status).toBe(422);

  // A bad person in the replacement: 422, the monitor unchanged.
  const bad = await api(d, 'PUT', `/v2/monitors/${id}/contacts`, { people: [contact(1), { name: 'x'.repeat(201) }] });
  expect(bad.status, bad.text).toBe(422);
  expect(await getMonitor(d, id)).toMatchObject({ contact_count: 2, updated_at: first.updated_at });
  // Unknown fields are refused; so is a replacement that tries to change the monitor's fields.
  expect((await api(d, 'POST', '/v2/monitors', { people: [contact(1)], nonsense: 1 })).status).toBe(422);
  expect((await api(d, 'PUT', `/v2/monitors/${id}/contacts`, { people: [contact(1)], callback_url: 'https://example.org/' })).status).toBe(422);

  // NDJSON replacement, the blocked contact kept (same fields, other order) and one new: only real changes.
  const kept = { address: contact(0).address, name: contact(0).name };
  const ndjson = [kept, contact(7000)].map((p) => JSON.stringify(p)).join('\n');
  const replaced = await fetch(new URL(`/v2/monitors/${id}/contacts`, d.baseUrl), {
    method: 'PUT', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/x-ndjson' }, body: ndjson,
  });
  expect(replaced.status).toBe(200);
  const again = await waitForMonitor(d, id, (m) => m.last_check !== null && m.last_check.job_id !== first.last_check.job_id);
  const job = await getJob(d, again.last_check.job_id);
  expect(job.monitor).toEqual({ id, previous_job_id: first.last_check.job_id, changes: { newly_blocked: 0, released: 0, changed_level: 0 } });
  const { results } = await allResults(d, job.id);
  expect(results.map((r) => [r.status, r.change])).toEqual([['blocked', null], ['allowed', null]]);

  const deleted = await api(d, 'DELETE', `/v2/monitors/${id}`);
  expect(deleted.status).toBe(200);
  expect(deleted.json.status).toBe('deleted');
  expect((await api(d, 'GET', `/v2/monitors/${id}`)).status).toBe(404);
  expect((await api(d, 'DELETE', `/v2/monitors/${id}`)).status).toBe(404);
  const record = await hooks.platform.monitors.getMonitorById(id) as MonitorRecord;
  expect(record.data_key).toBeNull();
  expect(await hooks.platform.monitors.readContactBlocks(id, record.generation, { from: 0, to: 10 })).toEqual([]);
}

/** The organisation's own list as a customer writes it (semicolons, Danish headers), imported and activated. */
async function activatePrivateList(platform: Platform, orgId: string, csv: string): Promise<string> {
  const { version } = await importListVersion({ listStore: platform.lists, logger: silentLogger() }, {
    source: 'customer', format: 'csv', orgId, chunks: (async function* () { yield Buffer.from(csv, 'utf8'); })(),
  });
  await platform.lists.activateListVersion(version.id, new Date().toISOString());
  return version.id;
}

/**
 * A monitor with `use_private_list` (docs/decisions.md §16): refused while the organisation has no private
 * list; with one, a contact on it is blocked; a new version of the private list (without that
 * contact) is a re-check of its own that reports the release.
 */
export async function monitorPrivateListScenario(d: Deployment, hooks: MonitorScenarioHooks): Promise<void> {
  const people = [
    { id: 'own', name: 'Åse Østergård', address: 'Vestergade 3, 5000 Odense' },
    { id: 'other', name: 'Jens Jensen', address: 'Vestergade 9, 5000 Odense' },
  ];
  const refused = await api(d, 'POST', '/v2/monitors', { people, use_private_list: true });
  expect(refused.status, refused.text).toBe(422);
  expect(refused.json.error.details.issues.map((i: Json) => i.path)).toEqual(['use_private_list']);

  const orgId = await orgIdOfKey(hooks.platform, d.liveKey);
  await activatePrivateList(hooks.platform, orgId, 'Navn;Adresse\r\nÅse Østergård;Vestergade 3, 5000 Odense\r\n');
  const created = await api(d, 'POST', '/v2/monitors', { people, use_private_list: true });
  expect(created.status, created.text).toBe(201);
  expect(created.json.use_private_list).toBe(true);
  const id = created.json.id as string;
  const first = await waitForMonitor(d, id, (m) => m.last_check !== null);
  const firstResults = (await allResults(d, first.last_check.job_id)).results;
  expect(firstResults.map((r) => [r.id, r.status, r.change])).toEqual([['own', 'blocked', 'newly_blocked'], ['other', 'allowed', null]]);

  // A new private list version without her: a re-check, against the same national version.
  await activatePrivateList(hooks.platform, orgId, 'Navn;Adresse\r\nIb Berg;Strandvejen 100, 2900 Hellerup\r\n');
  const second = await waitForMonitor(d, id, (m) => m.last_check !== null && m.last_check.job_id !== first.last_check.job_id);
  expect(second.last_check.list_version_id).toBe(first.last_check.list_version_id);
  const job = await getJob(d, second.last_check.job_id);
  expect(job.options.use_private_list).toBe(true);
  expect(job.monitor.changes).toEqual({ newly_blocked: 0, released: 1, changed_level: 0 });
  expect((await api(d, 'DELETE', `/v2/monitors/${id}`)).status).toBe(200);
}

/** A monitor call with an Idempotency-Key over real HTTP: status, body text and the replay header. */
async function keyed(d: Deployment, method: 'POST' | 'PUT', path: string, key: string, body: string | Uint8Array, contentType: string, language = 'en') {
  const response = await fetch(new URL(path, d.baseUrl), {
    method,
    headers: { Authorization: `Bearer ${d.liveKey}`, 'Idempotency-Key': key, 'Accept-Language': language, 'Content-Type': contentType },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as Json, replayed: response.headers.get('idempotent-replayed'), location: response.headers.get('location') };
}

/**
 * Idempotency-Key on POST /v2/monitors and PUT /v2/monitors/{id}/contacts (docs/decisions.md §6, the
 * store shared by every API process): the same key and body replay the first answer byte for
 * byte and create or replace nothing more; the same key with another body is 422
 * `idempotency_key_reused` in da and en; a refused call does not use up its key; a key is scoped
 * to its monitor. JSON, NDJSON and multipart bodies.
 */
export async function monitorIdempotencyScenario(d: Deployment, hooks: MonitorScenarioHooks): Promise<void> {
  const run = `${Date.now()}`;
  const ref = `idem-${run}`;
  const body = JSON.stringify({ external_ref: ref, people: [contact(0), contact(1)] });
  const first = await keyed(d, 'POST', '/v2/monitors', `create-${run}`, body, 'application/json');
  expect(first.status, first.text).toBe(201);
  expect(first.replayed).toBeNull();
  const again = await keyed(d, 'POST', '/v2/monitors', `create-${run}`, body, 'application/json');
  expect(again).toMatchObject({ status: 201, replayed: 'true', text: first.text, location: `/v2/monitors/${first.json.id}` });
  const mine = async () => (await api(d, 'GET', '/v2/monitors?limit=1000')).json.monitors.filter((m: Json) => m.external_ref === ref);
  expect((await mine()).map((m: Json) => m.id)).toEqual([first.json.id]);

  // Same key, another body: 422 in the caller's language, nothing created.
  const other = JSON.stringify({ external_ref: ref, people: [contact(2)] });
  const reusedEn = await keyed(d, 'POST', '/v2/monitors', `create-${run}`, other, 'application/json', 'en');
  const reusedDa = await keyed(d, 'POST', '/v2/monitors', `create-${run}`, other, 'application/json', 'da');
  for (const reused of [reusedEn, reusedDa]) {
    expect(reused.status, reused.text).toBe(422);
    expect(reused.json.error).toMatchObject({ code: 'invalid_request', details: { reason: 'idempotency_key_reused' } });
  }
  expect(reusedEn.json.error.message).toBe('The Idempotency-Key was already used with a different request body.');
  expect(reusedDa.json.error.message).toBe('Idempotency-Key er allerede brugt med et andet indhold.');
  expect((await mine()).map((m: Json) => m.id)).toEqual([first.json.id]);

  // A refused body does not use up its key: the corrected call with the same key creates the monitor.
  const refused = await keyed(d, 'POST', '/v2/monitors', `fix-${run}`, JSON.stringify({ external_ref: ref, people: [{ name: 'x'.repeat(201) }] }), 'application/json');
  expect(refused.status, refused.text).toBe(422);
  const fixed = await keyed(d, 'POST', '/v2/monitors', `fix-${run}`, JSON.stringify({ external_ref: ref, people: [contact(3)] }), 'application/json');
  expect(fixed.status, fixed.text).toBe(201);
  expect(fixed.replayed).toBeNull();

  // A spreadsheet sent twice with one key: one monitor.
  const dir = await scratchDir('monitor-idem');
  const file = await makeSpreadsheet(dir, { name: 'kontakter.xlsx', rows: [['Navn', 'Adresse'], [contact(4).name as string, contact(4).address as string]], via: 'exceljs' });
  const form = await multipartBody([
    { name: 'file', value: { bytes: await readFile(file), filename: 'kontakter.xlsx' } },
    { name: 'external_ref', value: ref },
  ]);
  const upload = await keyed(d, 'POST', '/v2/monitors', `file-${run}`, form.body, form.contentType);
  const uploadAgain = await keyed(d, 'POST', '/v2/monitors', `file-${run}`, form.body, form.contentType);
  expect(upload.status, upload.text).toBe(201);
  expect(uploadAgain).toMatchObject({ status: 201, replayed: 'true', text: upload.text });
  expect((await mine()).map((m: Json) => m.id).sort()).toEqual([first.json.id, fixed.json.id, upload.json.id].sort());

  // PUT: the same NDJSON replacement twice moves the monitor to one new contact generation.
  const id = first.json.id as string;
  const generation = async () => (await hooks.platform.monitors.getMonitorById(id) as MonitorRecord).generation;
  const before = await generation();
  const ndjson = [contact(0), contact(5), contact(6)].map((p) => JSON.stringify(p)).join('\n');
  const put = await keyed(d, 'PUT', `/v2/monitors/${id}/contacts`, `put-${run}`, ndjson, 'application/x-ndjson');
  const putAgain = await keyed(d, 'PUT', `/v2/monitors/${id}/contacts`, `put-${run}`, ndjson, 'application/x-ndjson');
  expect(put.status, put.text).toBe(200);
  expect(put.json.contact_count).toBe(3);
  expect(putAgain).toMatchObject({ status: 200, replayed: 'true', text: put.text });
  expect(await generation()).toBe(before + 1);
  const putOther = await keyed(d, 'PUT', `/v2/monitors/${id}/contacts`, `put-${run}`, JSON.stringify(contact(7)), 'application/x-ndjson', 'da');
  expect(putOther.status).toBe(422);
  expect(putOther.json.error.details.reason).toBe('idempotency_key_reused');
  expect(await generation()).toBe(before + 1);
  // The same key on another monitor is another call.
  const elsewhere = await keyed(d, 'PUT', `/v2/monitors/${fixed.json.id}/contacts`, `put-${run}`, ndjson, 'application/x-ndjson');
  expect(elsewhere.status, elsewhere.text).toBe(200);
  expect(elsewhere.replayed).toBeNull();
  expect(elsewhere.json.contact_count).toBe(3);

  for (const m of await mine()) expect((await api(d, 'DELETE', `/v2/monitors/${m.id}`)).status).toBe(200);
}
