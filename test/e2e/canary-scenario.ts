/**
 * The canary (docs/decisions.md §10), written once and run by canary.embedded.test.ts and
 * canary.distributed.test.ts: a job with one made-up person is created and done; the deployment's
 * every store is scanned for that person (it must be found, so the scan can fail); the job is
 * deleted (by DELETE, or by the projection's real retention sweep once delete_after has passed);
 * the same scan then finds the person nowhere: database files and every other file of the data
 * dir, every message still on every topic (decrypted with whatever keys remain), every ClickHouse
 * table (earlier row versions and delete-masked rows included), the services' logs at debug level.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { PersonInput } from '../../services/domain/types.ts';
import { multipartBody } from '../support/multipart.ts';
import { until } from '../support/until.ts';
import { mixedRows } from '../support/pipeline.ts';
import { api, createJob, getJob, isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';

export interface CanaryDeployment extends Pick<Deployment, 'baseUrl' | 'liveKey' | 'testKey' | 'listVersionId'> {
  /** Places holding `canary` right now (each scanner's findings, see test/support/canary-scan.ts). */
  scan(canary: string): Promise<string[]>;
  /** Moves the job's delete_after into the past in the store (time passing, for the retention run). */
  backdate(jobId: string): Promise<void>;
  /** Moves the monitor's delete_after into the past in the store (its retention ending). */
  backdateMonitor(monitorId: string): Promise<void>;
  /** Moves the expiry of the answers remembered under an Idempotency-Key into the past (24 h passing). */
  expireRemembered(idempotencyKey: string): Promise<void>;
}

export function makeCanary(): { canary: string; people: PersonInput[] } {
  const canary = `Zq${randomBytes(5).toString('hex')}Kanarie`;
  const people = mixedRows(300).map((r) => r.person);
  // The customer's own reference comes back in every result (so the job store holds it); name and
  // address travel only on the topics.
  people[7] = { id: `${canary}-ref`, name: `${canary} Jensen`, address: `${canary}vej 7, 8000 Aarhus C` };
  return { canary, people };
}

