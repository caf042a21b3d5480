/**
 * Faults with figures (docs/faults.md): check jobs of FAULTS_ROWS rows (default 100,000;
 * the figure is 1,000,000) on Kafka + ClickHouse, two matcher processes and a projection
 * process, while one fault is injected per scenario: kill -9 of a matcher, of the projection, of
 * the API mid-intake and right after its 202; a restart of the broker and of ClickHouse (the
 * suite's own, test/faults/private-servers.ts); a spool on a full disk (a small tmpfs). Each
 * scenario must end with exactly N results and one callback, or a clear `failed` (or a clear
 * answer to the client) with nothing lost silently. The suite writes its table into
 * docs/faults.md.
 *
 * `npm run faults` (vitest.faults.config.ts); not part of `npm test`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startDistributed, type DistributedDeployment, type ServiceProcess } from '../support/deployments.ts';
import { mixedRows, type MixedRow } from '../support/pipeline.ts';
import { expectCompleteResults, type Deployment } from '../e2e/pipeline-scenarios.ts';
import { loadNow, updateDocFrom, writeTable, type FaultRow } from './fault-table.ts';
import { privateClickHouse, privateKafka } from './private-servers.ts';

const run = promisify(execFile);
const ROWS = Number(process.env.FAULTS_ROWS ?? 100_000);
/** Long enough for a 1,000,000-row job on a loaded two-core machine. */
const JOB_MINUTES = Number(process.env.FAULTS_JOB_MINUTES ?? 30);
const INTAKE_STALE_SECONDS = 5;
/** FAULTS_UPDATE_DOC=1: the run's table also goes into docs/faults.md (fault-table.ts). */
const UPDATE_DOC = updateDocFrom(process.env.FAULTS_UPDATE_DOC);

type Json = Record<string, any>;

let receiver: CallbackReceiver;
let deployment: DistributedDeployment;
let d: Deployment;
let rows: MixedRow[];
const table: FaultRow[] = [];

/** Each row is written at once: a run cut short still leaves what it measured. */
function record(row: FaultRow): void {
  table.push(row);
  writeTable(table, { updateDoc: UPDATE_DOC });
}

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startDistributed(receiver, {
    matchers: 2, jobChunkRows: 2_000, env: { INTAKE_STALE_SECONDS: String(INTAKE_STALE_SECONDS) },
  });
  d = { ...deployment, receiver };
  rows = mixedRows(ROWS);
}, 300_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
}, 300_000);

function bodyOf(path: string, people: MixedRow[] = rows): string {
  // The callback URL before the people: the overlapped intake publishes while it reads.
  return JSON.stringify({ callback_url: receiver.url(path), people: people.map((r) => r.person) });
}

async function post(baseUrl: string, body: string): Promise<Response> {
  return fetch(new URL('/v2/check-jobs', baseUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json', 'Accept-Language': 'en' }, body,
  });
}

async function create(path: string, baseUrl = d.baseUrl): Promise<Json> {
  const response = await post(baseUrl, bodyOf(path));
  const text = await response.text();
  expect(response.status, text.slice(0, 500)).toBe(202);
  return JSON.parse(text);
}

/** GET through the in-process API; null while the stores are unreachable (a restart). */
async function readJob(id: string): Promise<Json | null> {
  try {
    const response = await fetch(new URL(`/v2/check-jobs/${id}`, d.baseUrl), { headers: { Authorization: `Bearer ${d.liveKey}` } });
    return response.ok ? ((await response.json()) as Json) : null;
  } catch {
    return null;
  }
}

