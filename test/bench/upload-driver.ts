/**
 * The CSV upload scenario alone, for profiling and A/B runs of the upload path
 * (test/bench/README.md "Drop folders and uploads alone"): a CSV of UPLOAD_DRIVER_ROWS people
 * (default 100,000; upload-inputs.ts, the uploads bench's people and list) uploaded with
 * `options.start: true` to the embedded deployment as npm start runs it (API in this process,
 * matcher and projection in worker threads), UPLOAD_DRIVER_ROUNDS rounds (default 2), each timing:
 * - the floor (floor.ts, best of 3) of the JSON body of the same people, right before the upload:
 *   a CSV has no JSON body of its own, so the same people as a JSON job are its floor;
 * - the upload: POST → 202 and POST → done.
 *
 * Not a bench of its own (no goal, no report): one JSON line per round with the ratio to the floor
 * and the load average. Run: `node test/bench/upload-driver.ts` (add --cpu-prof to profile).
 */
import { loadavg } from 'node:os';
import { generateListEntries } from '../../services/synthetic/index.ts';
import { startEmbedded } from '../support/deployments.ts';
import { multipartBody } from '../support/multipart.ts';
import { jobFloor } from './floor.ts';
import { csvOf, jsonBodyOf, UPLOAD_SEED, uploadPeople } from './upload-inputs.ts';

const ROWS = Number(process.env.UPLOAD_DRIVER_ROWS ?? 100_000);
const ROUNDS = Number(process.env.UPLOAD_DRIVER_ROUNDS ?? 2);
/** The uploads bench's list (uploads.bench.ts). */
const LIST_ENTRIES = Number(process.env.UPLOAD_DRIVER_LIST ?? 200_000);
const JOB_DEADLINE_MS = 30 * 60_000;

const people = uploadPeople(ROWS);
const json = jsonBodyOf(people);
const csv = csvOf(people);
const form = await multipartBody([{ name: 'file', value: { bytes: csv, filename: 'kunder.csv' } }, { name: 'options', value: '{"start":true}' }]);
const d = await startEmbedded(null, { listEntries: generateListEntries(LIST_ENTRIES, UPLOAD_SEED), jobChunkRows: 2000, workers: true });
try {
  // One small job first, so the list index is built before the first round is timed.
  await jobToDone(JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }), 'application/json', 1);
  for (let round = 0; round < ROUNDS; round++) {
    const floor = jobFloor(json, ROWS);
    const { acceptedMs, doneMs } = await jobToDone(form.body, form.contentType, ROWS);
    console.log(JSON.stringify({
      round, rows: ROWS, csv_mb: Math.round(csv.length / 2 ** 20), load: loadavg()[0].toFixed(2),
      floor_ms: Math.round(floor.totalMs), accepted_ms: Math.round(acceptedMs), done_ms: Math.round(doneMs),
      ratio: Math.round((doneMs / floor.totalMs) * 100) / 100,
    }));
  }
} finally {
  await d.stop();
}

/** POST → 202 → done, in ms from the start of the POST. */
async function jobToDone(body: Buffer | string, contentType: string, rows: number): Promise<{ acceptedMs: number; doneMs: number }> {
  const auth = { Authorization: `Bearer ${d.liveKey}` };
  const started = performance.now();
  const created = await fetch(new URL('/v2/check-jobs', d.baseUrl), { method: 'POST', headers: { ...auth, 'Content-Type': contentType }, body });
  const acceptedMs = performance.now() - started;
  const job = (await created.json()) as { id: string };
  if (created.status !== 202) throw new Error(`POST: ${created.status} ${JSON.stringify(job)}`);
  for (;;) {
    const now = (await (await fetch(new URL(`/v2/check-jobs/${job.id}`, d.baseUrl), { headers: auth })).json()) as { status: string; processed_count: number };
    if (now.status === 'done') {
      if (now.processed_count !== rows) throw new Error(`done with ${now.processed_count} rows, not ${rows}`);
      return { acceptedMs, doneMs: performance.now() - started };
    }
    if (now.status === 'failed' || performance.now() - started > JOB_DEADLINE_MS) throw new Error(`job ${now.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
