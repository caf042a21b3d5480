/**
 * Monitors on Kafka + ClickHouse (docs/monitors.md): re-checking 1,000,000 monitored contacts after
 * a list version is activated, timed to the re-check's callback, and the monitor process's memory.
 * Each figure is also given as a ratio to something measured in the same run:
 * - the re-check (activation → callback) against a plain 1,000,000-row check job of the same
 *   people (POST → callback), on the same deployment just before;
 * - the monitor process's peak RSS (VmHWM) against its RSS when idle, and against the peak of the
 *   projection process of the same deployment.
 *
 * The deployment: the API in this process, two matcher processes, one projection process and the
 * monitor process (`npm run service -- monitor`), real Kafka and ClickHouse 25.8 from infra/local.
 * Run alone: `npm exec -- node test/bench/monitors.bench.ts`; MONITORS_BENCH_ROWS for a smaller run,
 * MONITORS_BENCH_WAIT_MINUTES for a longer wait per stage on a loaded machine.
 */
import { readFileSync } from 'node:fs';
import type { ListEntry, PersonInput } from '../../services/domain/types.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startDistributed, type DistributedDeployment, type ServiceProcess } from '../support/deployments.ts';
import { seedListVersion } from '../support/pipeline.ts';
import { relativeTo, type Reference } from './reference.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';

const ROWS = Number(process.env.MONITORS_BENCH_ROWS ?? 1_000_000);
const LIST_ENTRIES = 200_000;
const SEED = 23;
const MEMBER_SHARE = 0.2;
/** Members of the new version that were not on the old one, and the other way round. */
const CHURN = 0.01;
/**
 * How long each stage may take before the bench gives up (MONITORS_BENCH_WAIT_MINUTES, default
 * 15): on a loaded machine a slow run is still a measurement (its ratios hold), a stuck one is not.
 */
const WAIT_MS = Number(process.env.MONITORS_BENCH_WAIT_MINUTES ?? 15) * 60_000;

type Json = Record<string, any>;

function contacts(members: ListEntry[]): PersonInput[] {
  const people: PersonInput[] = members.map(({ previous: _previous, ...entry }, i) => ({ id: `m${i}`, ...entry }));
  for (let batch = 0; people.length < ROWS; batch++) {
    for (const p of generatePeople(Math.min(100_000, ROWS - people.length), `${SEED}-${batch}`)) people.push({ ...p, id: `p${people.length}` });
  }
  return people;
}