async function waitUntil(id: string, check: (job: Json) => boolean, timeoutMs: number): Promise<Json> {
  const end = Date.now() + timeoutMs;
  let last: Json | null = null;
  while (Date.now() < end) {
    const job = await readJob(id);
    if (job) {
      last = job;
      if (check(job)) return job;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${id} did not get there in ${timeoutMs} ms; last seen ${JSON.stringify({ ...last, preview: undefined })}`);
}

const finished = (job: Json) => job.status === 'done' || job.status === 'failed';
const midJob = (job: Json) => finished(job) || job.processed_count >= ROWS * 0.2;

/** Requests at the receiver, distinct Service-Delivery ids, requests answered 2xx. */
function callbacksAt(path: string) {
  const got = receiver.received(path);
  return {
    requests: got.length,
    events: new Set(got.map((r) => r.headers['service-delivery'])).size,
    delivered: got.filter((r) => r.answered < 300).length,
  };
}

/** Waits until the callback is no longer pending, then a moment for a second one to show. */
async function settledCallbacks(path: string, id: string) {
  await waitUntil(id, (job) => job.callback?.state !== 'pending', 60_000);
  return callbacksAt(path);
}

function percent(job: Json): string {
  return `${Math.round((100 * job.processed_count) / ROWS)} % of rows stored`;
}

/** A job that must end done, complete, with one callback, after `inject` ran mid-job. */
async function doneDespite(fault: string, path: string, inject: () => Promise<void>): Promise<void> {
  const created = await create(path);
  const before = await waitUntil(created.id, midJob, JOB_MINUTES * 60_000);
  expect(before.status, 'the job finished before the fault').toBe('running');
  const load = loadNow();
  const at = performance.now();
  await inject();
  const job = await waitUntil(created.id, finished, JOB_MINUTES * 60_000);
  const recoverSeconds = (performance.now() - at) / 1000;
  const callbacks = await settledCallbacks(path, created.id);
  const row: FaultRow = {
    fault, injected: `mid-job, ${percent(before)}`, rows: ROWS, outcome: job.error ? `${job.status} (${job.error})` : job.status,
    results: job.processed_count, callbacks, recoverSeconds, load,
    held: job.status === 'done' && job.processed_count === ROWS && callbacks.events === 1 && callbacks.delivered === 1,
  };
  record(row);
  await expectCompleteResults(d, job, rows, d.listVersionId);
  expect(callbacks).toEqual({ requests: 1, events: 1, delivered: 1 });
}

function alive(name: string): ServiceProcess {
  const found = deployment.processes.find((p) => p.name === name && p.child.exitCode === null && p.child.signalCode === null);
  if (!found) throw new Error(`no running ${name}`);
  return found;
}

async function kill9(service: ServiceProcess): Promise<void> {
  service.child.kill('SIGKILL');
  await service.exited;
}

async function spawnApi(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; baseUrl: string }> {
  const service = await deployment.spawnService('api', { PORT: '0', ...env });
  const baseUrl = /"address":"(http:\/\/[^"]+)"/.exec(service.output())?.[1];
  if (!baseUrl) throw new Error(`the api printed no address:\n${service.output()}`);
  return { service, baseUrl };
}

// The short scenarios first: a run cut short at size still leaves them in the table.
describe(`faults on Kafka + ClickHouse, jobs of ${ROWS.toLocaleString('en')} rows`, () => {
  it('kill -9 of the API mid-intake: the client gets no 202, the job fails (intake_interrupted) with one callback', async () => {
    const { service, baseUrl } = await spawnApi();
    const answer = post(baseUrl, bodyOf('api-mid-intake')).then((r) => r.status, (e: Error) => e);
    // The overlapped intake creates the job once its first rows are validated, before the body ends.
    let created: Json | undefined;
    while (!created) {
      const list = await fetch(new URL('/v2/check-jobs?limit=20', d.baseUrl), { headers: { Authorization: `Bearer ${d.liveKey}` } });
      created = ((await list.json()) as { data: Json[] }).data.find((j) => j.callback_url?.endsWith('/api-mid-intake'));
      if (!created) await new Promise((r) => setTimeout(r, 20));
    }
    const load = loadNow();
    const at = performance.now();
    await kill9(service);
    const status = await answer;
    expect(status, 'the API answered before it was killed').toBeInstanceOf(Error);
    const job = await waitUntil(created.id, finished, JOB_MINUTES * 60_000);
    const recoverSeconds = (performance.now() - at) / 1000;
    const callbacks = await settledCallbacks('api-mid-intake', created.id);
    record({
      fault: 'kill -9 of the API process', injected: 'mid-intake (job created, body still arriving)', rows: ROWS,
      outcome: `${job.status} (${job.error}); the client's request broke off`, results: job.processed_count, callbacks, recoverSeconds, load,
      held: job.status === 'failed' && job.error === 'intake_interrupted' && job.processed_count < ROWS && callbacks.events === 1 && callbacks.delivered === 1,
    });
    expect(job).toMatchObject({ status: 'failed', error: 'intake_interrupted' });
    expect(job.processed_count).toBeLessThan(ROWS);
    expect(callbacks).toEqual({ requests: 1, events: 1, delivered: 1 });
    // The API started again removes the dead process's spool file before it listens.
    const restarted = await spawnApi();
    expect(readdirSync(join(deployment.env.DATA_DIR, 'spool')).filter((n) => n.startsWith('job-'))).toEqual([]);
    restarted.service.child.kill('SIGTERM');
    await restarted.service.exited;
  });

  it('the spool on a full disk: a clear 503 in the caller\'s language, no job left, the next job fits', async () => {
    const mount = mkdtempSync(join(tmpdir(), 'faults-spool-'));
    // A quarter of what the job's spool file needs (about 100 bytes a row), never under 512 KiB.
    const sizeKiB = Math.max(512, Math.floor((ROWS * 25) / 1024));
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0700`, 'tmpfs', mount]);
    try {
      const { service, baseUrl } = await spawnApi({ SPOOL_DIR: mount });
      const load = loadNow();
      const at = performance.now();
      const failed = (step: string) => (error: Error): never => {
        const state = service.child.exitCode === null && service.child.signalCode === null ? 'running' : `exited ${service.child.exitCode ?? service.child.signalCode}`;
        throw new Error(`${step} failed (${error.message}, ${(error.cause as Error)?.message}); the API ${state}:\n${service.output().slice(-3000)}`);
      };
      const response = await post(baseUrl, bodyOf('spool-full')).catch(failed('the POST'));
      const answer = (await response.json().catch(failed('reading the answer'))) as Json;
      const seconds = (performance.now() - at) / 1000;
      const list = await fetch(new URL('/v2/check-jobs?limit=20', d.baseUrl), { headers: { Authorization: `Bearer ${d.liveKey}` } });
      const left = ((await list.json()) as { data: Json[] }).data.filter((j) => j.callback_url?.endsWith('/spool-full') && j.status !== 'deleted');
      const leftover = readdirSync(mount);
      // The disk has room again for a job that fits: it is done, complete.
      const small = rows.slice(0, 1_000);
      const next = await post(baseUrl, bodyOf('spool-after', small)).catch(failed('the next POST'));
      const nextJob = (await next.json()) as Json;
      const nextDone = next.status === 202 ? await waitUntil(nextJob.id, finished, 300_000) : null;
      const callbacks = callbacksAt('spool-full');
      record({
        fault: `spool on a full disk (tmpfs of ${sizeKiB.toLocaleString('en')} KiB)`, injected: 'while the body is spooled', rows: ROWS,
        outcome: `HTTP ${response.status} ${answer.error?.code ?? ''} (${answer.error?.details?.reason ?? ''}); no job left; next 1,000-row job ${nextDone?.status ?? next.status}`,
        results: null, callbacks, recoverSeconds: seconds, load,
        held: response.status === 503 && left.length === 0 && leftover.length === 0 && callbacks.requests === 0 && nextDone?.status === 'done',
      });
      expect(response.status, JSON.stringify(answer)).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.error).toMatchObject({ code: 'service_unavailable', details: { reason: 'spool_full' } });
      expect(answer.error.message).toMatch(/room/);
      expect(left, 'no job may be left over').toEqual([]);
      expect(leftover, 'no spool file may be left over').toEqual([]);
      expect(callbacks.requests).toBe(0);
      expect(nextDone?.status).toBe('done');
      await expectCompleteResults(d, nextDone!, small, d.listVersionId);
      service.child.kill('SIGTERM');
      await service.exited;
    } finally {
      await run('umount', [mount]).catch(() => undefined);
      rmSync(mount, { recursive: true, force: true });
    }
  });

  it('kill -9 of a matcher mid-job: done, every row once, one callback', async () => {
    await doneDespite('kill -9 of one of two matchers (a new one started)', 'matcher', async () => {
      await kill9(alive('matcher'));
      await deployment.spawnService('matcher');
    });
  });

  it('kill -9 of the projection mid-job: done, every row once, one callback', async () => {
    await doneDespite('kill -9 of the projection (started again)', 'projection', async () => {
      await kill9(alive('projection'));
      await deployment.spawnService('projection');
    });
  });

  it('the broker restarted mid-job: done, every row once, one callback', async () => {
    await doneDespite('Kafka broker stopped and started', 'broker', async () => {
      await privateKafka.stop();
      await privateKafka.start();
    });
  });

  it('ClickHouse restarted mid-job: done, every row once, one callback', async () => {
    await doneDespite('ClickHouse (chDB front) stopped and started', 'clickhouse', async () => {
      await privateClickHouse.stop();
      await privateClickHouse.start();
    });
  });

  it('kill -9 of the API right after its 202: done, every row once, one callback', async () => {
    const { service, baseUrl } = await spawnApi();
    const created = await create('api-after-202', baseUrl);
    const load = loadNow();
    const at = performance.now();
    await kill9(service);
    const job = await waitUntil(created.id, finished, JOB_MINUTES * 60_000);
    const recoverSeconds = (performance.now() - at) / 1000;
    const callbacks = await settledCallbacks('api-after-202', created.id);
    record({
      fault: 'kill -9 of the API process', injected: 'right after its 202', rows: ROWS, outcome: job.status,
      results: job.processed_count, callbacks, recoverSeconds, load,
      held: job.status === 'done' && job.processed_count === ROWS && callbacks.events === 1 && callbacks.delivered === 1,
    });
    await expectCompleteResults(d, job, rows, d.listVersionId);
    expect(callbacks).toEqual({ requests: 1, events: 1, delivered: 1 });
  });
});
