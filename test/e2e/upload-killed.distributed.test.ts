/**
 * Uploads and kill -9 on the distributed deployment: the API runs as its own process
 * (`npm run service -- api`) on Kafka + ClickHouse beside the matchers and the projection, and is
 * killed with SIGKILL
 * 1. while a large CSV upload is still streaming in: no job exists in ClickHouse (the file is read
 *    whole before anything is created), and the killed process's `.part` file is removed by the
 *    next API start, before it listens;
 * 2. while `/start` publishes a 200,000-row draft to Kafka: the intake-interrupted rules hold for
 *    files too: the projection fails the job (`intake_interrupted`) after INTAKE_STALE_SECONDS, it
 *    never stays queued, and the spool file goes with the restart.
 * The same two cases for `npm start` are test/e2e/upload-killed.embedded.test.ts.
 */
import { request as httpRequest } from 'node:http';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { sql } from '../../services/platform/store/clickhouse/sql.ts';
import { startDistributed, type DistributedDeployment, type ServiceProcess } from '../support/deployments.ts';
import { servers } from '../support/servers.ts';
import { waitForJob, type Deployment } from './pipeline-scenarios.ts';
import { upload } from './uploads-scenarios.ts';

const STALE_SECONDS = 5;

describe('the API process killed (-9) during an upload (distributed deployment)', () => {
  let d: DistributedDeployment;
  let conn: ClickHouseConnection;
  let spoolDir: string;

  beforeAll(async () => {
    d = await startDistributed(null, { env: { INTAKE_STALE_SECONDS: String(STALE_SECONDS) } });
    conn = createClickHouseConnection({ url: servers.clickhouseUrl, database: d.env.CLICKHOUSE_DATABASE });
    spoolDir = join(d.env.DATA_DIR, 'spool');
  }, 120_000);
  afterAll(async () => {
    await conn?.close();
    await d?.stop();
  });

  /** `npm run service -- api` on this deployment; its address is in its `process.started` line. */
  async function startApi(): Promise<{ process: ServiceProcess; baseUrl: string }> {
    const process = await d.spawnService('api', { PORT: '0' });
    const address = /"address":"(http:\/\/[^"]+)"/.exec(process.output())?.[1];
    if (!address) throw new Error(`the api printed no address:\n${process.output()}`);
    return { process, baseUrl: address };
  }

  async function kill(p: ServiceProcess): Promise<void> {
    p.child.kill('SIGKILL');
    await p.exited;
  }

  const filesInSpool = () => (existsSync(spoolDir) ? readdirSync(spoolDir) : []);
  const csvRow = (i: number) => `K-${i};Anne Hansen ${i};Nørregade ${1 + (i % 90)}, 2. th, 5000 Odense\r\n`;

  async function jobCount(): Promise<number> {
    const [row] = await conn.rows<{ n: string }>(sql`SELECT count() AS n FROM ${conn.table('check_jobs')}`);
    return Number(row.n);
  }

  async function intakeOpen(jobId: string): Promise<boolean> {
    const rows = await conn.rows<{ closed: number }>(sql`SELECT max(closed) AS closed FROM ${conn.table('check_job_intakes')} WHERE job_id = ${jobId} HAVING count() > 0`);
    return rows.length > 0 && Number(rows[0].closed) === 0;
  }

  it('while the file streams in: no job in ClickHouse, and the restart removes the partial upload', async () => {
    const first = await startApi();
    const boundary = 'killtest0123456789';
    // The body is written as the server takes it, never finished: the kill comes mid-file.
    const request = httpRequest(new URL('/v2/check-jobs', first.baseUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked' },
    });
    const answered = new Promise<unknown>((resolve) => {
      request.on('response', (r) => resolve(r.statusCode));
      request.on('error', (e) => resolve(e));
    });
    request.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="stor.csv"\r\nContent-Type: text/csv\r\n\r\nKundenr.;Navn;Adresse\r\n`);
    const partFile = () => filesInSpool().find((name) => name.startsWith('upload-'));
    let row = 0;
    const deadline = Date.now() + 60_000;
    // Until a megabyte of it is on the server's disk.
    while (!(partFile() && statSync(join(spoolDir, partFile()!)).size > 1024 * 1024)) {
      if (Date.now() > deadline) throw new Error('the upload never reached the spool');
      let piece = '';
      for (let i = 0; i < 2000; i++) piece += csvRow(row++);
      if (!request.write(piece)) await new Promise((r) => request.once('drain', r));
    }
    await kill(first.process);
    expect(await answered, 'the request dies with the process, unanswered').toBeInstanceOf(Error);
    request.destroy();

    expect(await jobCount(), 'no job was created for a file still arriving').toBe(0);
    expect(filesInSpool().filter((n) => n.startsWith('upload-')), 'the killed process leaves its partial upload').toHaveLength(1);

    const second = await startApi();
    expect(filesInSpool().filter((n) => n.startsWith('upload-')), 'removed before the restarted API listens').toEqual([]);
    await kill(second.process);
  }, 120_000);

  it('while /start publishes a 200,000-row draft: the job is failed (intake_interrupted), never left queued', async () => {
    const first = await startApi();
    const api: Deployment = { ...d, baseUrl: first.baseUrl, receiver: null as never };
    let text = 'Kundenr.;Navn;Adresse\r\n';
    for (let i = 0; i < 200_000; i++) text += csvRow(i);
    const created = await upload(api, { bytes: Buffer.from(text, 'latin1'), filename: 'stor.csv' });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    expect(created.json).toMatchObject({ status: 'draft', row_count: 200_000 });
    const id = created.json.id as string;

    const started = fetch(new URL(`/v2/check-jobs/${id}/start`, api.baseUrl), { method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}` } })
      .then((r) => r.status, (e: Error) => e);
    const deadline = Date.now() + 60_000;
    while (!((await d.platform.jobs.getJobById(id))?.status === 'queued' && (await intakeOpen(id)))) {
      if (Date.now() > deadline) throw new Error('the start never began publishing');
      await new Promise((r) => setTimeout(r, 2));
    }
    await kill(first.process);
    expect(await started, 'the start dies with the process, unanswered').toBeInstanceOf(Error);
    expect(await intakeOpen(id), 'publishing had finished before the kill').toBe(true);

    const second = await startApi();
    api.baseUrl = second.baseUrl;
    expect(filesInSpool().filter((n) => n.startsWith('job-') || n.startsWith('upload-'))).toEqual([]);
    const job = await waitForJob(api, id, (j) => j.status !== 'queued' && j.status !== 'running', 90_000);
    expect(job).toMatchObject({ status: 'failed', error: 'intake_interrupted', row_count: 200_000 });
    expect(job.processed_count).toBeLessThan(200_000);
    await kill(second.process);
  }, 240_000);
});