async function call(d: DistributedDeployment, method: string, path: string, body?: string): Promise<{ status: number; json: Json }> {
  const response = await fetch(new URL(path, d.baseUrl), {
    method, headers: { Authorization: `Bearer ${d.liveKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body,
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : {} };
}

/** When the receiver got the 2xx callback of `jobId` (polls its record; it is in this process). */
async function callbackAt(d: DistributedDeployment, receiver: CallbackReceiver, path: string, match: (body: Json) => boolean): Promise<{ at: number; body: Json }> {
  const end = Date.now() + WAIT_MS;
  let traced = Date.now();
  for (;;) {
    const hit = receiver.received(path).find((r) => r.answered < 300 && match(JSON.parse(r.body)));
    if (hit) return { at: hit.at, body: JSON.parse(hit.body) };
    if (Date.now() > end) throw new Error(`no callback on ${path} within ${WAIT_MS} ms`);
    if (Date.now() - traced > 60_000) {
      traced = Date.now();
      await traceRecentJobs(d);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A minute's trace on stderr of where the newest jobs stand (ids, states and counts only), so a
 *  run that gives up says which stage it was stuck in. */
async function traceRecentJobs(d: DistributedDeployment): Promise<void> {
  const recent = await call(d, 'GET', '/v2/check-jobs?limit=3');
  const jobs = (recent.json.data ?? []) as Json[];
  const line = jobs.map((j) => `${j.id} ${j.source} ${j.status} ${JSON.stringify(j.progress ?? j.counts ?? {})}`).join(' | ');
  process.stderr.write(`[monitors.bench ${new Date().toISOString()}] ${line}\n`);
}

/** Resident and peak resident memory of a process (Linux /proc), in MB. */
function memoryOf(p: ServiceProcess): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${p.child.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

const bench: Bench = async (): Promise<BenchSection> => {
  const all = [...generateListEntries(LIST_ENTRIES, SEED)];
  const memberCount = Math.round(ROWS * MEMBER_SHARE);
  const members = all.slice(0, Math.min(memberCount, all.length));
  const people = contacts(members);
  const churn = Math.round(members.length * CHURN);
  // Version N: the list without the last `churn` members; N+1: without the first `churn` instead
  // (so `churn` contacts are released and `churn` newly blocked; neighbours at their addresses
  // may change level too).
  const versionN = [...all.slice(0, members.length - churn), ...all.slice(members.length)];
  const versionN1 = all.slice(churn);
  const receiver = await startCallbackReceiver();
  const d = await startDistributed(receiver, { matchers: 2, listEntries: versionN, jobChunkRows: 2000, env: { PROJECTION_COUNT_INTERVAL_MS: '1000' } });
  const metrics: BenchMetric[] = [];
  const notes: string[] = [];
  try {
    const monitor = await d.spawnService('monitor', { MONITOR_INTERVAL_MS: '500' });
    const projection = d.processes.find((p) => p.name === 'projection') as ServiceProcess;
    const body = JSON.stringify({ people, callback_url: receiver.url('job') });

    // The reference: the same people as a plain check job, POST → callback.
    const warm = await call(d, 'POST', '/v2/check-jobs', JSON.stringify({ people: people.slice(0, 1) }));
    if (warm.status !== 202) throw new Error(`warm-up job: ${warm.status}`);
    const jobStarted = Date.now();
    const job = await call(d, 'POST', '/v2/check-jobs', body);
    if (job.status !== 202) throw new Error(`job: ${job.status} ${JSON.stringify(job.json)}`);
    const jobDone = await callbackAt(d, receiver, 'job', (b) => b.id === job.json.id);
    const jobSeconds = (jobDone.at - jobStarted) / 1000;
    process.stderr.write(`[monitors.bench] plain job: ${jobSeconds} s\n`);
    const idle = memoryOf(monitor);

    // The monitor: created, then its first check against N.
    const createStarted = Date.now();
    const created = await call(d, 'POST', '/v2/monitors', JSON.stringify({ people, callback_url: receiver.url('monitor') }));
    if (created.status !== 201) throw new Error(`monitor: ${created.status} ${JSON.stringify(created.json)}`);
    const createSeconds = (Date.now() - createStarted) / 1000;
    const first = await callbackAt(d, receiver, 'monitor', (b) => b.monitor?.previous_job_id === null);
    const firstSeconds = (first.at - createStarted) / 1000;
    process.stderr.write(`[monitors.bench] monitor created in ${createSeconds} s, first check after ${firstSeconds} s\n`);

    // The re-check: N+1 activated → the callback of the monitor job that compares against the first.
    const version = await seedListVersion(d.platform.lists, versionN1);
    const activatedAt = Date.now();
    const recheck = await callbackAt(d, receiver, 'monitor', (b) => b.monitor?.previous_job_id === first.body.id);
    const recheckSeconds = (recheck.at - activatedAt) / 1000;
    if (recheck.body.list_version.id !== version.id || recheck.body.row_count !== ROWS) throw new Error('the re-check is not of the new version');
    const monitorMemory = memoryOf(monitor);
    const projectionMemory = memoryOf(projection);
    const changes = recheck.body.monitor.changes as Json;

    const plainJob: Reference = { name: `the plain ${ROWS.toLocaleString('en')}-row job (POST → callback)`, value: jobSeconds, unit: 's' };
    const idleRss: Reference = { name: 'the monitor process idle', value: idle.rss, unit: 'MB' };
    metrics.push(
      { name: `plain ${ROWS.toLocaleString('en')}-row check job of the same people: POST → callback (reference)`, value: round(jobSeconds), unit: 's' },
      relativeTo({ name: 'monitor created (POST /v2/monitors: contacts read, sealed, stored)', value: round(createSeconds), unit: 's' }, plainJob),
      relativeTo({ name: 'monitor first check: POST → callback', value: round(firstSeconds), unit: 's' }, plainJob),
      relativeTo({ name: `re-check of ${ROWS.toLocaleString('en')} contacts after an activation: activation → callback`, value: round(recheckSeconds), unit: 's' }, plainJob),
      relativeTo({ name: 'monitor process peak RSS (VmHWM) over the run', value: monitorMemory.peak, unit: 'MB', note: `projection process peak ${projectionMemory.peak} MB (${round(monitorMemory.peak / projectionMemory.peak)}×)` }, idleRss),
    );
    notes.push(
      `${ROWS.toLocaleString('en')} contacts (${Math.round(body.length / 1024 / 1024)} MB of JSON, ${members.length.toLocaleString('en')} list members), list of ${versionN.length.toLocaleString('en')} entries; the new version swaps ${churn.toLocaleString('en')} members out and ${churn.toLocaleString('en')} in`,
      `re-check changes: ${JSON.stringify(changes)} (expected newly_blocked ${churn}, released ${churn})`,
      'API in the bench process, two matcher processes, one projection and one monitor process (npm run service), Kafka and ClickHouse 25.8 (chDB behind its HTTP front) on the same 2 shared cores',
      'activation → callback includes the monitor service noticing the version (MONITOR_INTERVAL_MS 500), reading and opening the sealed contacts, the intake spooling and publishing, matching, the projection comparing each result with the last verdict and storing the run rows',
    );
  } finally {
    await d.stop();
    await receiver.close();
  }
  return { title: 'Monitors: re-checking 1,000,000 contacts after an activation (Kafka + ClickHouse)', metrics, notes };
};

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
