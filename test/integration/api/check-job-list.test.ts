import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPipelineEvents } from '../../../services/pipeline/events.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { createEmbeddedEventLog } from '../../../services/platform/log/embedded.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import type { JobStore } from '../../../services/platform/store/jobs-port.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { makeJob } from '../../contract/jobs-store.contract.ts';
import { bearer, build, cursorSealOf, errorOf } from './helper.ts';

/** GET /v2/check-jobs (the web page's "recent jobs") on one in-memory database. */
async function setup() {
  const spoolDir = mkdtempSync(join(tmpdir(), 'list-test-'));
  onTestFinished(() => rmSync(spoolDir, { recursive: true, force: true }));
  let jobs!: JobStore;
  const built = await build({
    withDeps: (db) => {
      jobs = createEmbeddedJobStore(db);
      const events = createPipelineEvents({
        log: createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 20 }),
        registry: createStaticSchemaRegistry(),
      });
      return { events, checkJobs: { jobs, events, spoolDir, cursors: cursorSealOf(db) } };
    },
  });
  return { ...built, jobs };
}

const at = (minute: number) => `2026-02-01T09:${String(minute).padStart(2, '0')}:00.000Z`;

describe('GET /v2/check-jobs', () => {
  it('leaves out jobs no answer named (abandoned early intakes, bodies still being read); a deleted job of the customer stays listed', async () => {
    const { app, jobs, orgA } = await setup();
    const kept = makeJob({ org_id: orgA.org.id, mode: 'test', created_at: at(1) });
    const deletedByCustomer = makeJob({ org_id: orgA.org.id, mode: 'test', created_at: at(2) });
    const abandoned = makeJob({ org_id: orgA.org.id, mode: 'test', created_at: at(3) });
    const stillReading = makeJob({ org_id: orgA.org.id, mode: 'test', created_at: at(5), status: 'running', input_sha256: null, row_count: 0 });
    for (const job of [kept, deletedByCustomer, abandoned, stillReading]) await jobs.createJob(job);
    await jobs.purgeJob(deletedByCustomer.id, at(4));
    await jobs.updateJob(abandoned.id, { error: 'intake_refused' });
    await jobs.purgeJob(abandoned.id, at(4));
    const listed = await app.inject({ method: 'GET', url: '/v2/check-jobs?limit=2', headers: bearer(orgA.testKey) });
    expect(listed.json().data.map((j: { id: string }) => j.id)).toEqual([deletedByCustomer.id, kept.id]);
    expect(listed.json().has_more).toBe(false);
  });

  it("lists the key's organisation and mode only, newest first, with has_more", async () => {
    const { app, jobs, orgA, orgB } = await setup();
    const mine = [1, 2, 3].map((minute) => makeJob({ org_id: orgA.org.id, mode: 'test', created_at: at(minute) }));
    const live = makeJob({ org_id: orgA.org.id, mode: 'live', created_at: at(4) });
    const other = makeJob({ org_id: orgB.org.id, mode: 'test', created_at: at(5) });
    for (const job of [...mine, live, other]) await jobs.createJob(job);

    const all = await app.inject({ method: 'GET', url: '/v2/check-jobs', headers: bearer(orgA.testKey) });
    expect(all.statusCode).toBe(200);
    expect(all.json().data.map((j: { id: string }) => j.id)).toEqual([mine[2].id, mine[1].id, mine[0].id]);
    expect(all.json().has_more).toBe(false);
    // The CheckJob rendering of GET /v2/check-jobs/{id}: no organisation, mode or key hash.
    expect(Object.keys(all.json().data[0])).not.toContain('org_id');
    expect(Object.keys(all.json().data[0])).not.toContain('key_hash');

    const two = await app.inject({ method: 'GET', url: '/v2/check-jobs?limit=2', headers: bearer(orgA.testKey) });
    expect(two.json().data.map((j: { id: string }) => j.id)).toEqual([mine[2].id, mine[1].id]);
    expect(two.json().has_more).toBe(true);

    const liveList = await app.inject({ method: 'GET', url: '/v2/check-jobs', headers: bearer(orgA.liveKey) });
    expect(liveList.json().data.map((j: { id: string }) => j.id)).toEqual([live.id]);
  });

  it('refuses a bad limit with 422 at limit (in the caller\'s language) and a missing key with 401', async () => {
    const { app, orgA } = await setup();
    for (const limit of ['0', '101', 'x']) {
      const response = await app.inject({
        method: 'GET', url: `/v2/check-jobs?limit=${limit}`, headers: { ...bearer(orgA.testKey), 'accept-language': 'en' },
      });
      expect(response.statusCode, limit).toBe(422);
      expect(errorOf(response).details?.issues).toEqual([expect.objectContaining({ path: 'limit' })]);
    }
    const unknown = await app.inject({ method: 'GET', url: '/v2/check-jobs?other=1', headers: bearer(orgA.testKey) });
    expect(unknown.statusCode).toBe(422);
    const anonymous = await app.inject({ method: 'GET', url: '/v2/check-jobs' });
    expect(anonymous.statusCode).toBe(401);
    expect(errorOf(anonymous).message).toMatch(/API-nøglen/);
  });
});

