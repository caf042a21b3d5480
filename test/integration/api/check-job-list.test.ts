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
import { bearer, build, errorOf } from './helper.ts';

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
      return { events, checkJobs: { jobs, events, spoolDir } };
    },
  });
  return { ...built, jobs };
}

const at = (minute: number) => `2026-02-01T09:${String(minute).padStart(2, '0')}:00.000Z`;

describe('GET /v2/check-jobs', () => {
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
