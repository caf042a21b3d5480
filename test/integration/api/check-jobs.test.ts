import { createHash, randomUUID } from 'node:crypto';
import { CheckJobResultsPageSchema } from '../../../services/api/schemas/check-job.ts';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TEST_LIST_VERSION } from '../../../services/domain/index.ts';
import { emptyLevelCounts } from '../../../services/domain/check-job.ts';
import type { JobStore } from '../../../services/platform/store/jobs-port.ts';
import { encodeCursor } from '../../../services/platform/store/job-results.ts';
import type { PipelineEvent } from '../../../services/pipeline/events.ts';
import { buildWithEmbeddedPipeline } from './embedded-pipeline.ts';
import { bearer, errorOf, LIVE_ENTRIES, LIVE_VERSION_ID, type BuildOptions } from './helper.ts';
import { pipelineTopics } from '../../../infra/topics.ts';
import { until } from '../../support/until.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Public and private answers for the callback URL guard, without real DNS. */
const lookup = async (host: string) => {
  if (host === 'hooks.example.com') return [{ address: '93.184.216.34', family: 4 as const }];
  if (host === 'inside.example.com') return [{ address: '10.1.2.3', family: 4 as const }];
  throw new Error('ENOTFOUND');
};

/** The app with check jobs on one in-memory database (embedded-pipeline.ts), its spool in a temp directory. */
async function setup(options: BuildOptions & { chunkRows?: number; maxBodyBytes?: number; publishGate?: Promise<void> } = {}) {
  const spoolDir = mkdtempSync(join(tmpdir(), 'spool-test-'));
  onTestFinished(() => rmSync(spoolDir, { recursive: true, force: true }));
  const built = await buildWithEmbeddedPipeline(options, ({ jobs, events }) => ({
    jobs, events, spoolDir, callbackLookup: lookup, chunkRows: options.chunkRows ?? 2,
    ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
  }));
  return { ...built, spoolDir };
}

