/**
 * The result-file scenario alone, for profiling and A/B runs of the file path (test/bench/README.md
 * "Result files alone"): one JSON job of FILE_DRIVER_ROWS rows (default 100,000; the body of
 * driver-job.ts) on one deployment (FILE_DRIVER_DEPLOYMENT=embedded|distributed, default
 * embedded), then FILE_DRIVER_ROUNDS rounds (default 3) of its result file in FILE_DRIVER_FORMAT
 * (csv, the default, or xlsx), each timing:
 * - the job's floor (floor.ts: JSON.parse of the very body + one compact result line per row + one
 *   fsync, best of 3), right before the file;
 * - GET /v2/check-jobs/{id}/file, request to its last byte;
 * - the file written in this process from the store (streamResultFile into a sink): the route's
 *   work without HTTP.
 *
 * Not a bench of its own (no goal, no report): it prints one JSON line per round with the load
 * average. Run: `node test/bench/file-driver.ts` (add --cpu-prof to profile; the API runs in this
 * process).
 */
import { loadavg } from 'node:os';
import { Writable } from 'node:stream';
import { streamResultFile } from '../../services/ingest/uploads/result-file.ts';
import { driverJobBody, startWithDoneJob } from './driver-job.ts';
import { jobFloor } from './floor.ts';

const ROWS = Number(process.env.FILE_DRIVER_ROWS ?? 100_000);
const ROUNDS = Number(process.env.FILE_DRIVER_ROUNDS ?? 3);
const DEPLOYMENT = process.env.FILE_DRIVER_DEPLOYMENT ?? 'embedded';
const FORMAT = process.env.FILE_DRIVER_FORMAT ?? 'csv';
if (FORMAT !== 'csv' && FORMAT !== 'xlsx') throw new Error(`FILE_DRIVER_FORMAT must be csv or xlsx, not ${FORMAT}`);
if (DEPLOYMENT !== 'embedded' && DEPLOYMENT !== 'distributed') throw new Error(`FILE_DRIVER_DEPLOYMENT must be embedded or distributed, not ${DEPLOYMENT}`);

/** A sink that counts bytes and lines (a line per row and the header). */
class Count extends Writable {
  bytes = 0;
  lines = 0;
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.bytes += chunk.length;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) this.lines++;
    done();
  }
}

const body = driverJobBody(ROWS);
const { d, id } = await startWithDoneJob(DEPLOYMENT, body);
try {
  const auth = { Authorization: `Bearer ${d.liveKey}` };
  const record = await d.platform.jobs.getJobById(id);
  if (!record) throw new Error('the job is gone');
  const bodyBytes = Buffer.from(body, 'utf8');
  for (let round = 0; round < ROUNDS; round++) {
    const floor = jobFloor(bodyBytes, ROWS);
    const started = performance.now();
    const response = await fetch(new URL(`/v2/check-jobs/${id}/file?format=${FORMAT}`, d.baseUrl), { headers: auth });
    if (response.status !== 200) throw new Error(`file: ${response.status} ${await response.text()}`);
    let bytes = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const fileMs = performance.now() - started;
    const sink = new Count();
    const s = performance.now();
    await streamResultFile(d.platform.jobs, record, { locale: 'da', format: FORMAT }, sink);
    const inProcessMs = performance.now() - s;
    if (FORMAT === 'csv' && sink.lines !== ROWS + 1) throw new Error(`the file has ${sink.lines - 1} rows, not ${ROWS}`);
    console.log(JSON.stringify({
      deployment: DEPLOYMENT, format: FORMAT, round, rows: ROWS, load: loadavg()[0].toFixed(2), mb: Math.round(bytes / 2 ** 20),
      floor_ms: Math.round(floor.totalMs), file_ms: Math.round(fileMs), ratio: Math.round((fileMs / floor.totalMs) * 100) / 100,
      in_process_ms: Math.round(inProcessMs), in_process_ratio: Math.round((inProcessMs / floor.totalMs) * 100) / 100,
    }));
  }
} finally {
  await d.stop();
}
