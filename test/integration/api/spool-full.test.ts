/**
 * Uploaded bytes on a full disk (docs/api-decisions.md "Spool full"): a file upload (the `.part`
 * in SPOOL_DIR), a draft's copy in UPLOAD_DIR, and a monitor's file or Idempotency-Key body are
 * 503 `service_unavailable` / `spool_full` with Retry-After in the caller's language, like the JSON
 * job spool, and leave nothing behind: no job or monitor, no file, no event. The full disk is a
 * real one: a small tmpfs (test/support/small-disk.ts).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { pipelineTopics } from '../../../infra/topics.ts';
import { createPipelineEvents } from '../../../services/pipeline/events.ts';
import { createEmbeddedEventLog } from '../../../services/platform/log/embedded.ts';
import type { EventLog } from '../../../services/platform/log/port.ts';
import { silentLogger } from '../../../services/platform/logger.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { createEmbeddedJobStore } from '../../../services/platform/store/embedded/jobs.ts';
import { createEmbeddedMonitorStore } from '../../../services/platform/store/embedded/monitors.ts';
import type { JobStore } from '../../../services/platform/store/jobs-port.ts';
import { multipartBody, type FormPart } from '../../support/multipart.ts';
import { smallDisk } from '../../support/small-disk.ts';
import { consumeEvents } from './event-capture.ts';
import { bearer, build, errorOf } from './helper.ts';

type Json = Record<string, any>;
const registry = createStaticSchemaRegistry();
/** The disk: 64 KiB. A file of 3,000 rows is about 150 KB; one of 20 rows fits. */
const DISK_KIB = 64;

async function setup(full: 'spool' | 'drafts') {
  const dir = mkdtempSync(join(tmpdir(), 'spool-full-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const disk = await smallDisk(DISK_KIB);
  const spoolDir = full === 'spool' ? disk : join(dir, 'spool');
  const draftDir = full === 'drafts' ? disk : join(dir, 'uploads');
  let jobs!: JobStore;
  let eventLog!: EventLog;
  const built = await build({
    withDeps: (db) => {
      jobs = createEmbeddedJobStore(db);
      eventLog = createEmbeddedEventLog({ db, logger: silentLogger(), pollIntervalMs: 20 });
      const events = createPipelineEvents({ log: eventLog, registry });
      return { events, checkJobs: { jobs, events, spoolDir, draftDir, monitors: createEmbeddedMonitorStore(db) } };
    },
  });
  await eventLog.createTopics(pipelineTopics());
  const log = await consumeEvents(eventLog, registry);
  onTestFinished(async () => {
    await log.close();
    await eventLog.close();
  });
  const allJobs = () => jobs.listJobsDueForDeletion('9999-12-31T00:00:00.000Z', 10_000);
  const filesIn = (d: string) => (existsSync(d) ? readdirSync(d) : []);
  async function post(url: string, key: string, parts: FormPart[]) {
    const { body, contentType } = await multipartBody(parts);
    return built.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': contentType, 'accept-language': 'da' }, payload: body });
  }
  return { ...built, log, spoolDir, draftDir, allJobs, filesIn, post };
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
});
