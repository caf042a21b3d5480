/**
 * A 1,000,000-row check job end to end (POST /v2/check-jobs → status done) on both ways to run:
 * the embedded default (API + matcher + projection in this process, node:sqlite) and the
 * distributed deployment (real Kafka and ClickHouse from infra/local, the API in this process, two
 * matcher processes and a projection process), plus the time of a 10,000-row results page.
 *
 * Stages are timed from the outside: intake (POST until 202: the body read, validated, spooled and
 * every row chunk on the log), matching (until the last ResultsChunk of the job is on the log,
 * seen by a watcher group counting messages without decoding them) and projection (until GET says
 * done: results stored, counts exact, preview, callback state). The matchers are warmed up by a
 * small job first, so the list index build is not in the figures (it is in the domain bench).
 *
 * The floor: what the job cannot go below on this machine in this run, whatever the deployment:
 * JSON.parse of the same body + one compact result line per row + one fsync (floor.ts), measured
 * right after each deployment's job. Goals are ratios to it (embedded ≤ 4×, Kafka + ClickHouse
 * ≤ 6×); absolute seconds are information. Results are then paged whole with limit 10,000, each
 * page timed from its request to its last byte received by a lean keep-alive node:http client
 * (page-client.ts; decoding and parsing the bytes are the client's work, done after the timer, as
 * http-load.ts does for the sync bench): the first page against JSON.stringify of its own
 * results, all pages against the floor, and a SHA-256 of every result (canonical JSON) that
 * must not change when only speed changes; then the CSV result file is downloaded once, against
 * the floor (goal ≤ 1×). CPU seconds per 1,000,000 rows by stage: this process (all threads) and each service process, from /proc.
 * Run alone: `npm exec -- node test/bench/pipeline.bench.ts`; PIPELINE_BENCH_ONLY=embedded|distributed
 * runs one half, PIPELINE_BENCH_ROWS a smaller job (profiling), PIPELINE_BENCH_MATCHER_BATCH and
 * PIPELINE_BENCH_PROJECTION_BATCH other batch sizes (embedded; 8 row chunks per matcher batch
 * measured the same as the default 4).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { topicNames } from '../../services/pipeline/events.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { startDistributed, startEmbedded } from '../support/deployments.ts';
import { jobFloor } from './floor.ts';
import { pageClient, textOf } from './page-client.ts';
import { ratioMetric, relativeTo, timed, type Reference } from './reference.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';

/** PIPELINE_BENCH_ROWS: a smaller job for profiling runs; the report uses 1,000,000. */
export const ROWS = Number(process.env.PIPELINE_BENCH_ROWS ?? 1_000_000);
export const LIST_ENTRIES = 200_000;
export const CHUNK_ROWS = 2000;
export const SEED = 11;
const MEMBER_SHARE = 0.2;
/**
 * How long the job may take before the bench gives up (PIPELINE_BENCH_DONE_MINUTES, default 40): a
 * slow run on a loaded machine is still a measurement (its ratios hold), only a stuck one is not.
 */
const DONE_TIMEOUT_MS = Number(process.env.PIPELINE_BENCH_DONE_MINUTES ?? 40) * 60_000;
/** The goals: the job end to end within this multiple of its floor, per deployment. */
const EMBEDDED_GOAL = 4;
const DISTRIBUTED_GOAL = 6;

/** The JSON body of ROWS people: a fifth of them list members, the rest synthetic people. */
export function jobBody(): Buffer {
  const parts: string[] = [];
  let id = 0;
  const members = Math.round(ROWS * MEMBER_SHARE);
  const memberPieces: string[] = [];
  for (const entry of generateListEntries(members, SEED)) {
    const { previous: _previous, ...person } = entry;
    memberPieces.push(JSON.stringify({ id: `r${id++}`, ...person }));
  }
  parts.push(memberPieces.join(','));
  for (let batch = 0; id < ROWS; batch++) {
    const people = generatePeople(Math.min(100_000, ROWS - id), `${SEED}-${batch}`);
    parts.push(people.map((p) => JSON.stringify({ ...p, id: `r${id++}` })).join(','));
  }
  return Buffer.from(`{"people":[${parts.join(',')}]}`);
}

