/**
 * The embedded job of pipeline.bench.ts alone, for profiling and A/B runs of what each thread of
 * `npm start` spends on it (test/bench/README.md "The embedded job by thread"): the bench's job
 * (PIPELINE_BENCH_ROWS rows, default 1,000,000, the same body and 200,000-entry list) on the
 * embedded deployment as npm start runs it (the API on this thread, matcher and projection in worker
 * threads), JOB_DRIVER_ROUNDS times (default 2) after the bench's one-row warm-up. Per round one
 * JSON line: POST → 202 and 202 → done, the CPU seconds per 1,000,000 rows of every thread of this
 * process from /proc/self/task, grouped by the thread's name (`MainThread` the API, `matcher`,
 * `projection`, `v8` V8's helper threads: parallel and concurrent GC, compilation), the bench's
 * floor (floor.ts) measured right after the job and the job as a multiple of it, the load average,
 * and the monotonic clock at the POST and at done in µs (the timestamps of a `--cpu-prof` profile).
 * JOB_DRIVER_HASH=1 also pages every result of the last round and prints the bench's results
 * SHA-256 (it must not change when only speed changes). EMBEDDED_MATCHER_THREADS sets the matcher
 * threads (services/platform/config.ts; each is a `matcher` thread, their CPU summed).
 * JOB_DRIVER_MATCHER_BATCH sets the chunks of a matcher batch (ServiceOverrides.matcherBatchChunks).
 *
 * Not a bench of its own (no goal, no report). Run: `node test/bench/job-driver.ts` (add
 * `--cpu-prof --cpu-prof-dir=…` for one profile per thread). For an A/B run, run the other side's
 * checkout of this driver alternately.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { generateListEntries } from '../../services/synthetic/index.ts';
import { startEmbedded } from '../support/deployments.ts';
import { jobFloor } from './floor.ts';
import { call, CHUNK_ROWS, jobBody, LIST_ENTRIES, pageAll, ROWS, SEED, waitDone } from './pipeline.bench.ts';

const ROUNDS = Number(process.env.JOB_DRIVER_ROUNDS ?? 2);
const HASH = process.env.JOB_DRIVER_HASH === '1';
/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds of every thread of this process so far, keyed by thread id and name. */
function threadSeconds(): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    seconds.set(`${tid} ${name}`, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND);
  }
  return seconds;
}

/** CPU seconds per 1,000,000 rows between two snapshots, by thread name (V8's helper threads together). */
function perMillionByName(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const byName: Record<string, number> = {};
  let total = 0;
  for (const [key, seconds] of after) {
    const name = key.slice(key.indexOf(' ') + 1);
    const group = name.startsWith('V8Worker') ? 'v8' : name;
    const spent = seconds - (before.get(key) ?? 0);
    if (spent <= 0) continue;
    byName[group] = (byName[group] ?? 0) + spent;
    total += spent;
  }
  const perMillion = 1_000_000 / ROWS;
  const out: Record<string, number> = {};
  for (const [name, seconds] of Object.entries(byName)) out[name] = round(seconds * perMillion);
  out.total = round(total * perMillion);
  return out;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const load = () => loadavg().map((n) => round(n));
const listEntries = [...generateListEntries(LIST_ENTRIES, SEED)];
const body = jobBody();
// EMBEDDED_MATCHER_THREADS from the environment, for A/B runs of the thread count (else the default).
const threads: Record<string, string> = process.env.EMBEDDED_MATCHER_THREADS ? { EMBEDDED_MATCHER_THREADS: process.env.EMBEDDED_MATCHER_THREADS } : {};
const overrides = process.env.JOB_DRIVER_MATCHER_BATCH ? { matcherBatchChunks: Number(process.env.JOB_DRIVER_MATCHER_BATCH) } : {};
const d = await startEmbedded(null, { listEntries, jobChunkRows: CHUNK_ROWS, env: { PROJECTION_COUNT_INTERVAL_MS: '1000', ...threads }, workers: true, overrides });
try {
  const warm = await call(d, 'POST', '/v2/check-jobs', JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }));
  await waitDone(d, warm.json.id, 300_000);
  for (let pass = 1; pass <= ROUNDS; pass++) {
    const loadBefore = load();
    const atStart = threadSeconds();
    const started = performance.now();
    const postedUs = process.hrtime.bigint() / 1000n;
    const created = await call(d, 'POST', '/v2/check-jobs', body);
    const accepted = performance.now();
    const atAccepted = threadSeconds();
    if (created.status !== 202) throw new Error(`POST answered ${created.status}: ${JSON.stringify(created.json)}`);
    const job = await waitDone(d, created.json.id, 40 * 60_000);
    const done = performance.now();
    const doneUs = process.hrtime.bigint() / 1000n;
    const atDone = threadSeconds();
    if (job.status !== 'done' || job.processed_count !== ROWS) throw new Error(`job ended ${job.status} with ${job.processed_count} rows`);
    const sha256 = HASH && pass === ROUNDS ? (await pageAll(d, job.id)).sha256 : null;
    const floorS = jobFloor(body, ROWS).totalMs / 1000;
    const seconds = (done - started) / 1000;
    console.log(JSON.stringify({
      round: pass, rows: ROWS, load_before: loadBefore, load_after: load(),
      job_s: round3(seconds), intake_s: round3((accepted - started) / 1000), after_202_s: round3((done - accepted) / 1000),
      floor_s: round3(floorS), job_floor_ratio: round(seconds / floorS),
      cpu_s_per_million: { intake: perMillionByName(atStart, atAccepted), after_202: perMillionByName(atAccepted, atDone), job: perMillionByName(atStart, atDone) },
      monotonic_us: { post: String(postedUs), done: String(doneUs) },
      ...(sha256 ? { results_sha256: sha256 } : {}),
    }));
  }
} finally {
  await d.stop();
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