const people = [
  { id: 'a', name: 'Søren Kjær', address: 'Vestergade 12, 2. tv, 8000 Aarhus C' },
  { id: 'b', first_name: 'Anne', last_name: 'Hansen', street: 'Nørregade', house_number: '3', postal_code: '1000', city: 'København K' },
  { id: 'c', name: 'Ole Robinson', address: 'Torvet 1, 4000 Roskilde' },
];
const ndjson = (rows: object[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

type Json = Record<string, any>;

function eventsOf(all: PipelineEvent[], jobId: string) {
  const mine = all.filter((e) => e.value && (e.value as { job_id?: string }).job_id === jobId);
  return {
    created: mine.filter((e) => e.type === 'JobCreated').map((e) => e.value as Json),
    // Chunks are spread over partitions, so they arrive in any order: sorted by their number.
    chunks: mine.filter((e) => e.type === 'RowsChunk').map((e) => e.value as Json).sort((a, b) => a.chunk - b.chunk),
    complete: mine.filter((e) => e.type === 'RowsComplete').map((e) => e.value as Json),
  };
}

describe('POST /v2/check-jobs', () => {
  it('creates a queued JSON job that pins the test list version, and publishes JobCreated, the rows in chunks and RowsComplete', async () => {
    const { app, orgA, log } = await setup();
    const response = await app.inject({
      method: 'POST',
      url: '/v2/check-jobs',
      headers: { ...bearer(orgA.testKey), 'accept-language': 'en' },
      payload: { external_ref: 'crm-2026-01', policy: 'strict', people },
    });
    expect(response.statusCode).toBe(202);
    const job = response.json<Json>();
    expect(job).toMatchObject({
      source: 'api', status: 'queued', row_count: 3, processed_count: 0, level_counts: emptyLevelCounts(),
      list_version: TEST_LIST_VERSION, external_ref: 'crm-2026-01', callback_url: null, callback: null, finished_at: null,
      options: { policy: 'strict', stop_level: 1, retention_days: 30, check_people: true },
    });
    expect(Date.parse(job.delete_after) - Date.parse(job.created_at)).toBe(30 * DAY_MS);
    expect(response.headers.location).toBe(`/v2/check-jobs/${job.id}`);

    const { created, chunks, complete } = eventsOf(await log.decoded(), job.id);
    expect(created).toEqual([expect.objectContaining({ org_id: orgA.org.id, mode: 'test', source: 'api', list_version_id: null, policy: 'strict', stop_level: 1, row_count: 3 })]);
    expect(chunks.map((c) => c.chunk)).toEqual([0, 1]);
    expect(chunks.flatMap((c) => c.rows.map((r: Json) => r.row))).toEqual([0, 1, 2]);
    expect(chunks[0]).toMatchObject({ mode: 'test', policy: 'strict', stop_level: 1, locale: 'en', org_id: orgA.org.id });
    expect(chunks[1].rows[0].person).toMatchObject({ id: 'c', name: 'Ole Robinson', first_name: null });
    expect(complete).toEqual([expect.objectContaining({ row_count: 3, chunk_count: 2 })]);
    expect(complete[0].input_sha256).toMatch(/^[0-9a-f]{64}$/);
    // Keys: rows spread by job and chunk, job events by job.
    expect((await log.keys('checks.rows')).sort()).toEqual([`${job.id}:0`, `${job.id}:1`]);
    expect(new Set(await log.keys('jobs.events'))).toEqual(new Set([job.id]));
  });

  it('pins the active live version for live keys, with the organisation stop line', async () => {
    const { app, orgB, log } = await setup({ liveEntries: LIVE_ENTRIES });
    const response = await app.inject({ method: 'POST', url: '/v2/check-jobs', headers: bearer(orgB.liveKey), payload: { people } });
    expect(response.statusCode).toBe(202);
    const job = response.json<Json>();
    expect(job.list_version.id).toBe(LIVE_VERSION_ID);
    expect(job.options).toMatchObject({ policy: 'standard', stop_level: 3 });
    const { created, chunks } = eventsOf(await log.decoded(), job.id);
    expect(created[0]).toMatchObject({ mode: 'live', list_version_id: LIVE_VERSION_ID, stop_level: 3 });
    expect(chunks.every((c) => c.list_version_id === LIVE_VERSION_ID && c.stop_level === 3 && c.locale === 'da')).toBe(true);
  });

  it('answers 503 list_not_ready for a live key without an active list, creating nothing', async () => {
    const { app, orgA, log, allJobs } = await setup();
    const response = await app.inject({ method: 'POST', url: '/v2/check-jobs', headers: bearer(orgA.liveKey), payload: { people } });
    expect(response.statusCode).toBe(503);
    expect(errorOf(response).code).toBe('list_not_ready');
    expect(response.headers['retry-after']).toBeDefined();
    expect(await log.count()).toBe(0);
    expect(await allJobs()).toEqual([]);
  });

  it('accepts NDJSON with the job fields in the query string', async () => {
    const { app, orgA, log } = await setup();
    const response = await app.inject({
      method: 'POST',
      url: '/v2/check-jobs?external_ref=batch-7&retention_days=7&stop_level=2&callback_url=https%3A%2F%2Fhooks.example.com%2Fdone',
      headers: { ...bearer(orgA.testKey), 'content-type': 'application/x-ndjson' },
      payload: ndjson(people) + '\n',
    });
    expect(response.statusCode).toBe(202);
    const job = response.json<Json>();
    expect(job).toMatchObject({
      row_count: 3, external_ref: 'batch-7', callback_url: 'https://hooks.example.com/done',
      options: { stop_level: 2, retention_days: 7 },
    });
    expect(Date.parse(job.delete_after) - Date.parse(job.created_at)).toBe(7 * DAY_MS);
    const { chunks, complete } = eventsOf(await log.decoded(), job.id);
    expect(chunks.flatMap((c) => c.rows.map((r: Json) => r.person.id))).toEqual(['a', 'b', 'c']);
    expect(complete[0].row_count).toBe(3);
  });

  it('takes job fields from the query string on a JSON body too (as the OpenAPI document lists them)', async () => {
    const { app, orgA } = await setup();
    const response = await app.inject({
      method: 'POST',
      url: '/v2/check-jobs?policy=strict&stop_level=2&external_ref=crm-7',
      headers: bearer(orgA.testKey),
      payload: { options: { retention_days: 10 }, people },
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ external_ref: 'crm-7', options: { policy: 'strict', stop_level: 2, retention_days: 10 } });
  });

  it('accepts a charset parameter on the media type', async () => {
    const { app, orgA } = await setup();
    const response = await app.inject({
      method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(orgA.testKey), 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify({ people }),
    });
    expect(response.statusCode).toBe(202);
  });

  it('takes bodies over the 1 MB default of other routes, and answers 413 over its own limit with nothing created', async () => {
    const { app, orgA, log, allJobs, spoolDir } = await setup({ maxBodyBytes: 2_000_000 });
    const many = Array.from({ length: 15_000 }, (_, i) => ({ id: String(i), name: 'Anne Hansen', address: 'Vestergade 12, 8000 Aarhus C' }));
    const accepted = await app.inject({ method: 'POST', url: '/v2/check-jobs', headers: bearer(orgA.testKey), payload: { people: many } });
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json<Json>().row_count).toBe(15_000);
    const published = await log.count();
    const tooLarge = await app.inject({ method: 'POST', url: '/v2/check-jobs', headers: bearer(orgA.testKey), payload: { people: [...many, ...many] } });
    expect(tooLarge.statusCode).toBe(413);
    expect(errorOf(tooLarge).details).toMatchObject({ reason: 'body_too_large' });
    expect(await log.count()).toBe(published);
    expect(await allJobs()).toHaveLength(1);
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('an empty body is 422 at people', async () => {
    const { app, orgA, log } = await setup();
    const response = await app.inject({ method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(orgA.testKey), 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(422);
    expect(errorOf(response).details).toMatchObject({ issues: [{ path: 'people' }] });
    expect(await log.count()).toBe(0);
  });

  it('needs a key before reading anything', async () => {
    const { app } = await setup();
    const response = await app.inject({ method: 'POST', url: '/v2/check-jobs', payload: { people } });
    expect(response.statusCode).toBe(401);
  });

  it('records the SHA-256 of the bytes as submitted', async () => {
    const { app, orgA, jobs } = await setup();
    const text = JSON.stringify({ people });
    const response = await app.inject({ method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(orgA.testKey), 'content-type': 'application/json' }, payload: text });
    const record = await jobs.getJobById(response.json<Json>().id);
    expect(record?.input_sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(record?.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  describe('refuses bad input with nothing created and nothing published', () => {
    const cases: Array<[string, { url?: string; type?: string; payload: string }, number, Json]> = [
      ['a name over 200 characters', { payload: JSON.stringify({ people: [people[0], people[1], { name: 'x'.repeat(201) }] }) }, 422, { issues: [{ path: 'people[2].name' }] }],
      ['an unknown person field', { payload: JSON.stringify({ people: [{ ...people[0], email: 'a@b.dk' }] }) }, 422, { issues: [{ path: 'people[0].email' }] }],
      ['a number where a string belongs', { payload: JSON.stringify({ people: [{ postal_code: 8000 }] }) }, 422, { issues: [{ path: 'people[0].postal_code' }] }],
      ['no people', { payload: JSON.stringify({ external_ref: 'x' }) }, 422, { issues: [{ path: 'people' }] }],
      ['an empty people array', { payload: JSON.stringify({ people: [] }) }, 422, { issues: [{ path: 'people' }] }],
      ['an unknown policy after the people', { payload: JSON.stringify({ people, policy: 'lenient' }) }, 422, { issues: [{ path: 'policy' }] }],
      ['an unknown top-level field', { payload: JSON.stringify({ people, colour: 'red' }) }, 422, { issues: [{ path: 'colour' }] }],
      ['retention over 90 days', { payload: JSON.stringify({ options: { retention_days: 91 }, people }) }, 422, { issues: [{ path: 'options.retention_days' }] }],
      ['an http callback', { payload: JSON.stringify({ people, callback_url: 'http://hooks.example.com/x' }) }, 422, { issues: [{ path: 'callback_url' }] }],
      ['a callback to a private address', { payload: JSON.stringify({ people, callback_url: 'https://inside.example.com/x' }) }, 422, { issues: [{ path: 'callback_url' }] }],
      ['a callback to loopback', { payload: JSON.stringify({ people, callback_url: 'https://127.0.0.1/x' }) }, 422, { issues: [{ path: 'callback_url' }] }],
      ['a field both in the query and the JSON body', { url: '/v2/check-jobs?policy=strict', payload: JSON.stringify({ people, policy: 'standard' }) }, 422, { issues: [{ path: 'policy' }] }],
      ['an option both in the query and the JSON body', { url: '/v2/check-jobs?stop_level=2', payload: JSON.stringify({ options: { stop_level: 3 }, people }) }, 422, { issues: [{ path: 'options.stop_level' }] }],
      ['an unknown query parameter on a JSON body', { url: '/v2/check-jobs?colour=red', payload: JSON.stringify({ people }) }, 422, { issues: [{ path: 'colour' }] }],
      ['an NDJSON line that is not an object', { type: 'application/x-ndjson', payload: ndjson(people) + '[1]\n' }, 422, { issues: [{ path: 'people[3]' }], line: 4 }],
      ['a bad NDJSON query parameter', { type: 'application/x-ndjson', url: '/v2/check-jobs?stop_level=9', payload: ndjson(people) }, 422, { issues: [{ path: 'stop_level' }] }],
      ['truncated JSON', { payload: JSON.stringify({ people }).slice(0, -3) }, 400, { reason: 'invalid_json' }],
      ['bytes that are not UTF-8', { payload: Buffer.concat([Buffer.from('{"people":[{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]).toString('latin1') }, 400, { reason: 'invalid_utf8' }],
      ['a CSV body', { type: 'text/csv', payload: 'name,address\n' }, 400, { reason: 'unsupported_media_type' }],
    ];
    it.each(cases)('%s', async (_, request, status, details) => {
      const { app, orgA, log, allJobs, spoolDir } = await setup();
      const response = await app.inject({
        method: 'POST',
        url: request.url ?? '/v2/check-jobs',
        headers: { ...bearer(orgA.testKey), 'content-type': request.type ?? 'application/json', 'accept-language': 'en' },
        payload: request.type === undefined && request.payload.includes('\u00ff') ? Buffer.from(request.payload, 'latin1') : request.payload,
      });
      expect(response.statusCode).toBe(status);
      const error = errorOf(response);
      expect(error.code).toBe('invalid_request');
      expect(error.details).toMatchObject(details);
      // No value of the body is echoed.
      expect(response.body).not.toContain('Søren');
      expect(response.body).not.toContain('xxxxxxxxxx');
      expect(await log.count()).toBe(0);
      expect(await allJobs()).toEqual([]);
      expect(readdirSync(spoolDir)).toEqual([]);
    });
  });

  it('company and phone options need the add-on: 403 forbidden (da/en), nothing created or published', async () => {
    const { app, orgA, accounts, log, allJobs } = await setup();
    for (const [option, addon, lang, text] of [['check_companies', 'company', 'da', 'virksomhedstjek'], ['check_phones', 'phone', 'en', 'phone check add-on']] as const) {
      for (const key of [orgA.liveKey, orgA.testKey]) {
        const response = await app.inject({
          method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(key), 'accept-language': lang },
          payload: { people, options: { [option]: true } },
        });
        expect(response.statusCode).toBe(403);
        expect(errorOf(response)).toMatchObject({ code: 'forbidden', details: { reason: 'addon_required', addon } });
        expect(errorOf(response).message).toContain(text);
      }
    }
    expect(await log.count()).toBe(0);
    expect(await allJobs()).toEqual([]);
    // With the add-on the job is taken, and its chunks ask the matcher for the checks.
    await accounts.updateOrganisation(orgA.org.id, { addons: ['company', 'phone'] });
    const withAddon = await app.inject({
      method: 'POST', url: '/v2/check-jobs', headers: bearer(orgA.testKey),
      payload: { people: people.map((p, i) => ({ ...p, cvr: '00000042', company_name: `Firma ${i}` })), options: { check_phones: true, check_companies: true } },
    });
    expect(withAddon.statusCode, withAddon.body).toBe(202);
    expect(withAddon.json()).toMatchObject({ options: { check_people: true, check_companies: true, check_phones: true } });
    const chunks = eventsOf(await log.decoded(), withAddon.json().id).chunks;
    expect(chunks.every((c) => c.check_companies && c.check_phones && c.check_people)).toBe(true);
    expect(chunks.flatMap((c) => c.rows).every((r) => r.person.cvr === '00000042')).toBe(true);
    // A job that checks nothing is refused (422 at options.check_people, da/en).
    const nothing = await app.inject({
      method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(orgA.testKey), 'accept-language': 'en' }, payload: { people, options: { check_people: false } },
    });
    expect(nothing.statusCode).toBe(422);
    expect(errorOf(nothing).details).toMatchObject({ issues: [{ path: 'options.check_people', message: expect.stringContaining('At least one of') }] });
  });

  // Regression: JSON.stringify leaves U+2028/U+2029 unescaped, and the spool was read
  // back with node:readline, which also ends lines there: the line broke, 500 and a failed job.
  it.each([
    ['application/json', (rows: object[]) => JSON.stringify({ external_ref: 'ref\u2028x', people: rows })],
    ['application/x-ndjson', ndjson],
  ])('takes U+2028 and U+2029 in any field of a %s body, and publishes them unchanged', async (type, body) => {
    const { app, orgA, log } = await setup();
    const odd = [
      { id: 'a\u2028b', name: 'Søren\u2028Kjær', address: 'Vestergade 12\u2029, 8000 Aarhus C' },
      { id: 'c', first_name: 'An\u2028ne', last_name: 'Hansen', street: 'Nørre\u2029gade', house_number: '3\u2028', postal_code: '1000', city: 'Køben\u2028havn' },
    ];
    const response = await app.inject({
      method: 'POST', url: '/v2/check-jobs', headers: { ...bearer(orgA.testKey), 'content-type': type }, payload: body(odd),
    });
    expect(response.statusCode).toBe(202);
    const job = response.json<Json>();
    expect(job).toMatchObject({ status: 'queued', row_count: 2 });
    const { chunks, complete } = eventsOf(await log.decoded(), job.id);
    expect(chunks.flatMap((c) => c.rows.map((r: Json) => r.person.id))).toEqual(['a\u2028b', 'c']);
    const published = chunks.flatMap((c) => c.rows.map((r: Json) => r.person));
    expect(published[0]).toMatchObject(odd[0]);
    expect(published[1]).toMatchObject(odd[1]);
    expect(complete).toEqual([expect.objectContaining({ row_count: 2 })]);
  });

  it('answers 409 to the same Idempotency-Key while the first job is still being created', async () => {
    let open!: () => void;
    const publishGate = new Promise<void>((resolve) => (open = resolve));
    const { app, orgA, allJobs } = await setup({ publishGate });
    const request = {
      method: 'POST' as const,
      url: '/v2/check-jobs',
      headers: { ...bearer(orgA.testKey), 'idempotency-key': 'slow-1' },
      payload: { people },
    };
    const first = app.inject(request);
    // Wait until the first request has created its record and waits on the log.
    await until('the first request to create its job record', async () => (await allJobs()).length > 0);
    const second = await app.inject(request);
    expect(second.statusCode).toBe(409);
    expect(errorOf(second).details).toMatchObject({ reason: 'idempotency_key_in_flight' });
    open();
    expect((await first).statusCode).toBe(202);
    expect(await allJobs()).toHaveLength(1);
  });

  it('replays the first response for the same Idempotency-Key and body, without a second job', async () => {
    const { app, orgA, log, allJobs } = await setup();
    const request = {
      method: 'POST' as const,
      url: '/v2/check-jobs',
      headers: { ...bearer(orgA.testKey), 'idempotency-key': 'job-2026-001' },
      payload: { people },
    };
    const first = await app.inject(request);
    const second = await app.inject(request);
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(await allJobs()).toHaveLength(1);
    const published = await log.count();

    const reused = await app.inject({ ...request, payload: { people: people.slice(1) } });
    expect(reused.statusCode).toBe(422);
    expect(errorOf(reused).details).toMatchObject({ reason: 'idempotency_key_reused' });
    expect(await log.count()).toBe(published);
    // The same key of the live mode is another scope.
    const tooLong = await app.inject({ ...request, headers: { ...request.headers, 'idempotency-key': 'k'.repeat(256) } });
    expect(tooLong.statusCode).toBe(422);
  });
});

describe('GET, results and DELETE of a check job', () => {
  async function withJob() {
    const ctx = await setup();
    const created = await ctx.app.inject({ method: 'POST', url: '/v2/check-jobs', headers: bearer(ctx.orgA.testKey), payload: { people } });
    return { ...ctx, job: created.json<Json>(), createdBody: created.body };
  }

  /** What the projection does when a job is finished: results stored, status done. */
  async function finish(jobs: JobStore, job: Json) {
    const result = (id: string, status: 'allowed' | 'blocked') => ({
      id, status, reasons: [], level: 'none' as const, stop_level: 1, address: null, phone_lookup: null,
      match: { level: 0, code: 'none' as const, label: 'No match', on: [], previous_address: false, approximate: false },
    });
    await jobs.putResults(job.id, job.delete_after, people.map((p, row) => ({ row, result: result(p.id, 'allowed'), cells: null })));
    await jobs.updateJob(job.id, { status: 'done', processed_count: 3, allowed_count: 3, finished_at: new Date().toISOString() });
  }

  it('GET answers the same CheckJob as the 202', async () => {
    const { app, orgA, job, createdBody } = await withJob();
    const response = await app.inject({ method: 'GET', url: `/v2/check-jobs/${job.id}`, headers: bearer(orgA.testKey) });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(createdBody);
  });

  it('is 404 to another organisation, to the live key of the same one, and for ids that are not uuids', async () => {
    const { app, orgA, orgB, job } = await withJob();
    for (const [key, url] of [
      [orgB.testKey, `/v2/check-jobs/${job.id}`],
      [orgA.liveKey, `/v2/check-jobs/${job.id}`],
      [orgB.testKey, `/v2/check-jobs/${job.id}/results`],
      [orgA.liveKey, `/v2/check-jobs/${job.id}/results`],
      [orgA.testKey, `/v2/check-jobs/${randomUUID()}`],
      [orgA.testKey, '/v2/check-jobs/not-a-uuid'],
    ]) {
      const response = await app.inject({ method: 'GET', url, headers: bearer(key) });
      expect(response.statusCode, `${url}`).toBe(404);
      expect(errorOf(response).code).toBe('not_found');
    }
    const deleted = await app.inject({ method: 'DELETE', url: `/v2/check-jobs/${job.id}`, headers: bearer(orgB.testKey) });
    expect(deleted.statusCode).toBe(404);
  });

  it('results are 409 before the job is done', async () => {
    const { app, orgA, job } = await withJob();
    const response = await app.inject({ method: 'GET', url: `/v2/check-jobs/${job.id}/results`, headers: bearer(orgA.testKey) });
    expect(response.statusCode).toBe(409);
    expect(errorOf(response)).toMatchObject({ code: 'conflict', details: { reason: 'job_not_done', status: 'queued' } });
    // The same order of answers whichever way the page is read (docs/architecture.md "Results
    // pages"): an unknown job 404, then a bad query 422, then the job's state, then the cursor.
    const url = `/v2/check-jobs/${job.id}/results`;
    const answers = async (path: string) => (await app.inject({ method: 'GET', url: path, headers: bearer(orgA.testKey) })).statusCode;
    expect(await answers(`/v2/check-jobs/${randomUUID()}/results?limit=ten`)).toBe(404);
    expect(await answers(`${url}?limit=ten`)).toBe(422);
    expect(await answers(`${url}?cursor=${encodeURIComponent(encodeCursor(job.id, 0))}`)).toBe(409);
    expect(await answers(`${url}?limit=5`)).toBe(409);
  });

  it('pages the results of a done job with the list version, and refuses foreign and forged cursors', async () => {
    const { app, orgA, jobs, job } = await withJob();
    await finish(jobs, job);
    const url = `/v2/check-jobs/${job.id}/results`;
    const first = await app.inject({ method: 'GET', url: `${url}?limit=2`, headers: bearer(orgA.testKey) });
    expect(first.statusCode).toBe(200);
    const page1 = first.json<Json>();
    expect(page1.list_version).toEqual(TEST_LIST_VERSION);
    expect(page1.results.map((r: Json) => r.id)).toEqual(['a', 'b']);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const second = await app.inject({ method: 'GET', url: `${url}?limit=2&cursor=${page1.next_cursor}`, headers: bearer(orgA.testKey) });
    expect(second.json<Json>().results.map((r: Json) => r.id)).toEqual(['c']);
    expect(second.json<Json>().next_cursor).toBeNull();
    const all = await app.inject({ method: 'GET', url, headers: bearer(orgA.testKey) });
    expect(all.json<Json>().results).toHaveLength(3);

    // Signed cursors: the store's own cursor with the row number edited, resealed with a made-up
    // MAC; the unsealed store cursor of this very job; the sealed cursor with its row edited.
    const [storeCursor, kid, mac] = (page1.next_cursor as string).split('.');
    const editedRow = Buffer.from(Buffer.from(storeCursor, 'base64url').toString().replace(/\.1$/, '.0')).toString('base64url');
    expect(editedRow).not.toBe(storeCursor);
    const edited = [`${editedRow}.${kid}.${mac}`, encodeCursor(job.id, 0), `${encodeCursor(job.id, 0)}.${kid}.${mac}`];
    for (const cursor of [...edited, encodeCursor(randomUUID(), 0), 'bm90LWEtY3Vyc29y', '!!']) {
      const response = await app.inject({ method: 'GET', url: `${url}?cursor=${encodeURIComponent(cursor)}`, headers: bearer(orgA.testKey) });
      expect(response.statusCode, cursor).toBe(422);
      expect(errorOf(response).details).toMatchObject({ issues: [{ path: 'cursor' }] });
    }
    for (const limit of ['0', '10001', 'ten']) {
      const response = await app.inject({ method: 'GET', url: `${url}?limit=${limit}`, headers: bearer(orgA.testKey) });
      expect(response.statusCode, limit).toBe(422);
      expect(errorOf(response).details).toMatchObject({ issues: [{ path: 'limit' }] });
    }
    const big = await app.inject({ method: 'GET', url: `${url}?limit=10000`, headers: bearer(orgA.testKey) });
    expect(big.statusCode).toBe(200);
    // Pages are joined from stored result JSON, past the response serializer: each one matches the schema.
    expect(big.headers['content-type']).toMatch(/^application\/json/);
    for (const page of [page1, second.json<Json>(), big.json<Json>()]) {
      const checked = CheckJobResultsPageSchema.safeParse(page);
      expect(checked.success, checked.error?.message).toBe(true);
    }
  });

  it('DELETE purges the personal data at once: the job stays with its counts, results are 410', async () => {
    const { app, orgA, jobs, job, log } = await withJob();
    await finish(jobs, job);
    const response = await app.inject({ method: 'DELETE', url: `/v2/check-jobs/${job.id}`, headers: bearer(orgA.testKey) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: job.id, status: 'deleted', row_count: 3, allowed_count: 3, preview: [] });
    expect((await jobs.countResults(job.id)).processed).toBe(0);

    const results = await app.inject({ method: 'GET', url: `/v2/check-jobs/${job.id}/results`, headers: bearer(orgA.testKey) });
    expect(results.statusCode).toBe(410);
    expect(errorOf(results).code).toBe('gone');
    const get = await app.inject({ method: 'GET', url: `/v2/check-jobs/${job.id}`, headers: bearer(orgA.testKey) });
    expect(get.json<Json>().status).toBe('deleted');
    const again = await app.inject({ method: 'DELETE', url: `/v2/check-jobs/${job.id}`, headers: bearer(orgA.testKey) });
    expect(again.statusCode).toBe(200);

    const changes = (await log.decoded()).filter((e) => e.type === 'JobStateChanged');
    expect(changes.map((e) => e.value)).toEqual([expect.objectContaining({ job_id: job.id, status: 'deleted' })]);
  });
});

describe('usage events of POST /v2/checks', () => {
  it('a live check publishes CheckUsage (counts and ids only); a test check publishes nothing', async () => {
    const { app, orgA, log } = await setup({ liveEntries: LIVE_ENTRIES });
    const live = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(orgA.liveKey), payload: { people } });
    expect(live.statusCode).toBe(200);
    // Written after the answer, with the other events of its turn (services/api/billing/usage-writer.ts).
    await app.usageWritten();
    const usage = (await log.decoded()).filter((e) => e.type === 'CheckUsage');
    expect(usage.map((e) => e.value)).toEqual([
      expect.objectContaining({ org_id: orgA.org.id, kind: 'person_check', count: 3, list_version_id: LIVE_VERSION_ID, request_id: live.headers['request-id'] }),
    ]);
    expect(JSON.stringify(usage)).not.toContain('Søren');
    expect(await log.keys('usage.events')).toEqual([orgA.org.id]);

    const test = await app.inject({ method: 'POST', url: '/v2/checks', headers: bearer(orgA.testKey), payload: { people } });
    expect(test.statusCode).toBe(200);
    await app.usageWritten();
    expect((await log.decoded()).filter((e) => e.type === 'CheckUsage')).toHaveLength(1);
  });
});

describe('over a real port', () => {
  it('streams a 100,000-person JSON body into a job: every row published once, in order, in 2,000-row chunks', async () => {
    const { app, orgA, log, jobs, spoolDir } = await setup({ chunkRows: 2000 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const total = 100_000;
    const hash = createHash('sha256');

    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/v2/check-jobs', headers: { ...bearer(orgA.testKey), 'content-type': 'application/json' } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      // Chunked transfer, written in blocks with backpressure: the body never exists whole.
      const write = (text: string) => {
        hash.update(text);
        return req.write(text);
      };
      let i = 0;
      const pump = () => {
        if (i === 0) write('{"external_ref":"stream-100k","people":[');
        while (i < total) {
          let block = '';
          for (let n = 0; n < 1000 && i < total; n += 1, i += 1) {
            block += `${i === 0 ? '' : ','}${JSON.stringify({ id: `r${i}`, first_name: 'Anne', last_name: i % 7 === 0 ? 'Robinson' : 'Hansen', address: `Vestergade ${(i % 90) + 1}, 8000 Aarhus C` })}`;
          }
          if (!write(block)) return void req.once('drain', pump);
        }
        write(']}');
        req.end();
      };
      pump();
    });

    expect(response.status).toBe(202);
    const job = JSON.parse(response.body) as Json;
    expect(job).toMatchObject({ row_count: total, status: 'queued', external_ref: 'stream-100k' });
    expect((await jobs.getJobById(job.id))?.input_sha256).toBe(hash.digest('hex'));

    const { created, chunks, complete } = eventsOf(await log.decoded(), job.id);
    expect(created).toHaveLength(1);
    expect(chunks).toHaveLength(total / 2000);
    expect(chunks.map((c) => c.chunk)).toEqual(chunks.map((_, n) => n));
    let expected = 0;
    for (const chunk of chunks) {
      for (const row of chunk.rows) {
        expect(row.row).toBe(expected);
        expected += 1;
      }
    }
    expect(expected).toBe(total);
    expect(chunks[0].rows[7].person).toMatchObject({ id: 'r7', last_name: 'Robinson' });
    expect(complete).toEqual([expect.objectContaining({ row_count: total, chunk_count: total / 2000 })]);
    // One job's rows use every partition of checks.rows, so every matcher of the group gets work.
    expect(new Set(await log.partitions('checks.rows')).size).toBe(pipelineTopics().find((t) => t.name === 'checks.rows')!.partitions);
    expect(readdirSync(spoolDir)).toEqual([]);
  });
});
