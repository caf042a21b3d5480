/**
 * The intake of pipeline.bench.ts alone, for profiling and A/B runs of the distributed intake
 * (test/bench/README.md "The intake on Kafka alone"): the bench's job (PIPELINE_BENCH_ROWS rows,
 * default 1,000,000, the same body and 200,000-entry list) on Kafka + ClickHouse with one matcher
 * and one projection process, INTAKE_DRIVER_ROUNDS times (default 2) on one deployment. Per round
 * one JSON line: POST → 202, the last ResultsChunk on the log, done, each stage's CPU seconds per
 * process (this process is the API), of the local broker and the ClickHouse front, how busy the
 * machine's cores were (/proc/stat) and the load average. INTAKE_DRIVER_HASH=1 also pages every
 * result of the last round and prints the bench's results SHA-256 (it must not change).
 *
 * Not a bench of its own (no goal, no report). Run: `node test/bench/intake-driver.ts` (add
 * --cpu-prof to profile the API, which runs in this process; INTAKE_DRIVER_CHILD_NODE_OPTIONS for
 * the service processes). Each round also measures the bench's floor (floor.ts) right after its job
 * and gives the intake and the whole job as multiples of it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { generateListEntries } from '../../services/synthetic/index.ts';
import { startDistributed } from '../support/deployments.ts';
import { servers } from '../support/servers.ts';
import { jobFloor } from './floor.ts';
import { call, CHUNK_ROWS, childCpuSeconds, jobBody, LIST_ENTRIES, pageAll, ROWS, SEED, waitDone, watchResults } from './pipeline.bench.ts';

const ROUNDS = Number(process.env.INTAKE_DRIVER_ROUNDS ?? 2);
const HASH = process.env.INTAKE_DRIVER_HASH === '1';

/** The pid of the first process whose command line holds every one of `needles` (the local broker, the ClickHouse front), else null. */
function pidOf(...needles: string[]): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (needles.every((needle) => command.includes(needle))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/** Busy and total jiffies of all cores so far. */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = fields.map(Number);
  const idle = n[3] + n[4];
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

const listEntries = [...generateListEntries(LIST_ENTRIES, SEED)];
const body = jobBody();
const env: Record<string, string> = { PROJECTION_COUNT_INTERVAL_MS: '1000' };
// INTAKE_DRIVER_CHILD_NODE_OPTIONS: e.g. `--cpu-prof --cpu-prof-dir=…` for the matcher and projection processes.
if (process.env.INTAKE_DRIVER_CHILD_NODE_OPTIONS) env.NODE_OPTIONS = process.env.INTAKE_DRIVER_CHILD_NODE_OPTIONS;
const d = await startDistributed(null, { matchers: 1, listEntries, jobChunkRows: CHUNK_ROWS, env });
try {
  const parts = [
    ...d.processes.map((p) => ({ name: p.name, pid: p.child.pid ?? 0 })),
    ...[['kafka', pidOf('kafka.Kafka')], ['clickhouse', pidOf('chdb/front.py', `--port\u0000${new URL(servers.clickhouseUrl).port}\u0000`)]].filter(([, pid]) => pid !== null).map(([name, pid]) => ({ name: name as string, pid: pid as number })),
  ];
  const snapshot = () => {
    const usage = process.cpuUsage();
    const cpu: Record<string, number> = { api: (usage.user + usage.system) / 1e6 };
    for (const p of parts) cpu[p.name] = (cpu[p.name] ?? 0) + childCpuSeconds(p.pid);
    return { at: performance.now(), hr: process.hrtime.bigint() / 1000n, cpu, ticks: machineTicks() };
  };
  const between = (a: ReturnType<typeof snapshot>, b: ReturnType<typeof snapshot>) => ({
    s: round((b.at - a.at) / 1000),
    cpu: Object.fromEntries(Object.entries(b.cpu).map(([k, v]) => [k, round(v - a.cpu[k])])),
    cores_busy: round((2 * (b.ticks.busy - a.ticks.busy)) / (b.ticks.total - a.ticks.total)),
  });
  let lastId = '';
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    const warm = await call(d, 'POST', '/v2/check-jobs', JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }));
    await waitDone(d, warm.json.id, 300_000);
    const watcher = await watchResults(d.platform);
    try {
      const load = loadavg()[0];
      const start = snapshot();
      const created = await call(d, 'POST', '/v2/check-jobs', body);
      const accepted = snapshot();
      if (created.status !== 202) throw new Error(`POST answered ${created.status}`);
      await watcher.reached(created.json.id, Math.ceil(ROWS / CHUNK_ROWS));
      const matched = snapshot();
      const job = await waitDone(d, created.json.id, 40 * 60_000);
      const done = snapshot();
      if (job.status !== 'done' || job.processed_count !== ROWS) throw new Error(`job ended ${job.status} with ${job.processed_count} rows`);
      lastId = job.id;
      // The bench's floor, measured right after the job: the same-run reference the figures are judged by.
      const floorS = jobFloor(body, ROWS).totalMs / 1000;
      console.log(JSON.stringify({
        floor_s: round(floorS), intake_x_floor: round((accepted.at - start.at) / 1000 / floorS), total_x_floor: round((done.at - start.at) / 1000 / floorS),
        round: round_, rows: ROWS, load_before: round(load), load_after: round(loadavg()[0]),
        intake: between(start, accepted), matching_after_202: between(accepted, matched), projection_after_matching: between(matched, done),
        total_s: round((done.at - start.at) / 1000),
        // The monotonic clock in µs (CPU profiles' timestamps): to cut a --cpu-prof profile to the intake.
        intake_us: [String(start.hr), String(accepted.hr)],
      }));
    } finally {
      await watcher.close();
    }
  }
  if (HASH) console.log(JSON.stringify({ results_sha256: (await pageAll(d, lastId)).sha256 }));
} finally {
  await d.stop();
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
