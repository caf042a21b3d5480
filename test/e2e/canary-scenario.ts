/**
 * The canary (issue 14, DECISIONS §10), written once and run by canary.embedded.test.ts and
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
import { mixedRows } from '../support/pipeline.ts';
import { api, createJob, getJob, isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';

export interface CanaryDeployment extends Pick<Deployment, 'baseUrl' | 'liveKey' | 'testKey' | 'listVersionId'> {
  /** Places holding `canary` right now (each scanner's findings, see test/support/canary-scan.ts). */
  scan(canary: string): Promise<string[]>;
  /** Moves the job's delete_after into the past in the store (time passing, for the retention run). */
  backdate(jobId: string): Promise<void>;
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