describe('GET /v2/check-jobs filters (the page\'s history, docs/web.md)', () => {
  it('filters by source, status, days and text, pages with after, hides discarded drafts; bad filters are 422', async () => {
    const { app, jobs, orgA, orgB } = await setup();
    const day = (d: number, minute = 0) => `2026-03-0${d}T12:${String(minute).padStart(2, '0')}:00.000Z`;
    const mine = [
      makeJob({ org_id: orgA.org.id, mode: 'test', created_at: day(1), source: 'upload', filename: 'Kunder marts.xlsx', status: 'done' }),
      makeJob({ org_id: orgA.org.id, mode: 'test', created_at: day(2), source: 'email', filename: 'kunder-april.csv', external_ref: 'KAMPAGNE-7' }),
      makeJob({ org_id: orgA.org.id, mode: 'test', created_at: day(3), source: 'upload', filename: 'kunder.csv', status: 'draft', list_version: null }),
    ];
    const foreign = makeJob({ org_id: orgB.org.id, mode: 'test', created_at: day(4), source: 'upload', filename: 'kunder.csv' });
    for (const job of [...mine, foreign]) await jobs.createJob(job);
    await jobs.purgeJob(mine[2].id, day(3, 5));
    const list = async (query: string) => {
      const response = await app.inject({ method: 'GET', url: `/v2/check-jobs?${query}`, headers: bearer(orgA.testKey) });
      expect(response.statusCode, query).toBe(200);
      return response.json().data.map((j: { id: string }) => j.id);
    };
    expect(await list('')).toEqual([mine[2].id, mine[1].id, mine[0].id]);
    expect(await list('hide_discarded_drafts=true')).toEqual([mine[1].id, mine[0].id]);
    expect(await list('source=upload')).toEqual([mine[2].id, mine[0].id]);
    expect(await list('status=done')).toEqual([mine[0].id]);
    expect(await list('from=2026-03-02&to=2026-03-02')).toEqual([mine[1].id]);
    expect(await list('q=kampagne')).toEqual([mine[1].id]);
    expect(await list(`q=${encodeURIComponent('KUNDER')}&hide_discarded_drafts=true`)).toEqual([mine[1].id, mine[0].id]);
    expect(await list(`limit=1&after=${mine[2].id}`)).toEqual([mine[1].id]);

    for (const bad of ['source=fax', 'status=nope', 'from=2026-13-01', `after=${foreign.id}`, 'after=x', 'hide_discarded_drafts=yes', `q=${'x'.repeat(201)}`]) {
      const response = await app.inject({ method: 'GET', url: `/v2/check-jobs?${bad}`, headers: { ...bearer(orgA.testKey), 'accept-language': 'en' } });
      expect(response.statusCode, bad).toBe(422);
      expect(errorOf(response).code).toBe('invalid_request');
    }
  });
});
