/**
 * File uploads. The goal (docs/uploads.md "Bench", the default run): a 1,000,000-row CSV upload
 * (`options.start: true`) → done on the embedded deployment, ≤ 5× its floor, twice
 * (upload-rounds.ts: the floor is that of the same people as a JSON body, floor.ts).
 *
 * More, each behind UPLOADS_BENCH_ONLY (none of it is a goal of the speed work; `all` runs everything):
 * - `api-process`: the API's own peak RSS (goal ≤ 400 MB) with the API in a process of its own,
 *   through a 1,000,000-row CSV and a 200,000-row xlsx upload up to the 202;
 * - `embedded` | `distributed` | `deployments` (both): on embedded and on Kafka + ClickHouse (API in
 *   this process, two matcher processes, one projection process) the CSV and xlsx (exceljs)
 *   uploads → done with this process's RSS growth, the result file against paging the same results,
 *   and the JSON job with the overlapped intake against the same job spooled whole first.
 * UPLOADS_BENCH_ROWS: a smaller run (the report uses 1,000,000).
 */
import { spawn } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../../services/platform/config.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import { createServiceContext, startApi } from '../../services/processes.ts';
import { generateListEntries } from '../../services/synthetic/index.ts';
import { startDistributed, startEmbedded, TEST_ENV } from '../support/deployments.ts';
import { multipartBody } from '../support/multipart.ts';
import { jobFloor } from './floor.ts';
import { ratioMetric, relativeTo, timed, type Reference } from './reference.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';
import { csvOf, jsonBodyOf, UPLOAD_SEED, uploadPeople, xlsxOf } from './upload-inputs.ts';
import { startCsvUploads, UPLOAD_LIST_ENTRIES } from './upload-rounds.ts';

const ROWS = Number(process.env.UPLOADS_BENCH_ROWS ?? 1_000_000);
const XLSX_ROWS = Math.round(ROWS / 5);
const LIST_ENTRIES = UPLOAD_LIST_ENTRIES;
const CHUNK_ROWS = 2000;
const SEED = UPLOAD_SEED;
const ONLY = process.env.UPLOADS_BENCH_ONLY ?? 'goal';
const PARTS = ['goal', 'api-process', 'embedded', 'distributed', 'deployments', 'all'];
if (!PARTS.includes(ONLY)) throw new Error(`UPLOADS_BENCH_ONLY must be one of ${PARTS.join(', ')}, not ${ONLY}`);
const ROUNDS = 2;

/** The goal: the CSV upload → done (embedded) as a multiple of its floor, twice. */
async function goalFigures(): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const uploads = await startCsvUploads(ROWS);
  const metrics: BenchMetric[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const r = await uploads.round();
      const load = loadavg()[0].toFixed(1);
      const floor: Reference = { name: 'the floor', value: Math.round(r.floorMs) / 1000, unit: 's' };
      const label = `embedded, round ${round + 1}`;
      const ratio = ratioMetric(`${label}: ${ROWS.toLocaleString('en')}-row CSV upload → done, as a multiple of its floor`, Math.round(r.doneMs) / 1000, floor, { op: '<=', value: 5 });
      metrics.push(
        { ...ratio, note: `${ratio.note}; load ${load}` },
        { name: `${label}: floor = JSON.parse of the same people as a JSON body + one compact result line per row + one fsync`, value: floor.value, unit: 's' },
        relativeTo({ name: `${label}: CSV upload, POST → 202 (every row on the log)`, value: Math.round(r.acceptedMs) / 1000, unit: 's', note: `load ${load}` }, floor),
      );
    }
    return {
      metrics,
      notes: [
        `CSV upload goal: ${ROWS.toLocaleString('en')} people (20% list members; CSV UTF-8 BOM ; ${Math.round(uploads.csvBytes / 2 ** 20)} MB; the same people as a JSON body ${Math.round(uploads.jsonBytes / 2 ** 20)} MB are its floor), ${LIST_ENTRIES.toLocaleString('en')}-entry list, embedded as npm start runs it (matcher and projection in worker threads), one small job first so the list index is built; upload with options.start true, POST to done.`,
      ],
    };
  } finally {
    await uploads.stop();
  }
}

interface Target {
  baseUrl: string;
  liveKey: string;
}

