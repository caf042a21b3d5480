/**
 * "Nothing is lost silently": the API process is killed (-9) while it publishes the rows of a
 * 200,000-person job. The job must not stay queued forever, its spool file (personal data) must
 * not stay on disk, and the customer must hear: after INTAKE_STALE_SECONDS of silence from the
 * intake the projection fails the job (`intake_interrupted`) and sends one `check_job.failed`
 * callback; the next API start removes the dead process's spool file.
 *
 * Embedded default: `npm start` (services/main.ts: API, matcher and projection in one process)
 * as a child process, killed and started again on the same data directory. The same on Kafka +
 * ClickHouse, with the API as a process of its own: intake-killed.distributed.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/platform/config.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openPlatform } from '../../services/platform/open-platform.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { seedAccountAndList, TEST_ENV, type Seeded } from '../support/deployments.ts';
import { spawnNpmStart, type StartedProcess } from '../support/embedded-process.ts';
import { mixedRows } from '../support/pipeline.ts';
import { api, expectOneCallback, waitForJob, type Deployment } from './pipeline-scenarios.ts';

const ROWS = 200_000;
const STALE_SECONDS = 5;

let receiver: CallbackReceiver;
let dataDir: string;
let seeded: Seeded;
const children: ChildProcess[] = [];

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'intake-killed-'));
  const platform = await openPlatform(loadConfig({ ...TEST_ENV, DATA_DIR: dataDir }), silentLogger());
  try {
    seeded = await seedAccountAndList(platform);
  } finally {
    await platform.close();
  }
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  await receiver?.close();
});

/** `npm start` on the data directory; resolves once it listens. */
function start(): Promise<StartedProcess> {
  return spawnNpmStart(
    {
      ...process.env, ...TEST_ENV, PORT: '0', DATA_DIR: dataDir, INTAKE_STALE_SECONDS: String(STALE_SECONDS),
      NODE_EXTRA_CA_CERTS: receiver.certFile,
    },
    children,
  );
}

const spoolFiles = () => readdirSync(join(dataDir, 'spool')).filter((name) => name.startsWith('job-'));

describe('the API killed (-9) while publishing a job', () => {
  it('fails the job (intake_interrupted) with one failure callback, and the restart removes the spool file', async () => {
    const first = await start();
    const d: Deployment = { ...seeded, baseUrl: first.baseUrl, receiver };
    // The callback URL before the people: the overlapped intake creates the job with the fields
    // read so far (docs/architecture.md "Overlapped intake"), so the failure callback has its URL.
    const body = JSON.stringify({ callback_url: receiver.url('killed'), people: mixedRows(ROWS).map((r) => r.person) });

    // 1. The body goes in; the moment the job record exists (the whole body is spooled and
    //    publishing has begun) the process is killed.
    const db = new DatabaseSync(join(dataDir, 'robinson.sqlite'), { readOnly: true });
    const jobRow = () => db.prepare('SELECT id, status FROM check_jobs').get() as { id: string; status: string } | undefined;
    const intakeRow = (id: string) => db.prepare('SELECT closed FROM check_job_intakes WHERE job_id = ?').get(id) as { closed: number } | undefined;
    const request = fetch(new URL('/v2/check-jobs', d.baseUrl), {
      method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' }, body,
    }).then((r) => r.status, (e: Error) => e);
    let created: { id: string; status: string } | undefined;
    const deadline = Date.now() + 60_000;
    while (!(created = jobRow())) {
      if (Date.now() > deadline) throw new Error('no job record within 60 s');
      await new Promise((r) => setTimeout(r, 2));
    }
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(await request, 'the request must die with the process, unanswered').toBeInstanceOf(Error);
    const atKill = jobRow()!;
    expect(['queued', 'running']).toContain(atKill.status);
    expect(intakeRow(created.id)?.closed, 'publishing had finished before the kill').toBe(0);
    db.close();
    expect(spoolFiles(), 'the killed process leaves its spool file behind').toHaveLength(1);

    // 2. Started again: the API removes the dead process's spool file before it listens.
    const second = await start();
    d.baseUrl = second.baseUrl;
    expect(spoolFiles()).toEqual([]);

    // 3. After INTAKE_STALE_SECONDS of silence the projection fails the job, once, with a callback.
    const job = await waitForJob(d, created.id, (j) => j.status !== 'queued' && j.status !== 'running', 30_000);
    // The overlapped intake creates the job once 10,000 rows are validated, before the body has
    // ended: killed then, its final row count was never known (0; seal writes it).
    expect(job).toMatchObject({ status: 'failed', error: 'intake_interrupted', row_count: 0 });
    expect(job.finished_at).not.toBeNull();
    expect(job.processed_count).toBeLessThan(ROWS);
    expect(job.allowed_count + job.blocked_count + job.manual_count).toBe(job.processed_count);
    await expectOneCallback(d, 'killed', job, 'check_job.failed');
    const results = await api(d, 'GET', `/v2/check-jobs/${created.id}/results`);
    expect(results.status).toBe(409);
    expect(receiver.received('killed')).toHaveLength(1);

    second.child.kill('SIGTERM');
    expect(await new Promise((r) => second.child.once('exit', r))).toBe(0);
  }, 120_000);
});