export async function canaryScenario(d: CanaryDeployment, how: 'delete' | 'retention'): Promise<void> {
  const { canary, people } = makeCanary();
  const http = d as unknown as Deployment; // the HTTP helpers read only the base URL and keys
  const created = await createJob(http, people);
  const done = await waitForJob(http, created.id, isFinished, 90_000);
  expect(done.status).toBe('done');

  const before = await d.scan(canary);
  // Found where it lives while the job is live: the decrypted topics and the job store.
  expect(before.some((hit) => hit.startsWith('topic') && hit.endsWith('decoded')), before.join('\n')).toBe(true);
  expect(before.some((hit) => hit.startsWith('file') || hit.startsWith('clickhouse')), before.join('\n')).toBe(true);
  // ...and never in clear on the log: rows and results travel sealed.
  expect(before.filter((hit) => hit.startsWith('topic') && !hit.endsWith('decoded'))).toEqual([]);

  if (how === 'delete') {
    const deleted = await api(http, 'DELETE', `/v2/check-jobs/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.status).toBe('deleted');
  } else {
    await d.backdate(created.id);
    // The projection's own retention sweep (every second in these deployments) purges it.
    await waitForJob(http, created.id, (job) => job.status === 'deleted', 60_000);
  }
  const gone = await getJob(http, created.id);
  expect(gone).toMatchObject({ status: 'deleted', processed_count: 300 });
  expect(gone.certificate_token).toEqual(done.certificate_token); // counts and certificate remain

  expect(await d.scan(canary)).toEqual([]);
}

/**
 * The canary through a monitor: contacts with the canary are stored, the monitor service checks
 * them in a `source: monitor` job (its rows and results travel the same topics as any job's and
 * must be sealed the same way: docs/privacy-and-proof.md "Forgetting"); deleting the monitor and
 * its job leaves the canary nowhere.
 */
export async function monitorCanaryScenario(d: CanaryDeployment, how: 'delete' | 'retention' = 'delete'): Promise<void> {
  const { canary, people } = makeCanary();
  const http = d as unknown as Deployment;
  const created = await api(http, 'POST', '/v2/monitors', { people });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const monitorId = created.json.id as string;
  let jobId: string | null = null;
  const end = Date.now() + 90_000;
  while (jobId === null && Date.now() < end) {
    const monitor = await api(http, 'GET', `/v2/monitors/${monitorId}`);
    jobId = (monitor.json.last_check?.job_id as string | undefined) ?? null;
    if (jobId === null) await new Promise((r) => setTimeout(r, 100));
  }
  expect(jobId, 'the monitor service checked the monitor').not.toBeNull();
  const done = await waitForJob(http, jobId as string, isFinished, 90_000);
  expect(done).toMatchObject({ status: 'done', source: 'monitor' });

  const before = await d.scan(canary);
  expect(before.some((hit) => hit.startsWith('topic') && hit.endsWith('decoded')), before.join('\n')).toBe(true);
  // The re-check job's rows and results are sealed like any job's: never in clear on the log.
  expect(before.filter((hit) => hit.startsWith('topic') && !hit.endsWith('decoded'))).toEqual([]);

  if (how === 'delete') {
    expect((await api(http, 'DELETE', `/v2/monitors/${monitorId}`)).status).toBe(200);
    expect((await api(http, 'DELETE', `/v2/check-jobs/${jobId}`)).status).toBe(200);
  } else {
    // Both retentions end (the monitor's contacts, its re-check job's results): the monitor
    // service deletes the one, the projection purges the other.
    await d.backdateMonitor(monitorId);
    await d.backdate(jobId as string);
    await until('the monitor service deleted the monitor', async () => (await api(http, 'GET', `/v2/monitors/${monitorId}`)).status === 404, 60_000, 100);
    await waitForJob(http, jobId as string, (job) => job.status === 'deleted', 60_000);
  }
  expect(await d.scan(canary)).toEqual([]);
}

/**
 * The canary through an upload with an Idempotency-Key: the draft's answer (its preview holds the
 * people) is remembered for replays, and its file is kept in the uploads folder; DELETE of the
 * draft, or its delete_after passing unstarted (the projection purges it, the API's sweep takes
 * the file), forgets both with the job, so neither the stores nor a replay of the same request
 * show the canary afterwards.
 */
export async function draftCanaryScenario(d: CanaryDeployment, how: 'delete' | 'retention' = 'delete'): Promise<void> {
  const { canary, people } = makeCanary();
  const csv = ['Navn;Adresse', ...people.slice(0, 20).map((p) => `${p.name};${p.address}`)].join('\r\n') + '\r\n';
  const { body, contentType } = await multipartBody([{ name: 'file', value: { bytes: Buffer.from(csv), filename: 'kunder.csv' } }]);
  const upload = () => fetch(new URL('/v2/check-jobs', d.baseUrl), {
    method: 'POST', body,
    headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': contentType, 'Idempotency-Key': `canary-${canary}-draft` },
  });
  const http = d as unknown as Deployment;
  // A draft publishes nothing; one ordinary job puts messages on the log, so its scan reads something.
  await waitForJob(http, (await createJob(http, mixedRows(3).map((r) => r.person))).id, isFinished, 90_000);
  const first = await upload();
  const draft = await first.json() as Record<string, any>;
  expect(first.status, JSON.stringify(draft)).toBe(202);
  expect(draft.status).toBe('draft');
  expect(JSON.stringify(draft.preview)).toContain(canary);
  const replayed = await upload();
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(await d.scan(canary)).not.toEqual([]);

  if (how === 'delete') {
    expect((await api(http, 'DELETE', `/v2/check-jobs/${draft.id}`)).status).toBe(200);
  } else {
    await d.backdate(draft.id);
    await waitForJob(http, draft.id, (job) => job.status === 'deleted', 60_000);
    // The draft's file goes with the API's next sweep (every second here): its effect is the signal.
    await until('the draft file is swept', async () => (await d.scan(canary)).length === 0, 90_000, 250);
  }
  expect(await d.scan(canary)).toEqual([]);
  // The remembered answer went with the draft: the same request now makes a new draft, never
  // shows the deleted one's people under its id.
  const again = await upload();
  const next = await again.json() as Record<string, any>;
  expect(again.headers.get('idempotent-replayed')).toBeNull();
  expect(next.id).not.toBe(draft.id);
  expect((await api(http, 'DELETE', `/v2/check-jobs/${next.id}`)).status).toBe(200);
}

/**
 * The canary through a synchronous check with an Idempotency-Key: the answer (the person's id and
 * address as read) is remembered for replays for 24 hours and belongs to no job, so no purge
 * takes it; once its 24 hours have passed the API's retention sweep must leave it nowhere —
 * database, WAL, ClickHouse parts — without any further request.
 */
export async function syncCheckCanaryScenario(d: CanaryDeployment): Promise<void> {
  const { canary, people } = makeCanary();
  const idempotencyKey = `canary-${canary}-check`;
  const check = await fetch(new URL('/v2/checks', d.baseUrl), {
    method: 'POST', body: JSON.stringify({ people: [people[7]] }),
    headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
  });
  const answer = await check.text();
  expect(check.status, answer).toBe(200);
  expect(answer).toContain(canary);
  // Remembered where the deployment keeps answers (so the scan can fail).
  expect((await d.scan(canary)).some((hit) => hit.startsWith('file') || hit.startsWith('clickhouse'))).toBe(true);

  await d.expireRemembered(idempotencyKey);
  // The sweep runs every second here; its effect is the signal, with a deadline.
  await until('the expired answer is swept from every store', async () => (await d.scan(canary)).length === 0, 90_000, 250);
  expect(await d.scan(canary)).toEqual([]);
}
