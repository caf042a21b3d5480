/**
 * The CSV upload goal (docs/uploads.md "Bench": "1,000,000-row CSV upload → done, embedded: ≤ 5× the floor"),
 * measured the same way by the uploads bench and its driver (uploads.bench.ts, upload-driver.ts):
 * the embedded deployment as npm start runs it (API in this process, matcher and projection in
 * worker threads, the uploads bench's 200,000-entry list), one small job first so the list index
 * is built before anything is timed, then per round the floor of the same people as a JSON body
 * (floor.ts, best of 3, right before the upload: a CSV has no JSON body of its own) and the upload
 * with `options.start: true` from POST to 202 and to done.
 */
import { generateListEntries } from '../../services/synthetic/index.ts';
import { startEmbedded, type EmbeddedDeployment } from '../support/deployments.ts';
import { multipartBody } from '../support/multipart.ts';
import { jobFloor } from './floor.ts';
import { csvOf, jsonBodyOf, UPLOAD_SEED, uploadPeople } from './upload-inputs.ts';

export const UPLOAD_LIST_ENTRIES = 200_000;
const JOB_DEADLINE_MS = 30 * 60_000;

export interface UploadRound {
  floorMs: number;
  acceptedMs: number;
  doneMs: number;
  /** The API thread's CPU (this process's main thread: the intake runs on it) from the POST to the 202 and to done, ms. */
  acceptedCpuMs: number;
  doneCpuMs: number;
  /** The whole process's CPU (every thread: API, matcher, projection, the log's append thread, V8's helpers) from the POST to done, ms. */
  processCpuMs: number;
  jobId: string;
}

export interface CsvUploads {
  csvBytes: number;
  jsonBytes: number;
  round(): Promise<UploadRound>;
  deployment: EmbeddedDeployment;
  stop(): Promise<void>;
}

export async function startCsvUploads(rows: number, listEntries = UPLOAD_LIST_ENTRIES): Promise<CsvUploads> {
  const people = uploadPeople(rows);
  const json = jsonBodyOf(people);
  const csv = csvOf(people);
  const form = await multipartBody([{ name: 'file', value: { bytes: csv, filename: 'kunder.csv' } }, { name: 'options', value: '{"start":true}' }]);
  const d = await startEmbedded(null, { listEntries: generateListEntries(listEntries, UPLOAD_SEED), jobChunkRows: 2000, workers: true });
  try {
    await jobToDone(d, JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }), 'application/json', 1);
  } catch (error) {
    await d.stop();
    throw error;
  }
  return {
    csvBytes: csv.length,
    jsonBytes: json.length,
    deployment: d,
    async round() {
      const floor = jobFloor(json, rows);
      // The floor blocks this thread for seconds, longer than the API's keep-alive: one turn of the
      // event loop lets the client see the server's close of its idle connection before the POST
      // would go out on it (a POST is not retried: "other side closed" ended a 1,000,000-row run).
      await new Promise((resolve) => setImmediate(resolve));
      return { floorMs: floor.totalMs, ...(await jobToDone(d, form.body, form.contentType, rows)) };
    },
    stop: () => d.stop(),
  };
}

const processMs = ({ user, system }: NodeJS.CpuUsage) => (user + system) / 1000;

/** POST → 202 → done, in ms from the start of the POST; throws unless done with `rows` rows. */
async function jobToDone(d: EmbeddedDeployment, body: Buffer | string, contentType: string, rows: number): Promise<Omit<UploadRound, 'floorMs'>> {
  const auth = { Authorization: `Bearer ${d.liveKey}` };
  const cpuMs = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  const cpuStarted = cpuMs();
  const processStarted = process.cpuUsage();
  const started = performance.now();
  const created = await fetch(new URL('/v2/check-jobs', d.baseUrl), { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
  const acceptedMs = performance.now() - started;
  const acceptedCpuMs = cpuMs() - cpuStarted;
  const job = (await created.json()) as { id: string };
  if (created.status !== 202) throw new Error(`POST: ${created.status} ${JSON.stringify(job)}`);
  for (;;) {
    const now = (await (await fetch(new URL(`/v2/check-jobs/${job.id}`, d.baseUrl), { headers: auth })).json()) as { status: string; processed_count: number };
    if (now.status === 'done') {
      if (now.processed_count !== rows) throw new Error(`done with ${now.processed_count} rows, not ${rows}`);
      return { acceptedMs, doneMs: performance.now() - started, acceptedCpuMs, doneCpuMs: cpuMs() - cpuStarted, processCpuMs: processMs(process.cpuUsage(processStarted)), jobId: job.id };
    }
    if (now.status === 'failed' || performance.now() - started > JOB_DEADLINE_MS) throw new Error(`job ${now.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
