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
 * The floor (issue 12 item 5): what the job cannot go below on this machine in this run, measured
 * in the same process per deployment: JSON.parse of the same body (once per run) plus inserting
 * the same number of result rows into the deployment's store in bulk (JobStore.putResults,
 * FLOOR_INSERT_ROWS per call, rows cut from the job's own results). Every stage figure is also
 * given as a multiple of it; the goal is the job's time ≤ 4× its floor on both deployments, the
 * absolute seconds are information.
 * Run alone: `npm exec -- node test/bench/pipeline.bench.ts`; PIPELINE_BENCH_ONLY=embedded|distributed
 * runs one half, PIPELINE_BENCH_ROWS a smaller job (profiling), PIPELINE_BENCH_MATCHER_BATCH and
 * PIPELINE_BENCH_PROJECTION_BATCH other batch sizes (embedded; 8 row chunks per matcher batch
 * measured the same as the default 4).
 */
import { topicNames } from '../../services/pipeline/events.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import type { ResultRow } from '../../services/platform/store/jobs-port.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { startDistributed, startEmbedded } from '../support/deployments.ts';
import { ratioMetric, relativeTo, timed, type Reference } from './reference.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';

/** PIPELINE_BENCH_ROWS: a smaller job for profiling runs; the report uses 1,000,000. */
const ROWS = Number(process.env.PIPELINE_BENCH_ROWS ?? 1_000_000);
const LIST_ENTRIES = 200_000;
const CHUNK_ROWS = 2000;
const SEED = 11;
const MEMBER_SHARE = 0.2;
/** Result rows per putResults call when the floor is measured: one bulk insert of that size. */
const FLOOR_INSERT_ROWS = 20_000;
/**
 * How long the job may take before the bench gives up (PIPELINE_BENCH_DONE_MINUTES, default 40): a
 * slow run on a loaded machine is still a measurement (its ratios hold), only a stuck one is not.
 */
const DONE_TIMEOUT_MS = Number(process.env.PIPELINE_BENCH_DONE_MINUTES ?? 40) * 60_000;
/** The goal: the job end to end within this multiple of its floor, on both deployments. */
const FLOOR_GOAL = 4;

