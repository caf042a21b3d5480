/**
 * Asynchronous check jobs end to end on the embedded default (API + matcher + projection in one
 * process, embedded event log and stores), over real HTTP with an HTTPS callback receiver.
 * The same scenarios run on Kafka + ClickHouse in pipeline.distributed.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_LIST_VERSION } from '../../services/domain/index.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startEmbedded, TEST_ENV, type EmbeddedDeployment } from '../support/deployments.ts';
import { spawnNpmStart, type StartedProcess } from '../support/embedded-process.ts';
import { mixedRows, mixedTestRows } from '../support/pipeline.ts';
import { loadConfig } from '../../services/platform/config.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openPlatform } from '../../services/platform/open-platform.ts';
import { createServiceContext, startApi } from '../../services/processes.ts';
import {
  allResults, createJob, expectCompleteResults, expectOneCallback, getJob, isFinished, waitForJob, type Deployment,
} from './pipeline-scenarios.ts';
import { certificateScenario } from './certificate-scenario.ts';
import { billingScenario } from './billing-scenario.ts';
import { createCertificateKeys } from '../../services/platform/keys/certificate-keys.ts';

let receiver: CallbackReceiver;
let deployment: EmbeddedDeployment;
let d: Deployment;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startEmbedded(receiver);
  d = { ...deployment, receiver };
});

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
});

describe('check jobs on the embedded default', () => {
  it('a job of mixed rows comes back complete, in order, counted, with one signed callback', async () => {
    const rows = mixedRows(2_003);
    const created = await createJob(d, rows.map((r) => r.person), receiver.url('mixed'));
    expect(created.status).toBe('queued');
    expect(created.list_version.id).toBe(d.listVersionId);
    const job = await waitForJob(d, created.id, isFinished);
    await expectCompleteResults(d, job, rows, d.listVersionId);
    await expectOneCallback(d, 'mixed', job, 'check_job.completed');
    expect((await getJob(d, job.id)).callback).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200 });
  });

  it('a done job carries a certificate that verifies (API, openssl), survives rotation and deletion', async () => {
    await certificateScenario(d, () => createCertificateKeys({ keyring: deployment.platform.keys }).rotate());
  });

  it('pay-per-list: priced jobs wait for payment; forged/replayed webhooks change nothing; a signed one or the admin tool releases them', async () => {
    await billingScenario(d, deployment.platform, { DATA_DIR: dirname(deployment.platform.databasePath) });
  }, 180_000);

  it('a test-key job gets the fixed answers and the fixed test list version', async () => {
    const rows = mixedTestRows(500);
    const created = await createJob(d, rows.map((r) => r.person), undefined, d.testKey);
    const job = await waitForJob(d, created.id, isFinished, 30_000, d.testKey);
    await expectCompleteResults(d, job, rows, TEST_LIST_VERSION.id, d.testKey);
    expect(job.callback).toBeNull();
  });

  it('retries a receiver that answers 500 twice, then 200, with one delivery id', async () => {
    const rows = mixedRows(40);
    const created = await createJob(d, rows.map((r) => r.person), receiver.url('flaky', [500, 500, 200]));
    const job = await waitForJob(d, created.id, isFinished);
    const got = await expectOneCallback(d, 'flaky', job, 'check_job.completed');
    expect(got.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(250);
    expect((await getJob(d, job.id)).callback).toMatchObject({ state: 'delivered', attempts: 3, last_status: 200 });
  });

  it('records the failure on the job when the receiver never answers 2xx', async () => {
    const created = await createJob(d, mixedRows(10).map((r) => r.person), receiver.url('down', [500]));
    await waitForJob(d, created.id, isFinished);
    const job = await waitForJob(d, created.id, (j) => j.callback?.state === 'failed', 60_000);
    expect(job.status).toBe('done');
    expect(job.callback).toMatchObject({ state: 'failed', attempts: 4, last_status: 500, last_error: 'http_status' });
    expect(receiver.received('down')).toHaveLength(4);
    expect(new Set(receiver.received('down').map((r) => r.headers['service-delivery'])).size).toBe(1);
  });
});

describe('npm start killed mid-job (kill -9: its matcher threads with it) and started again', () => {
  let dataDir: string;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'pipeline-restart-'));
  });
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  function start(): Promise<StartedProcess> {
    return spawnNpmStart(
      { ...process.env, ...TEST_ENV, DEMO_SEED: 'true', PORT: '0', DATA_DIR: dataDir, NODE_EXTRA_CA_CERTS: receiver.certFile },
      children,
    );
  }

  it('finishes the job after the restart: every row once, one completion callback', async () => {
    // 1. A first start seeds the demo organisation and list, then stops.
    const first = await start();
    const liveKey = /live key: (rl_live_\S+)/.exec(first.output())?.[1];
    const versionId = /version ([0-9a-f-]{36})/.exec(first.output())?.[1];
    expect(liveKey && versionId).toBeTruthy();
    first.child.kill('SIGTERM');
    expect(await new Promise((r) => first.child.once('exit', r))).toBe(0);

    // 2. The job is submitted while no consumer runs (the API alone on the same file), so its
    //    rows wait on the embedded log.
    const config = loadConfig({ ...TEST_ENV, PORT: '0', DATA_DIR: dataDir });
    const platform = await openPlatform(config, silentLogger());
    const api = await startApi(createServiceContext(platform, config, silentLogger()));
    const dd: Deployment = { baseUrl: api.address, liveKey: liveKey!, testKey: '', listVersionId: versionId!, receiver };
    const rows = mixedRows(200_000);
    const created = await createJob(dd, rows.map((r) => r.person), receiver.url('restart'));
    await api.stop();
    await platform.close();

    // 3. npm start consumes them; it is killed (-9) once some, not all, results are stored.
    const db = new DatabaseSync(join(dataDir, 'robinson.sqlite'), { readOnly: true });
    const resultsDb = new DatabaseSync(join(dataDir, 'results.sqlite'), { readOnly: true });
    // Results are records of contiguous rows (docs/platform-clickhouse-registry.md "Result records").
    const stored = () => (resultsDb.prepare('SELECT COALESCE(SUM(last_row - first_row + 1), 0) AS n FROM check_result_records WHERE job_id = ?').get(created.id) as { n: number }).n;
    // Consumers start before the API listens, so this watches from the spawn on, not the banner.
    const second = start();
    second.catch(() => undefined);
    const child = children.at(-1)!;
    while (stored() === 0) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    const status = (db.prepare('SELECT status FROM check_jobs WHERE id = ?').get(created.id) as { status: string }).status;
    const storedAtKill = stored();
    db.close();
    resultsDb.close();
    expect(['queued', 'running']).toContain(status);
    expect(storedAtKill).toBeGreaterThan(0);
    expect(storedAtKill).toBeLessThan(rows.length);

    // 4. Started again, it finishes the job: every row exactly once, one completion callback.
    const third = await start();
    dd.baseUrl = third.baseUrl;
    const job = await waitForJob(dd, created.id, isFinished, 90_000);
    expect(job).toMatchObject({ status: 'done', processed_count: rows.length, row_count: rows.length });
    const { results } = await allResults(dd, job.id);
    expect(results.map((r) => r.id)).toEqual(rows.map((r) => r.person.id));
    await expectOneCallback(dd, 'restart', job, 'check_job.completed');
    // The matcher threads stored the results themselves: none went through checks.results
    // (docs/architecture.md "Matcher").
    const log = new DatabaseSync(join(dataDir, 'event-log.sqlite'), { readOnly: true });
    const onLog = (topic: string) => (log.prepare('SELECT COUNT(*) AS n FROM log_messages WHERE topic = ?').get(topic) as { n: number }).n;
    expect(onLog('checks.rows')).toBeGreaterThan(0);
    expect(onLog('checks.results')).toBe(0);
    log.close();
    third.child.kill('SIGTERM');
    expect(await new Promise((r) => third.child.once('exit', r))).toBe(0);
  }, 180_000);
});
