/**
 * Uploads and kill -9: `npm start` (services/main.ts) as a child process on its own data
 * directory, killed with SIGKILL
 * 1. while a large CSV upload is still streaming in: no job exists (the file is read whole before
 *    anything is created), the killed process's `.part` file is removed by the next start;
 * 2. while `/start` publishes a 200,000-row draft: the intake-interrupted rules hold for files
 *    too: the job ends `failed` / `intake_interrupted` after INTAKE_STALE_SECONDS, never stays
 *    queued, and the spool file goes with the restart.
 */
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/platform/config.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openPlatform } from '../../services/platform/open-platform.ts';
import { seedAccountAndList, TEST_ENV, type Seeded } from '../support/deployments.ts';
import { spawnNpmStart, type StartedProcess } from '../support/embedded-process.ts';
import { waitForJob, type Deployment } from './pipeline-scenarios.ts';
import { upload } from './uploads-scenarios.ts';

const STALE_SECONDS = 5;
let dataDir: string;
let seeded: Seeded;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'upload-killed-'));
  const platform = await openPlatform(loadConfig({ ...TEST_ENV, DATA_DIR: dataDir }), silentLogger());
  try {
    seeded = await seedAccountAndList(platform);
  } finally {
    await platform.close();
  }
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function start(): Promise<StartedProcess> {
  return spawnNpmStart({ ...process.env, ...TEST_ENV, PORT: '0', DATA_DIR: dataDir, INTAKE_STALE_SECONDS: String(STALE_SECONDS) }, children);
}

async function kill(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
}

const filesIn = (sub: string) => (existsSync(join(dataDir, sub)) ? readdirSync(join(dataDir, sub)) : []);
const csvRow = (i: number) => `K-${i};Anne Hansen ${i};Nørregade ${1 + (i % 90)}, 2. th, 5000 Odense\r\n`;

describe('npm start killed (-9) during an upload', () => {
  it('while the file streams in: no job, and the restart removes the partial upload', async () => {
    const first = await start();
    const url = new URL('/v2/check-jobs', first.baseUrl);
    const boundary = 'killtest0123456789';
    // The body is written as the server takes it, never finished: the kill comes mid-file.
    const request = httpRequest(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${seeded.liveKey}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked' },
    });
    const answered = new Promise<unknown>((resolve) => {
      request.on('response', (r) => resolve(r.statusCode));
      request.on('error', (e) => resolve(e));
    });
    request.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="stor.csv"\r\nContent-Type: text/csv\r\n\r\nKundenr.;Navn;Adresse\r\n`);
    const partFile = () => filesIn('spool').find((name) => name.startsWith('upload-'));
    let row = 0;
    const deadline = Date.now() + 60_000;
    // Until a megabyte of it is on the server's disk.
    while (!(partFile() && statSync(join(dataDir, 'spool', partFile()!)).size > 1024 * 1024)) {
      if (Date.now() > deadline) throw new Error('the upload never reached the spool');
      let piece = '';
      for (let i = 0; i < 2000; i++) piece += csvRow(row++);
      if (!request.write(piece)) await new Promise((r) => request.once('drain', r));
    }
    await kill(first.child);
    expect(await answered, 'the request dies with the process, unanswered').toBeInstanceOf(Error);
    request.destroy();

    const db = new DatabaseSync(join(dataDir, 'robinson.sqlite'), { readOnly: true });
    const jobs = (db.prepare('SELECT COUNT(*) AS n FROM check_jobs').get() as { n: number }).n;
    db.close();
    expect(jobs, 'no job was created for a file still arriving').toBe(0);
    expect(filesIn('spool').filter((n) => n.startsWith('upload-')), 'the killed process leaves its partial upload').toHaveLength(1);
    expect(filesIn('uploads')).toEqual([]);

    const second = await start();
    expect(filesIn('spool'), 'removed before the restarted API listens').toEqual([]);
    await kill(second.child);
  }, 300_000);

  it('while /start publishes a 200,000-row draft: the job is failed (intake_interrupted), never left queued', async () => {
    const first = await start();
    const d: Deployment = { ...seeded, baseUrl: first.baseUrl, receiver: null as never };
    let text = 'Kundenr.;Navn;Adresse\r\n';
    for (let i = 0; i < 200_000; i++) text += csvRow(i);
    const created = await upload(d, { bytes: Buffer.from(text, 'latin1'), filename: 'stor.csv' });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    expect(created.json).toMatchObject({ status: 'draft', row_count: 200_000 });
    const id = created.json.id as string;

    const db = new DatabaseSync(join(dataDir, 'robinson.sqlite'), { readOnly: true });
    const status = () => (db.prepare('SELECT status FROM check_jobs WHERE id = ?').get(id) as { status: string }).status;
    const intakeOpen = () => (db.prepare('SELECT closed FROM check_job_intakes WHERE job_id = ?').get(id) as { closed: number } | undefined)?.closed === 0;
    const started = fetch(new URL(`/v2/check-jobs/${id}/start`, d.baseUrl), { method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}` } })
      .then((r) => r.status, (e: Error) => e);
    const deadline = Date.now() + 60_000;
    while (!(status() === 'queued' && intakeOpen())) {
      if (Date.now() > deadline) throw new Error('the start never began publishing');
      await new Promise((r) => setTimeout(r, 2));
    }
    await kill(first.child);
    expect(await started, 'the start dies with the process, unanswered').toBeInstanceOf(Error);
    expect(['queued', 'running']).toContain(status());
    expect(intakeOpen(), 'publishing had finished before the kill').toBe(true);
    db.close();

    const second = await start();
    d.baseUrl = second.baseUrl;
    expect(filesIn('spool')).toEqual([]);
    const job = await waitForJob(d, id, (j) => j.status !== 'queued' && j.status !== 'running', 60_000);
    expect(job).toMatchObject({ status: 'failed', error: 'intake_interrupted', row_count: 200_000 });
    expect(job.processed_count).toBeLessThan(200_000);
    await kill(second.child);
  }, 180_000);
});
