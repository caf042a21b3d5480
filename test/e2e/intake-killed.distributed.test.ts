/**
 * intake-killed.embedded.test.ts on Kafka + ClickHouse: the API as a process of its own
 * (`node services/run-service.ts api`) is killed (-9) while it publishes a 200,000-person job to
 * Kafka; the separate projection process fails the job (`intake_interrupted`) after
 * INTAKE_STALE_SECONDS with one `check_job.failed` callback; the restarted API removes the dead
 * process's spool file. Fails, never skips, without the servers.
 */
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ident, sql } from '../../services/platform/store/clickhouse/sql.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { clickhouseOverHttp } from '../support/clickhouse.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { mixedRows } from '../support/pipeline.ts';
import { api, expectOneCallback, waitForJob, type Deployment } from './pipeline-scenarios.ts';

const ROWS = 200_000;

let receiver: CallbackReceiver;
let deployment: DistributedDeployment;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startDistributed(receiver, { matchers: 1, env: { INTAKE_STALE_SECONDS: '5' } });
}, 180_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
}, 60_000);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}


describe('the API process killed (-9) while publishing a job to Kafka', () => {
  it('fails the job (intake_interrupted) with one failure callback, and the restart removes the spool file', async () => {
    const database = deployment.env.CLICKHOUSE_DATABASE;
    const jobs = ident(database, 'check_jobs');
    const intakes = ident(database, 'check_job_intakes');
    const spoolDir = join(deployment.env.DATA_DIR, 'spool');
    const spoolFiles = () => readdirSync(spoolDir).filter((name) => name.startsWith('job-'));
    const port = String(await freePort());
    const first = await deployment.spawnService('api', { PORT: port });
    const d: Deployment = { ...deployment, baseUrl: `http://127.0.0.1:${port}`, receiver };
    // The callback URL before the people: the overlapped intake creates the job with the fields
    // read so far (docs/architecture.md "Overlapped intake"), so the failure callback has its URL.
    const body = JSON.stringify({ callback_url: receiver.url('killed'), people: mixedRows(ROWS).map((r) => r.person) });

    const request = fetch(new URL('/v2/check-jobs', d.baseUrl), {
      method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' }, body,
    }).then((r) => r.status, (e: Error) => e);
    let created: { id: string } | undefined;
    const deadline = Date.now() + 60_000;
    while (!(created = (await clickhouseOverHttp<{ id: string }>(sql`SELECT id FROM ${jobs} FINAL`))[0])) {
      if (Date.now() > deadline) throw new Error('no job record within 60 s');
    }
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await request, 'the request must die with the process, unanswered').toBeInstanceOf(Error);
    const [open] = await clickhouseOverHttp<{ closed: number }>(sql`SELECT max(closed) AS closed FROM ${intakes} WHERE job_id = ${created.id}`);
    expect(Number(open.closed), 'publishing had finished before the kill').toBe(0);
    expect(spoolFiles(), 'the killed process leaves its spool file behind').toHaveLength(1);

    // The API started again removes the dead process's file before it listens.
    const second = await deployment.spawnService('api', { PORT: port });
    expect(spoolFiles()).toEqual([]);

    const job = await waitForJob(d, created.id, (j) => j.status !== 'queued' && j.status !== 'running', 60_000);
    // The overlapped intake creates the job once 10,000 rows are validated, before the body has
    // ended: killed then, its final row count was never known (0; seal writes it).
    expect(job).toMatchObject({ status: 'failed', error: 'intake_interrupted', row_count: 0 });
    expect(job.processed_count).toBeLessThan(ROWS);
    expect(job.allowed_count + job.blocked_count + job.manual_count).toBe(job.processed_count);
    await expectOneCallback(d, 'killed', job, 'check_job.failed');
    expect((await api(d, 'GET', `/v2/check-jobs/${created.id}/results`)).status).toBe(409);
    expect(receiver.received('killed')).toHaveLength(1);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);
});
