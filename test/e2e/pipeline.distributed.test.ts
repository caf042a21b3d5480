/**
 * Asynchronous check jobs end to end on the distributed deployment: real Kafka and ClickHouse
 * (infra/local), the API in the test process, TWO matcher processes and a SEPARATE projection
 * process (`node services/run-service.ts <name>`), each on this run's own topic prefix and
 * database. The scenarios of pipeline.embedded.test.ts, then crashes: a matcher killed -9
 * mid-job, the projection killed -9 mid-job and restarted, and the Kafka broker restarted mid-job
 * (a broker of its own, so other suites keep theirs). Fails, never skips, without the servers.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_LIST_VERSION } from '../../services/domain/index.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { until } from '../support/until.ts';
import { mixedRows, mixedTestRows } from '../support/pipeline.ts';
import {
  createJob, expectCompleteResults, expectOneCallback, getJob, isFinished, waitForJob, type Deployment,
} from './pipeline-scenarios.ts';
import { certificateScenario } from './certificate-scenario.ts';
import { billingScenario } from './billing-scenario.ts';
import { createCertificateKeys } from '../../services/platform/keys/certificate-keys.ts';
import { freePort } from '../support/portal.ts';

const run = promisify(execFile);
const KAFKA_SH = join(import.meta.dirname, '../../infra/local/kafka.sh');

/** A warning or error of the Kafka client (event_log.kafka_client, level 40 or 50) in a process's log lines. */
function loggedKafkaTrouble(output: string): boolean {
  return output.split('\n').some((line) => line.includes('"msg":"event_log.kafka_client"') && /"level":(40|50)\b/.test(line));
}

let receiver: CallbackReceiver;
let deployment: DistributedDeployment;
let d: Deployment;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  deployment = await startDistributed(receiver, { matchers: 2 });
  d = { ...deployment, receiver };
}, 180_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
}, 60_000);

/** Waits until the job has some, not all, results stored and is still running. */
async function midJob(dep: Deployment, id: string, rows: number) {
  const job = await waitForJob(dep, id, (j) => j.processed_count > 0 || isFinished(j), 120_000);
  expect(job.status, 'the job finished before the crash could happen').toBe('running');
  expect(job.processed_count).toBeLessThan(rows);
  return job;
}

