/**
 * The distributed deployment as docker compose runs it (docker-compose.yml with the CI override,
 * docs/deployment.md "Production and CI compose"): every service in its own container of the
 * project's image, Kafka and the ClickHouse 25.8 engine front in theirs, on the host network of
 * the private engine (infra/local/docker.sh). Bootstrapped with `docker-compose run --rm admin`,
 * it takes a 100,000-row job and an uploaded spreadsheet to done through the API container, with
 * two matchers and two projections that all hold partitions; a matcher and a projection killed mid-job still give
 * exactly one result per row and one callback. After `down`, nothing of the stack is left and no
 * network but `host`/`none` (and no bridge interface) exists. Runs in the `containers` project.
 */
import ExcelJS from 'exceljs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCprFile } from '../../services/synthetic/index.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { bridgeInterfaces, docker, startComposeStack, type ComposeStack } from '../support/compose.ts';
import { mixedRows } from '../support/pipeline.ts';
import { allResults, expectOneCallback, isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';
import { upload, uploadRows } from './uploads-scenarios.ts';

type Json = Record<string, any>;
const ROWS = 100_000;

let receiver: CallbackReceiver;
let stack: ComposeStack | undefined;
let d: Deployment;
/** Why the stack did not come up: every test fails with it (never reported as skipped). */
let failure: unknown;

function ready(): ComposeStack {
  if (failure !== undefined) throw failure;
  if (!stack) throw new Error('the compose stack is not up');
  return stack;
}

async function adminJson<T>(...args: string[]): Promise<T> {
  // -T: no terminal; the CLI prints its JSON answer on stdout, compose its own lines on stderr.
  const out = await stack!.compose('run', '--rm', '-T', 'admin', ...args, '--json');
  return JSON.parse(out.slice(out.indexOf('{'))) as T;
}

beforeAll(async () => {
  try {
    await bootstrap();
  } catch (error) {
    failure = error;
  }
}, 900_000);

async function bootstrap(): Promise<void> {
  receiver = await startCallbackReceiver();
  stack = await startComposeStack({ matchers: 2, projections: 2, callbackCaFile: receiver.certFile });
  const org = await adminJson<{ id: string }>('orgs', 'create', '--name', 'Compose A/S');
  const live = await adminJson<{ key: string }>('keys', 'create', '--org', org.id, '--mode', 'live');
  const test = await adminJson<{ key: string }>('keys', 'create', '--org', org.id, '--mode', 'test');
  writeFileSync(join(stack.listsDir, 'robinson.txt'), generateCprFile(2_000, 'compose-e2e'));
  const list = await adminJson<{ id: string; activated_at: string | null }>('lists', 'import', '--format', 'cpr', '--file', '/lists/robinson.txt', '--activate');
  if (list.activated_at === null) throw new Error(`the imported list ${list.id} was not activated`);
  d = { baseUrl: stack.baseUrl, liveKey: live.key, testKey: test.key, listVersionId: list.id, receiver };
}

afterAll(async () => {
  await stack?.down();
  await receiver?.close();
}, 120_000);

async function post(path: string, body: unknown): Promise<{ status: number; json: Json }> {
  const response = await fetch(new URL(path, d.baseUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

/** Members of the matchers' consumer group and the checks.rows partitions each holds. */
/** Partitions of `topic` per member of consumer group `group`, as the broker assigned them. */
async function groupAssignments(group: string, topic: string): Promise<number[][]> {
  const admin = new Kafka({ clientId: 'compose-e2e', brokers: [stack!.kafkaBrokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([group]);
    return groups[0].members.map((m) => AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment[topic] ?? []);
  } finally {
    await admin.disconnect();
  }
}

const matcherAssignments = () => groupAssignments('matcher', 'checks.rows');

describe('docker compose: the distributed deployment in containers', () => {
  it('the API container answers with the list version the admin container activated', async () => {
    ready();
    // The API picks up an activated version within LIST_REFRESH_SECONDS (1 s in the CI override).
    const deadline = Date.now() + 60_000;
    let answer: { status: number; json: Json };
    do {
      answer = await post('/v2/checks', { people: [{ name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense' }] });
    } while (answer.json.list_version?.id !== d.listVersionId && Date.now() < deadline && (await new Promise((r) => setTimeout(r, 250)), true));
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.list_version.id).toBe(d.listVersionId);
  }, 90_000);

  it('runs a 100,000-row job on two matchers and two projections; a matcher and a projection killed mid-job: exactly N results, one callback', async () => {
    ready();
    const rows = mixedRows(ROWS);
    const created = await post('/v2/check-jobs', { callback_url: receiver.url('compose-job'), people: rows.map((r) => r.person) });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    const id = created.json.id as string;

    // Both matchers hold partitions of checks.rows while the job runs.
    const assignments = await waitFor(async () => {
      const held = await matcherAssignments();
      return held.length === 2 && held.every((partitions) => partitions.length > 0) ? held : null;
    }, 120_000, 'two matchers holding checks.rows partitions');
    expect(assignments.flat().toSorted((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    // Two projection replicas share the jobs by checks.results partition (docs/architecture.md "Projection").
    const projections = await waitFor(async () => {
      const held = await groupAssignments('projection', 'checks.results');
      return held.length === 2 && held.every((partitions) => partitions.length > 0) ? held : null;
    }, 120_000, 'two projections holding checks.results partitions');
    expect(projections.flat().toSorted((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));

    // Mid-job: rows counted, not all of them.
    const running = await waitForJob(d, id, (j) => j.processed_count > 0 || isFinished(j), 300_000);
    expect(running.status, 'the job finished before the kill; it must be mid-job').toBe('running');
    const [matcher] = await stack!.containers('matcher');
    const [projection] = await stack!.containers('projection');
    await stack!.docker('kill', matcher);
    await stack!.docker('kill', projection);
    const stopped = JSON.parse(await stack!.docker('inspect', matcher, projection)) as Array<{ State: { Running: boolean } }>;
    expect(stopped.map((c) => c.State.Running)).toEqual([false, false]);
    // The projection comes back (as an operator or an orchestrator would start it); the killed
    // matcher stays dead: its partitions move to the other one.
    await stack!.compose('start', 'projection');

    const done = await waitForJob(d, id, isFinished, 600_000);
    expect(done).toMatchObject({ status: 'done', row_count: ROWS, processed_count: ROWS });
    expect(done.allowed_count + done.blocked_count + done.manual_count).toBe(ROWS);
    const { results } = await allResults(d, id);
    expect(results).toHaveLength(ROWS);
    expect(results.map((r) => r.id)).toEqual(rows.map((r) => r.person.id));
    await expectOneCallback(d, 'compose-job', done, 'check_job.completed');
  }, 1_200_000);

  it('takes an uploaded spreadsheet (exceljs) to done through the API container', async () => {
    ready();
    const { rows } = uploadRows(300);
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Kunder').addRows(rows);
    const bytes = new Uint8Array(await workbook.xlsx.writeBuffer());
    const created = await upload(d, { bytes, filename: 'kunder.xlsx' });
    expect(created.status, JSON.stringify(created.json)).toBe(202);
    expect(created.json).toMatchObject({ status: 'draft', row_count: 300 });
    const started = await post(`/v2/check-jobs/${created.json.id}/start`, {});
    expect(started.status, JSON.stringify(started.json)).toBe(202);
    const job = await waitForJob(d, created.json.id, isFinished, 300_000);
    expect(job).toMatchObject({ status: 'done', row_count: 300, processed_count: 300 });
    const { results } = await allResults(d, job.id);
    expect(results.map((r) => r.id)).toEqual(rows.slice(1).map((r) => r[0]));
  }, 400_000);

  it('leaves nothing behind after down: no container of the stack, no network but host/none, no bridge', async () => {
    const project = ready().project;
    await stack!.down();
    stack = undefined;
    expect(await docker('ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Names}}')).toBe('');
    expect((await docker('volume', 'ls', '--filter', `label=com.docker.compose.project=${project}`, '--format', '{{.Name}}'))).toBe('');
    expect((await docker('network', 'ls', '--format', '{{.Name}}')).split('\n').filter(Boolean).toSorted()).toEqual(['host', 'none']);
    expect(bridgeInterfaces()).toEqual([]);
  }, 180_000);
});

async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