async function call(t: Target, method: string, path: string, body?: Buffer | string, contentType = 'application/json') {
  const response = await fetch(new URL(path, t.baseUrl), { method, headers: { Authorization: `Bearer ${t.liveKey}`, ...(body ? { 'Content-Type': contentType } : {}) }, body });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

async function waitDone(t: Target, id: string): Promise<any> {
  const end = Date.now() + 900_000;
  for (;;) {
    const { json } = await call(t, 'GET', `/v2/check-jobs/${id}`);
    if (json.status === 'done' || json.status === 'failed') return json;
    if (Date.now() > end) throw new Error(`job not done: ${json.status} ${json.processed_count}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Peak RSS of this process while `work` runs (sampled every 50 ms), and the RSS before it. */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number; beforeMb: number }> {
  const beforeMb = process.memoryUsage.rss() / 2 ** 20;
  let peak = beforeMb;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss() / 2 ** 20);
  }, 50);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss() / 2 ** 20);
    return { value, peakMb: Math.round(peak), beforeMb: Math.round(beforeMb) };
  } finally {
    clearInterval(timer);
  }
}

/** POST (JSON or upload) → 202 → done: the stage times in seconds from the start of the POST. */
async function jobToDone(t: Target, body: Buffer, contentType: string, rows: number) {
  const started = performance.now();
  const created = await call(t, 'POST', '/v2/check-jobs', body, contentType);
  const accepted = performance.now();
  if (created.status !== 202) throw new Error(`POST answered ${created.status}: ${JSON.stringify(created.json)}`);
  const job = await waitDone(t, created.json.id);
  const done = performance.now();
  if (job.status !== 'done' || job.processed_count !== rows) throw new Error(`job ended ${job.status} with ${job.processed_count} rows`);
  return { id: job.id as string, accepted: (accepted - started) / 1000, done: (done - started) / 1000 };
}

async function upload(bytes: Buffer, filename: string) {
  return multipartBody([{ name: 'file', value: { bytes, filename } }, { name: 'options', value: '{"start":true}' }]);
}

async function measure(label: string, t: Target, spoolFirst: Target, inputs: { json: Buffer; csv: Buffer; xlsx: Buffer }) {
  const warm = await call(t, 'POST', '/v2/check-jobs', JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }));
  await waitDone(t, warm.json.id);
  const metrics: BenchMetric[] = [];
  const r = (n: number) => Math.round(n * 10) / 10;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

  const jsonSpooled = await jobToDone(spoolFirst, inputs.json, 'application/json', ROWS);
  const json = await withPeakRss(() => jobToDone(t, inputs.json, 'application/json', ROWS));
  // The pipeline's store-independent floor (floor.ts), measured right after the job.
  const floorMs = jobFloor(inputs.json, ROWS).totalMs;
  const floor: Reference = { name: 'the floor', value: r(floorMs / 1000), unit: 's' };
  metrics.push(
    ratioMetric(`${label}: JSON job, overlapped intake, submit → done, as a multiple of its floor`, r(json.value.done), floor),
    { name: `${label}: floor = JSON.parse of the body + one compact result line per row + one fsync`, value: floor.value, unit: 's' },
  );
  metrics.push(
    { name: `${label}: JSON job, overlapped intake: submit → done`, value: r(json.value.done), unit: 's', note: `${ratio(json.value.done, jsonSpooled.done)} of the same job spooled whole first (${r(jsonSpooled.done)} s)` },
    { name: `${label}: JSON job, overlapped: POST → 202`, value: r(json.value.accepted), unit: 's', note: `spooled first: ${r(jsonSpooled.accepted)} s; done ${r(json.value.done - json.value.accepted)} s after the 202 (spooled first: ${r(jsonSpooled.done - jsonSpooled.accepted)} s)` },
  );

  const csvBody = await upload(inputs.csv, 'kunder.csv');
  const csv = await withPeakRss(() => jobToDone(t, csvBody.body, csvBody.contentType, ROWS));
  metrics.push(
    { name: `${label}: ${ROWS.toLocaleString('en')}-row CSV upload → done`, value: r(csv.value.done), unit: 's', note: `${ratio(csv.value.done, json.value.done)} of the JSON job; upload → 202 (file read once, spooled, rows on the log) ${r(csv.value.accepted)} s` },
    { name: `${label}: RSS growth during the CSV upload job`, value: csv.peakMb - csv.beforeMb, unit: 'MB', ratio: { value: Math.round(((csv.peakMb - csv.beforeMb) / csv.beforeMb) * 100) / 100, of: "this process's RSS before it" }, note: `peak ${csv.peakMb} MB, ${ratio(csv.peakMb, csv.beforeMb)} of the RSS before it (${csv.beforeMb} MB)` },
  );

  const xlsxBody = await upload(inputs.xlsx, 'kunder.xlsx');
  const xlsx = await withPeakRss(() => jobToDone(t, xlsxBody.body, xlsxBody.contentType, XLSX_ROWS));
  metrics.push(
    { name: `${label}: ${XLSX_ROWS.toLocaleString('en')}-row xlsx upload → done`, value: r(xlsx.value.done), unit: 's', note: `${Math.round(XLSX_ROWS / xlsx.value.done).toLocaleString('en')} rows/s, ${ratio(XLSX_ROWS / xlsx.value.done, ROWS / csv.value.done)} of the CSV upload's rate` },
    { name: `${label}: RSS growth during the xlsx upload job`, value: xlsx.peakMb - xlsx.beforeMb, unit: 'MB', ratio: { value: Math.round(((xlsx.peakMb - xlsx.beforeMb) / xlsx.beforeMb) * 100) / 100, of: "this process's RSS before it" }, note: `peak ${xlsx.peakMb} MB, ${ratio(xlsx.peakMb, xlsx.beforeMb)} of the RSS before it` },
  );

  const file = await withPeakRss(async () => {
    const started = performance.now();
    const response = await fetch(new URL(`/v2/check-jobs/${csv.value.id}/file`, t.baseUrl), { headers: { Authorization: `Bearer ${t.liveKey}` } });
    let bytes = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    return { seconds: (performance.now() - started) / 1000, bytes };
  });
  const pagesStarted = performance.now();
  let cursor: string | null = null;
  let paged = 0;
  do {
    const page: { json: { results: unknown[]; next_cursor: string | null } } = await call(t, 'GET', `/v2/check-jobs/${csv.value.id}/results?limit=10000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    paged += page.json.results.length;
    cursor = page.json.next_cursor;
  } while (cursor);
  const pagesSeconds = (performance.now() - pagesStarted) / 1000;
  if (paged !== ROWS) throw new Error(`paged ${paged} results`);
  metrics.push(
    { name: `${label}: ${ROWS.toLocaleString('en')}-row result file (csv)`, value: r(file.value.seconds), unit: 's', note: `${Math.round(file.value.bytes / 2 ** 20)} MB; ${ratio(file.value.seconds, pagesSeconds)} of paging the same results as JSON (${r(pagesSeconds)} s)` },
    { name: `${label}: RSS growth while writing the result file`, value: file.peakMb - file.beforeMb, unit: 'MB', ratio: { value: Math.round(((file.peakMb - file.beforeMb) / file.beforeMb) * 100) / 100, of: "this process's RSS before it" }, note: `peak ${file.peakMb} MB, ${ratio(file.peakMb, file.beforeMb)} of the RSS before it` },
  );
  return metrics;
}

/** VmHWM (peak) and VmRSS of a process, in MB, from /proc (Linux). */
function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) };
}

/**
 * The API in a process of its own (api-intake-server.ts: embedded stores, test key, no matcher),
 * so its peak RSS is the API's alone (goal ≤ 400 MB): the CSV upload, then the xlsx upload, each
 * up to the 202 (file received, read once, spooled, job created, every row on the log).
 */
async function apiProcessFigures(inputs: { csv: Buffer; xlsx: Buffer }): Promise<BenchMetric[]> {
  const dir = mkdtempSync(join(tmpdir(), 'uploads-bench-api-'));
  const server = spawn(process.execPath, [fileURLToPath(new URL('./api-intake-server.ts', import.meta.url)), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [first] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
    const { port, key } = JSON.parse(first) as { port: number; key: string };
    const t: Target = { baseUrl: `http://127.0.0.1:${port}`, liveKey: key };
    const idle = memoryOf(server.pid!);
    const idleRss: Reference = { name: 'its idle RSS', value: idle.rssMb, unit: 'MB' };
    const accept = async (bytes: Buffer, filename: string, rows: number) => {
      const { body, contentType } = await upload(bytes, filename);
      const { ms, result } = await timed(() => call(t, 'POST', '/v2/check-jobs', body, contentType));
      if (result.status !== 202 || result.json.row_count !== rows) throw new Error(`upload answered ${result.status}: ${JSON.stringify(result.json).slice(0, 300)}`);
      return ms / 1000;
    };
    const csvSeconds = await accept(inputs.csv, 'kunder.csv', ROWS);
    const afterCsv = memoryOf(server.pid!);
    const xlsxSeconds = await accept(inputs.xlsx, 'kunder.xlsx', XLSX_ROWS);
    const afterXlsx = memoryOf(server.pid!);
    const r = (n: number) => Math.round(n * 10) / 10;
    const csvAccept: Reference = { name: 'the CSV upload → 202', value: r(csvSeconds), unit: 's' };
    return [
      { name: `API process of its own: ${ROWS.toLocaleString('en')}-row CSV upload → 202`, value: r(csvSeconds), unit: 's', note: `${Math.round(inputs.csv.length / 2 ** 20)} MB received, read once, spooled, every row on the log (embedded, test key, no matcher)` },
      relativeTo({ name: `API process of its own: ${XLSX_ROWS.toLocaleString('en')}-row xlsx upload → 202`, value: r(xlsxSeconds), unit: 's', note: 'per row, the xlsx costs this ratio × 5 of the CSV' }, csvAccept),
      relativeTo({ name: 'API process of its own: idle RSS', value: idle.rssMb, unit: 'MB' }, idleRss),
      relativeTo({ name: 'API process of its own: peak RSS (VmHWM) through the CSV upload', value: afterCsv.peakMb, unit: 'MB', goal: { op: '<=', value: 400 } }, idleRss),
      relativeTo({ name: 'API process of its own: peak RSS (VmHWM) through the CSV and the xlsx upload', value: afterXlsx.peakMb, unit: 'MB', goal: { op: '<=', value: 400 } }, idleRss),
    ];
  } finally {
    server.kill('SIGTERM');
    await once(server, 'exit').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A second API on the same deployment with the overlap off: the floor the overlap is compared with. */
async function spoolFirstApi(platform: Platform, config: Config) {
  return startApi(createServiceContext(platform, { ...config, PORT: 0 }, silentLogger(), { jobChunkRows: CHUNK_ROWS, overlapIntake: false }));
}

const bench: Bench = async (): Promise<BenchSection> => {
  const metrics: BenchMetric[] = [];
  const notes: string[] = [];
  const wants = (part: string) => ONLY === 'all' || ONLY === part || (ONLY === 'deployments' && (part === 'embedded' || part === 'distributed'));
  if (wants('goal')) {
    const goal = await goalFigures();
    metrics.push(...goal.metrics);
    notes.push(...goal.notes);
  }
  if (!wants('api-process') && !wants('embedded') && !wants('distributed')) return { title: 'Uploads: CSV upload → done', metrics, notes };
  const listEntries = [...generateListEntries(LIST_ENTRIES, SEED)];
  const all = uploadPeople(ROWS);
  const inputs = { json: jsonBodyOf(all), csv: csvOf(all), xlsx: await xlsxOf(all.slice(0, XLSX_ROWS)) };
  notes.push(
    `${ROWS.toLocaleString('en')} people (20% list members; JSON ${Math.round(inputs.json.length / 2 ** 20)} MB, CSV UTF-8 BOM ; ${Math.round(inputs.csv.length / 2 ** 20)} MB), xlsx of the first ${XLSX_ROWS.toLocaleString('en')} by exceljs (${Math.round(inputs.xlsx.length / 2 ** 20)} MB); ${LIST_ENTRIES.toLocaleString('en')}-entry list; uploads with options.start true`,
    'RSS "growth": this process, sampled every 50 ms; it also holds the inputs, the generated list and (embedded) the matcher/projection workers, so it is the growth during each job. The API\'s own peak RSS (goal ≤ 400 MB) is measured with the API in a process of its own (test/bench/api-intake-server.ts, embedded stores, test key, no matcher), up to the 202',
  );
  if (wants('api-process')) metrics.push(...(await apiProcessFigures(inputs)));
  const env = { PROJECTION_COUNT_INTERVAL_MS: '1000' };
  if (wants('embedded')) {
    const d = await startEmbedded(null, { listEntries, jobChunkRows: CHUNK_ROWS, env, workers: true });
    const floor = await spoolFirstApi(d.platform, loadConfig({ ...TEST_ENV, ...env, PORT: '0', DATA_DIR: d.dataDir }));
    try {
      metrics.push(...(await measure('embedded', d, { baseUrl: floor.address, liveKey: d.liveKey }, inputs)));
    } finally {
      await floor.stop();
      await d.stop();
    }
  }
  if (wants('distributed')) {
    const d = await startDistributed(null, { matchers: 2, listEntries, jobChunkRows: CHUNK_ROWS, env });
    const floor = await spoolFirstApi(d.platform, d.config);
    try {
      metrics.push(...(await measure('Kafka + ClickHouse', d, { baseUrl: floor.address, liveKey: d.liveKey }, inputs)));
    } finally {
      await floor.stop();
      await d.stop();
    }
  }
  return { title: 'Uploads: CSV upload → done; CSV/xlsx upload, result file, overlapped JSON intake', metrics, notes };
};

export default bench;

if (import.meta.main) {
  const scratch = mkdtempSync(join(tmpdir(), 'uploads-bench-'));
  try {
    console.log(JSON.stringify(await bench(), null, 2));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