describe('check jobs on Kafka + ClickHouse, two matchers and a projection process', () => {
  it('a job of mixed rows comes back complete, in order, counted, with one signed callback', async () => {
    const rows = mixedRows(2_003);
    const created = await createJob(d, rows.map((r) => r.person), receiver.url('mixed'));
    expect(created.list_version.id).toBe(d.listVersionId);
    const job = await waitForJob(d, created.id, isFinished);
    await expectCompleteResults(d, job, rows, d.listVersionId);
    await expectOneCallback(d, 'mixed', job, 'check_job.completed');
  }, 90_000);

  it('a done job carries a certificate that verifies (API, openssl), survives rotation and deletion', async () => {
    await certificateScenario(d, () => createCertificateKeys({ keyring: deployment.platform.keys }).rotate());
  }, 90_000);

  it('pay-per-list: priced jobs wait for payment; forged/replayed webhooks change nothing; a signed one or the admin tool releases them', async () => {
    await billingScenario(d, deployment.platform, deployment.env);
  }, 180_000);

  it('a test-key job gets the fixed answers and the fixed test list version', async () => {
    const rows = mixedTestRows(500);
    const created = await createJob(d, rows.map((r) => r.person), undefined, d.testKey);
    const job = await waitForJob(d, created.id, isFinished, 60_000, d.testKey);
    await expectCompleteResults(d, job, rows, TEST_LIST_VERSION.id, d.testKey);
  }, 90_000);

  it('retries a receiver that answers 500 twice, then 200, with one delivery id', async () => {
    const created = await createJob(d, mixedRows(40).map((r) => r.person), receiver.url('flaky', [500, 500, 200]));
    const job = await waitForJob(d, created.id, isFinished);
    const got = await expectOneCallback(d, 'flaky', job, 'check_job.completed');
    expect(got.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect((await getJob(d, job.id)).callback).toMatchObject({ state: 'delivered', attempts: 3, last_status: 200 });
  }, 90_000);

  it('records the failure on the job when the receiver never answers 2xx', async () => {
    const created = await createJob(d, mixedRows(10).map((r) => r.person), receiver.url('down', [503]));
    const job = await waitForJob(d, created.id, (j) => j.callback?.state === 'failed', 60_000);
    expect(job.status).toBe('done');
    expect(job.callback).toMatchObject({ state: 'failed', attempts: 4, last_status: 503 });
    expect(receiver.received('down')).toHaveLength(4);
  }, 90_000);

  it('a matcher killed -9 mid-job: the other one takes its partitions, every row once', async () => {
    const rows = mixedRows(120_000);
    const created = await createJob(d, rows.map((r) => r.person), receiver.url('matcher-kill'));
    await midJob(d, created.id, rows.length);
    const victim = deployment.processes.find((p) => p.name === 'matcher' && p.child.exitCode === null && p.child.signalCode === null)!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    const job = await waitForJob(d, created.id, isFinished, 150_000);
    await expectCompleteResults(d, job, rows, d.listVersionId);
    await expectOneCallback(d, 'matcher-kill', job, 'check_job.completed');
    await deployment.spawnService('matcher');
  }, 240_000);

  it('the projection killed -9 mid-job and started again: done once, every row once, one callback', async () => {
    const rows = mixedRows(120_000);
    const created = await createJob(d, rows.map((r) => r.person), receiver.url('projection-kill'));
    await midJob(d, created.id, rows.length);
    const projection = deployment.processes.find((p) => p.name === 'projection' && p.child.exitCode === null && p.child.signalCode === null)!;
    projection.child.kill('SIGKILL');
    await projection.exited;
    const stuck = await getJob(d, created.id);
    expect(stuck.status).toBe('running');
    await deployment.spawnService('projection');
    const job = await waitForJob(d, created.id, isFinished, 150_000);
    await expectCompleteResults(d, job, rows, d.listVersionId);
    await expectOneCallback(d, 'projection-kill', job, 'check_job.completed');
  }, 240_000);
});

describe('the Kafka broker restarted mid-job', () => {
  // Free ports, not fixed ones: another test file (kafka-behaviour's restart) or another run may
  // start a broker of its own at the same time (docs/deployment.md "CI timing").
  const stateDir = join(tmpdir(), `robinson-kafka-restart-${randomBytes(4).toString('hex')}`);
  const env: NodeJS.ProcessEnv = { ...process.env, KAFKA_STATE_DIR: stateDir };
  let brokers: string[] = [];
  let restartDeployment: DistributedDeployment | undefined;

  beforeAll(async () => {
    const [port, controllerPort] = [await freePort(), await freePort()];
    Object.assign(env, { KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(controllerPort) });
    brokers = [`127.0.0.1:${port}`];
    await run('bash', [KAFKA_SH, 'start'], { env, timeout: 170_000 });
  }, 180_000);

  afterAll(async () => {
    await restartDeployment?.stop();
    await run('bash', [KAFKA_SH, 'stop'], { env, timeout: 60_000 }).catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  }, 120_000);

  it('every job still ends done with every row once and one completion callback', async () => {
    restartDeployment = await startDistributed(receiver, { matchers: 2, brokers });
    const dep: Deployment = { ...restartDeployment, receiver };
    const rows = mixedRows(120_000);
    const created = await createJob(dep, rows.map((r) => r.person), receiver.url('broker-restart'));
    await midJob(dep, created.id, rows.length);
    const marks = restartDeployment.processes.map((p) => p.output().length);
    await run('bash', [KAFKA_SH, 'stop'], { env, timeout: 60_000 });
    // The broker comes back only once every consumer process has met it gone (a kafkajs warning
    // or error in its log since the stop): the outage is then a real one mid-job, whatever the
    // machine's load, not a pause of a fixed length that a slow consumer might never notice.
    await until('every matcher and projection process to log the broker gone', () => restartDeployment!.processes.every(
      (p, i) => p.name === 'api' || loggedKafkaTrouble(p.output().slice(marks[i])),
    ), 60_000, 100);
    await run('bash', [KAFKA_SH, 'start'], { env, timeout: 170_000 });
    const job = await waitForJob(dep, created.id, isFinished, 180_000);
    await expectCompleteResults(dep, job, rows, dep.listVersionId);
    await expectOneCallback(dep, 'broker-restart', job, 'check_job.completed');
    for (const p of restartDeployment.processes) expect(p.child.exitCode, `${p.name} exited:\n${p.output()}`).toBeNull();
  }, 420_000);
});