interface Deployment {
  baseUrl: string;
  liveKey: string;
  platform: Platform;
  stop(): Promise<void>;
}

export async function call(d: Deployment, method: string, path: string, body?: Buffer | string): Promise<{ status: number; json: any }> {
  const response = await fetch(new URL(path, d.baseUrl), {
    method,
    headers: { Authorization: `Bearer ${d.liveKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

export async function waitDone(d: Deployment, id: string, timeoutMs: number): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await call(d, 'GET', `/v2/check-jobs/${id}`);
    if (json.status === 'done' || json.status === 'failed') return json;
    if (Date.now() > end) throw new Error(`job not done in ${timeoutMs} ms: ${json.status}, ${json.processed_count} of ${ROWS} rows processed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const WATCH_DEADLINE_MS = 10 * 60_000;

/** Counts ResultsChunk messages per job key as they reach the log, noting when each count was reached. */
export async function watchResults(platform: Platform) {
  const counts = new Map<string, number>();
  const waiters: Array<{ key: string; chunks: number; resolve: (at: number) => void }> = [];
  const subscription = await platform.log.subscribe({
    group: `${platform.topicPrefix}bench-watch-${Date.now()}`,
    topics: [topicNames(platform.topicPrefix).checksResults],
    startAt: 'latest',
    maxBatchSize: 500,
    async handleBatch(batch) {
      const at = performance.now();
      for (const m of batch.messages) if (m.key) counts.set(m.key, (counts.get(m.key) ?? 0) + 1);
      for (const w of waiters.splice(0)) {
        if ((counts.get(w.key) ?? 0) >= w.chunks) w.resolve(at);
        else waiters.push(w);
      }
    },
  });
  return {
    /** When the job's `chunks`-th results message was seen (at-least-once: duplicates count too). */
    reached: (key: string, chunks: number) => new Promise<number>((resolve, reject) => {
      if ((counts.get(key) ?? 0) >= chunks) return resolve(performance.now());
      // A bench must end: a run that never sees its last chunk fails with the count it saw.
      const deadline = setTimeout(() => reject(new Error(`saw ${counts.get(key) ?? 0} of ${chunks} results chunks in ${WATCH_DEADLINE_MS / 1000} s`)), WATCH_DEADLINE_MS);
      waiters.push({ key, chunks, resolve: (at) => { clearTimeout(deadline); resolve(at); } });
    }),
    close: () => subscription.close(),
  };
}

/** CPU seconds (user + system) of a child process so far, from /proc (Linux). */
export function childCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds per part of the deployment: this process (all its threads) and each service process. */
function cpuSnapshot(processes: Array<{ name: string; pid: number }>): Map<string, number> {
  const usage = process.cpuUsage();
  const snapshot = new Map<string, number>([['bench process (API, embedded: all threads)', (usage.user + usage.system) / 1e6]]);
  for (const p of processes) snapshot.set(p.name, (snapshot.get(p.name) ?? 0) + childCpuSeconds(p.pid));
  return snapshot;
}

function cpuBetween(before: Map<string, number>, after: Map<string, number>): string {
  const perMillion = 1_000_000 / ROWS;
  return [...after].map(([name, s]) => `${name} ${round((s - (before.get(name) ?? 0)) * perMillion)}`).join(', ');
}

/** Keys in sorted order, so the hash says "the same answers" whatever order a serializer writes fields in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface PagedResults {
  /** The first six pages' request times, ms. */
  firstPagesMs: number[];
  /** JSON.stringify of each of those pages' results (the same objects), ms. */
  stringifyMs: number[];
  /** Every page's request time summed (the client's parse and hashing not included), ms. */
  allPagesMs: number;
  rows: number;
  /** SHA-256 of the results in row order, each as canonical JSON: the same answers give the same hash. */
  sha256: string;
}

/**
 * Pages through every result with limit 10,000, timing each request alone: from the request to the
 * last byte received (page-client.ts, one keep-alive connection); the bytes are decoded, parsed
 * and hashed after the timer, as the client's work, not the service's.
 */
export async function pageAll(d: Deployment, id: string): Promise<PagedResults> {
  const firstPagesMs: number[] = [];
  const stringifyMs: number[] = [];
  const hash = createHash('sha256');
  const client = pageClient();
  let allPagesMs = 0;
  let rows = 0;
  let cursor: string | null = null;
  try {
    for (let page = 0; ; page++) {
      const url = new URL(`/v2/check-jobs/${id}/results?limit=10000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, d.baseUrl);
      const answer = await client.get(url, { Authorization: `Bearer ${d.liveKey}` });
      const ms = answer.ms;
      if (answer.status !== 200) throw new Error(`results page ${page}: ${answer.status}`);
      allPagesMs += ms;
      const json = JSON.parse(textOf(answer)) as { results: unknown[]; next_cursor: string | null };
      if (page < 6) {
        firstPagesMs.push(ms);
        stringifyMs.push((await timed(() => JSON.stringify(json.results))).ms);
      }
      for (const result of json.results) hash.update(`${canonicalJson(result)}\n`);
      rows += json.results.length;
      if (json.next_cursor === null) break;
      cursor = json.next_cursor;
    }
  } finally {
    client.close();
  }
  if (rows !== ROWS) throw new Error(`paging returned ${rows} results, not ${ROWS}`);
  return { firstPagesMs, stringifyMs, allPagesMs, rows, sha256: hash.digest('hex') };
}

/**
 * The job's CSV result file (GET /v2/check-jobs/{id}/file, request to its last byte), as a
 * customer downloads it; its lines are counted (the header and one per row) so a short file fails.
 */
export async function downloadFile(d: Deployment, id: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(new URL(`/v2/check-jobs/${id}/file?format=csv`, d.baseUrl), { headers: { Authorization: `Bearer ${d.liveKey}` } });
  if (response.status !== 200) throw new Error(`result file: ${response.status} ${await response.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
  }
  const ms = performance.now() - started;
  if (lines !== ROWS + 1) throw new Error(`the result file has ${lines - 1} rows, not ${ROWS}`);
  return { ms, bytes };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * `watch`: time the matching stage with a watcher group on checks.results. Only for the
 * distributed run: in the embedded one the watcher would share the one thread and read every
 * result again, and there the consumers keep up with the intake anyway (done ≈ 202).
 */
async function measure(
  label: string, d: Deployment, body: Buffer, watch: boolean, processes: Array<{ name: string; pid: number }>, goal: number,
): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const warm = await call(d, 'POST', '/v2/check-jobs', JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }));
  await waitDone(d, warm.json.id, 300_000);
  const watcher = watch ? await watchResults(d.platform) : null;
  try {
    const cpuAtStart = cpuSnapshot(processes);
    const started = performance.now();
    const created = await call(d, 'POST', '/v2/check-jobs', body);
    const accepted = performance.now();
    const cpuAtAccepted = cpuSnapshot(processes);
    if (created.status !== 202) throw new Error(`POST answered ${created.status}: ${JSON.stringify(created.json)}`);
    const matched = watcher ? await watcher.reached(created.json.id, Math.ceil(ROWS / CHUNK_ROWS)) : null;
    const job = await waitDone(d, created.json.id, DONE_TIMEOUT_MS);
    const done = performance.now();
    const cpuAtDone = cpuSnapshot(processes);
    if (job.status !== 'done' || job.processed_count !== ROWS) throw new Error(`job ended ${job.status} with ${job.processed_count} rows`);
    const paged = await pageAll(d, job.id);
    const file = await downloadFile(d, job.id);
    const floorTimes = jobFloor(body, ROWS);
    const floor: Reference = { name: 'the floor', value: round3(floorTimes.totalMs / 1000), unit: 's' };
    const total = (done - started) / 1000;
    const rate = (ms: number) => Math.round(ROWS / (ms / 1000));
    const floorRate: Reference = { name: 'the floor', value: rate(floor.value * 1000), unit: 'rows/s' };
    const seconds = (name: string, ms: number, note?: string): BenchMetric =>
      relativeTo({ name, value: round(ms / 1000), unit: 's', ...(note ? { note } : {}) }, floor);
    const pageMs = median(paged.firstPagesMs);
    const stringify: Reference = { name: 'JSON.stringify of the same results', value: round3(median(paged.stringifyMs)), unit: 'ms' };
    const rowsText = ROWS.toLocaleString('en');
    return {
      metrics: [
        ratioMetric(`${label}: ${rowsText}-row job, submit → done, as a multiple of its floor`, round(total), floor, { op: '<=', value: goal }),
        seconds(`${label}: ${rowsText}-row job, submit → done (information)`, done - started),
        {
          name: `${label}: floor = JSON.parse of the body + one compact result line per row + one fsync`, value: floor.value, unit: 's',
          note: `parse ${round3(floorTimes.parseMs / 1000)} s + lines and fsync ${round3(floorTimes.writeMs / 1000)} s, measured right after the job`,
        },
        relativeTo({ name: `${label}: end-to-end throughput`, value: rate(done - started), unit: 'rows/s' }, floorRate),
        seconds(`${label}: intake (POST → 202, rows on the log)`, accepted - started, `${rate(accepted - started).toLocaleString('en')} rows/s`),
        ...(matched === null
          ? [seconds(`${label}: done after the 202`, done - accepted)]
          : [
            seconds(`${label}: matching done (last ResultsChunk on the log)`, matched - started, `${round((matched - accepted) / 1000)} s after the 202`),
            seconds(`${label}: projection done after the last result`, done - matched),
          ]),
        ratioMetric(`${label}: 10,000-row results page (median of 6), as a multiple of JSON.stringify of its results`, round3(pageMs), stringify, { op: '<=', value: 1.5 }),
        { name: `${label}: 10,000-row results page (median of 6, information)`, value: Math.round(pageMs), unit: 'ms', note: `max ${Math.round(Math.max(...paged.firstPagesMs))} ms; JSON.stringify of the same results ${stringify.value} ms` },
        ratioMetric(`${label}: all ${rowsText} results paged with limit 10,000, as a multiple of the floor`, round(paged.allPagesMs / 1000), floor, { op: '<=', value: 1.5 }),
        seconds(`${label}: all ${rowsText} results paged with limit 10,000 (information)`, paged.allPagesMs, 'request → last byte received, summed; the client\'s decoding, parse and hash not included'),
        ratioMetric(`${label}: ${rowsText}-row CSV result file, as a multiple of the floor`, round3(file.ms / 1000), floor, { op: '<=', value: 1 }),
        seconds(`${label}: ${rowsText}-row CSV result file (information)`, file.ms, `GET …/file?format=csv to its last byte, ${Math.round(file.bytes / 2 ** 20)} MB`),
        {
          name: `${label}: CPU seconds per 1,000,000 rows, intake (POST → 202)`, value: round((sumOf(cpuAtAccepted) - sumOf(cpuAtStart)) * (1_000_000 / ROWS)), unit: 'CPU s',
          note: cpuBetween(cpuAtStart, cpuAtAccepted),
        },
        {
          name: `${label}: CPU seconds per 1,000,000 rows, 202 → done (matching, projection)`, value: round((sumOf(cpuAtDone) - sumOf(cpuAtAccepted)) * (1_000_000 / ROWS)), unit: 'CPU s',
          note: cpuBetween(cpuAtAccepted, cpuAtDone),
        },
      ],
      notes: [
        `${label}: blocked ${job.blocked_count}, manual ${job.manual_count}, allowed ${job.allowed_count}; levels ${JSON.stringify(job.level_counts)}`,
        `${label}: results SHA-256 (canonical JSON per result, row order) ${paged.sha256}`,
      ],
    };
  } finally {
    await watcher?.close();
  }
}

function sumOf(snapshot: Map<string, number>): number {
  let total = 0;
  for (const s of snapshot.values()) total += s;
  return total;
}

const bench: Bench = async (): Promise<BenchSection> => {
  const only = process.env.PIPELINE_BENCH_ONLY;
  const listEntries = [...generateListEntries(LIST_ENTRIES, SEED)];
  const body = jobBody();
  const metrics: BenchMetric[] = [];
  const notes = [
    `${ROWS.toLocaleString('en')} rows (${Math.round(body.length / 1024 / 1024)} MB of JSON, ${MEMBER_SHARE * 100}% list members) against a synthetic list of ${LIST_ENTRIES.toLocaleString('en')} entries; ${CHUNK_ROWS} rows per checks.rows message`,
    'matchers warmed up by a one-row job first (index built); stage times are from the start of the POST',
    `floor (store-independent): JSON.parse of the same body + one compact result line per row written to a local file + one fsync, measured right after each deployment's job (the best of 3 passes); goals ≤ ${EMBEDDED_GOAL}× (embedded) and ≤ ${DISTRIBUTED_GOAL}× (Kafka + ClickHouse) the floor, absolute seconds as information`,
    'the CSV result file (GET …/file?format=csv, to its last byte) downloaded once after the pages; goal ≤ 1× the floor',
    'results paged whole with limit 10,000 after each job; the SHA-256 of every result (canonical JSON, row order) must match between deployments and across commits that change only speed',
    'CPU seconds per 1,000,000 rows: this process (the API; embedded also the matcher and projection threads) and each service process, from process.cpuUsage and /proc; Kafka and ClickHouse themselves not included',
    'embedded: as npm start runs it, the API on the main thread, matcher and projection in worker threads',
  ];
  const env: Record<string, string> = { PROJECTION_COUNT_INTERVAL_MS: '1000' };
  // PIPELINE_BENCH_CHILD_NODE_OPTIONS: e.g. --cpu-prof for the service processes (profiling runs).
  if (process.env.PIPELINE_BENCH_CHILD_NODE_OPTIONS) env.NODE_OPTIONS = process.env.PIPELINE_BENCH_CHILD_NODE_OPTIONS;
  if (only !== 'distributed') {
    const overrides = {
      ...(process.env.PIPELINE_BENCH_MATCHER_BATCH ? { matcherBatchChunks: Number(process.env.PIPELINE_BENCH_MATCHER_BATCH) } : {}),
      ...(process.env.PIPELINE_BENCH_PROJECTION_BATCH ? { projectionBatchSize: Number(process.env.PIPELINE_BENCH_PROJECTION_BATCH) } : {}),
    };
    const embedded = await startEmbedded(null, { listEntries, jobChunkRows: CHUNK_ROWS, env, workers: true, overrides });
    try {
      const m = await measure('embedded', embedded, body, false, [], EMBEDDED_GOAL);
      metrics.push(...m.metrics);
      notes.push(...m.notes);
    } finally {
      await embedded.stop();
    }
  }
  if (only !== 'embedded') {
    const distributed = await startDistributed(null, { matchers: 1, listEntries, jobChunkRows: CHUNK_ROWS, env });
    try {
      const services = distributed.processes.map((p) => ({ name: `${p.name} process`, pid: p.child.pid ?? 0 }));
      const m = await measure('Kafka + ClickHouse', distributed, body, true, services, DISTRIBUTED_GOAL);
      metrics.push(...m.metrics);
      notes.push(...m.notes, 'distributed: API in the bench process, one matcher process and one projection process (npm run service), Kafka and ClickHouse 25.8 (chDB behind its HTTP front) on the same 2 cores');
    } finally {
      await distributed.stop();
    }
  }
  return { title: `Pipeline: ${ROWS.toLocaleString('en')}-row check job end to end`, metrics, notes };
};

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