/** The JSON body of ROWS people: a fifth of them list members, the rest synthetic people. */
function jobBody(): Buffer {
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

async function call(d: Deployment, method: string, path: string, body?: Buffer | string): Promise<{ status: number; json: any }> {
  const response = await fetch(new URL(path, d.baseUrl), {
    method,
    headers: { Authorization: `Bearer ${d.liveKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

async function waitDone(d: Deployment, id: string, timeoutMs: number): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await call(d, 'GET', `/v2/check-jobs/${id}`);
    if (json.status === 'done' || json.status === 'failed') return json;
    if (Date.now() > end) throw new Error(`job not done in ${timeoutMs} ms: ${json.status}, ${json.processed_count} of ${ROWS} rows processed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Counts ResultsChunk messages per job key as they reach the log, noting when each count was reached. */
async function watchResults(platform: Platform) {
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
    reached: (key: string, chunks: number) => new Promise<number>((resolve) => {
      if ((counts.get(key) ?? 0) >= chunks) resolve(performance.now());
      else waiters.push({ key, chunks, resolve });
    }),
    close: () => subscription.close(),
  };
}

/** JSON.parse of the job's body (bytes to objects), in ms: the parsing half of the floor (uploads.bench.ts uses it too). */
export async function parseFloorMs(body: Buffer, rows = ROWS): Promise<number> {
  const { ms, result } = await timed(() => (JSON.parse(body.toString('utf8')) as { people: unknown[] }).people.length);
  if (result !== rows) throw new Error(`the body parsed to ${result} people`);
  return ms;
}

/**
 * Inserts ROWS result rows into the deployment's store in bulk, as a copy of the finished job
 * (`template`) under a new id, and removes them again; in ms. The rows are the job's own first
 * results, repeated with new row numbers, so they are as large as the real ones.
 */
export async function insertFloorMs(d: Pick<Deployment, 'platform'>, templateId: string, rows = ROWS): Promise<number> {
  const store = d.platform.jobs;
  const template = await store.getJobById(templateId);
  if (!template) throw new Error(`job ${templateId} is gone`);
  const sample = (await store.readResults(templateId, { limit: 10_000 })).rows;
  const id = crypto.randomUUID();
  await store.createJob({ ...template, id, status: 'running', processed_count: 0 });
  try {
    const { ms } = await timed(async () => {
      for (let from = 0; from < rows; from += FLOOR_INSERT_ROWS) {
        const batch: ResultRow[] = [];
        for (let row = from; row < Math.min(rows, from + FLOOR_INSERT_ROWS); row++) batch.push({ ...sample[row % sample.length], row });
        await store.putResults(id, template.delete_after, batch);
      }
    });
    const stored = await store.countResults(id);
    if (stored.processed !== rows) throw new Error(`the floor insert stored ${stored.processed} rows`);
    return ms;
  } finally {
    await store.purgeJob(id, new Date().toISOString());
  }
}

async function pageTimes(d: Deployment, id: string): Promise<number[]> {
  const times: number[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 6; i++) {
    const started = performance.now();
    const { status, json } = await call(d, 'GET', `/v2/check-jobs/${id}/results?limit=10000${cursor ? `&cursor=${cursor}` : ''}`);
    times.push(performance.now() - started);
    if (status !== 200 || json.results.length !== 10_000) throw new Error(`results page: ${status}`);
    cursor = encodeURIComponent(json.next_cursor);
  }
  return times;
}

/**
 * `watch`: time the matching stage with a watcher group on checks.results. Only for the
 * distributed run: in the embedded one the watcher would share the one thread and read every
 * result again, and there the consumers keep up with the intake anyway (done ≈ 202).
 */
async function measure(label: string, d: Deployment, body: Buffer, parseMs: number, watch: boolean): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const warm = await call(d, 'POST', '/v2/check-jobs', JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }));
  await waitDone(d, warm.json.id, 300_000);
  const watcher = watch ? await watchResults(d.platform) : null;
  try {
    const started = performance.now();
    const created = await call(d, 'POST', '/v2/check-jobs', body);
    const accepted = performance.now();
    if (created.status !== 202) throw new Error(`POST answered ${created.status}: ${JSON.stringify(created.json)}`);
    const matched = watcher ? await watcher.reached(created.json.id, Math.ceil(ROWS / CHUNK_ROWS)) : null;
    const job = await waitDone(d, created.json.id, DONE_TIMEOUT_MS);
    const done = performance.now();
    if (job.status !== 'done' || job.processed_count !== ROWS) throw new Error(`job ended ${job.status} with ${job.processed_count} rows`);
    const pages = (await pageTimes(d, job.id)).sort((a, b) => a - b);
    const insertMs = await insertFloorMs(d, job.id);
    const floor: Reference = { name: 'the floor', value: round((parseMs + insertMs) / 1000), unit: 's' };
    const total = (done - started) / 1000;
    const rate = (ms: number) => Math.round(ROWS / (ms / 1000));
    const floorRate: Reference = { name: 'the floor', value: rate(floor.value * 1000), unit: 'rows/s' };
    const seconds = (name: string, ms: number, note?: string): BenchMetric =>
      relativeTo({ name, value: round(ms / 1000), unit: 's', ...(note ? { note } : {}) }, floor);
    return {
      metrics: [
        ratioMetric(`${label}: ${ROWS.toLocaleString('en')}-row job, submit → done, as a multiple of its floor`, round(total), floor, { op: '<=', value: FLOOR_GOAL }),
        seconds(`${label}: ${ROWS.toLocaleString('en')}-row job, submit → done (information)`, done - started),
        { name: `${label}: floor = JSON.parse of the body + bulk insert of ${ROWS.toLocaleString('en')} result rows`, value: floor.value, unit: 's', note: `parse ${round(parseMs / 1000)} s + insert ${round(insertMs / 1000)} s (${FLOOR_INSERT_ROWS.toLocaleString('en')} rows per putResults)` },
        relativeTo({ name: `${label}: end-to-end throughput`, value: rate(done - started), unit: 'rows/s' }, floorRate),
        seconds(`${label}: intake (POST → 202, rows on the log)`, accepted - started, `${rate(accepted - started).toLocaleString('en')} rows/s`),
        ...(matched === null
          ? [seconds(`${label}: done after the 202`, done - accepted)]
          : [
            seconds(`${label}: matching done (last ResultsChunk on the log)`, matched - started, `${round((matched - accepted) / 1000)} s after the 202`),
            seconds(`${label}: projection done after the last result`, done - matched),
          ]),
        { name: `${label}: 10,000-row results page (median of 6)`, value: Math.round(pages[3]), unit: 'ms', goal: { op: '<=', value: 200 }, note: `max ${Math.round(pages[5])} ms` },
      ],
      notes: [`${label}: blocked ${job.blocked_count}, manual ${job.manual_count}, allowed ${job.allowed_count}; levels ${JSON.stringify(job.level_counts)}`],
    };
  } finally {
    await watcher?.close();
  }
}

const bench: Bench = async (): Promise<BenchSection> => {
  const only = process.env.PIPELINE_BENCH_ONLY;
  const listEntries = [...generateListEntries(LIST_ENTRIES, SEED)];
  const body = jobBody();
  const parseMs = await parseFloorMs(body);
  const metrics: BenchMetric[] = [];
  const notes = [
    `${ROWS.toLocaleString('en')} rows (${Math.round(body.length / 1024 / 1024)} MB of JSON, ${MEMBER_SHARE * 100}% list members) against a synthetic list of ${LIST_ENTRIES.toLocaleString('en')} entries; ${CHUNK_ROWS} rows per checks.rows message`,
    'matchers warmed up by a one-row job first (index built); stage times are from the start of the POST',
    `floor: JSON.parse of the same body (${round(parseMs / 1000)} s, once per run) + a bulk insert of ${ROWS.toLocaleString('en')} result rows (the job's own, renumbered) into the deployment's store right after its job; goal ≤ ${FLOOR_GOAL}× the floor, absolute seconds as information`,
    'embedded: as npm start runs it, the API on the main thread, matcher and projection in worker threads on the same database file',
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
      const m = await measure('embedded', embedded, body, parseMs, false);
      metrics.push(...m.metrics);
      notes.push(...m.notes);
    } finally {
      await embedded.stop();
    }
  }
  if (only !== 'embedded') {
    const distributed = await startDistributed(null, { matchers: 2, listEntries, jobChunkRows: CHUNK_ROWS, env });
    try {
      const m = await measure('Kafka + ClickHouse', distributed, body, parseMs, true);
      metrics.push(...m.metrics);
      notes.push(...m.notes, 'distributed: API in the bench process, two matcher processes and one projection process (npm run service), Kafka and ClickHouse 25.8 (chDB behind its HTTP front) on the same 2 cores');
    } finally {
      await distributed.stop();
    }
  }
  return { title: `Pipeline: ${ROWS.toLocaleString('en')}-row check job end to end`, metrics, notes };
};

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
