/**
 * The CSV upload scenario alone, for profiling and A/B runs of the upload path
 * (test/bench/README.md "Uploads and drop folders alone"): upload-rounds.ts (the uploads bench's
 * measurement) with a CSV of UPLOAD_DRIVER_ROWS people (default 100,000) and a list of
 * UPLOAD_DRIVER_LIST entries (default 200,000, the bench's), UPLOAD_DRIVER_ROUNDS rounds (default 2).
 *
 * Not a bench of its own (no goal, no report): one JSON line per round with the floor, POST → 202,
 * POST → done, the ratio to the floor, the API thread's CPU seconds per 1,000,000 rows to the 202
 * and to done (this process's main thread: the client's sending of the body is in it too), the
 * whole process's to done (every thread) and the load average. UPLOAD_DRIVER_HASH=1 also pages every result of the last round and prints the
 * results' SHA-256 as pipeline.bench.ts takes it (it must not change). Run:
 * `node test/bench/upload-driver.ts` (add --cpu-prof to profile: the API runs in this process,
 * matcher and projection in workers).
 */
import { loadavg } from 'node:os';
import { startCsvUploads, UPLOAD_LIST_ENTRIES } from './upload-rounds.ts';

const ROWS = Number(process.env.UPLOAD_DRIVER_ROWS ?? 100_000);
const ROUNDS = Number(process.env.UPLOAD_DRIVER_ROUNDS ?? 2);
const LIST_ENTRIES = Number(process.env.UPLOAD_DRIVER_LIST ?? UPLOAD_LIST_ENTRIES);
const HASH = process.env.UPLOAD_DRIVER_HASH === '1';
// pageAll checks the count against the pipeline bench's row count, read when it is imported.
process.env.PIPELINE_BENCH_ROWS = String(ROWS);
const { pageAll } = await import('./pipeline.bench.ts');

const uploads = await startCsvUploads(ROWS, LIST_ENTRIES);
try {
  for (let round = 0; round < ROUNDS; round++) {
    const { floorMs, acceptedMs, doneMs, acceptedCpuMs, doneCpuMs, processCpuMs, jobId } = await uploads.round();
    const perMillion = (ms: number) => Math.round((ms / 1000) * (1_000_000 / ROWS) * 100) / 100;
    console.log(JSON.stringify({
      round, rows: ROWS, csv_mb: Math.round(uploads.csvBytes / 2 ** 20), load: loadavg()[0].toFixed(2),
      floor_ms: Math.round(floorMs), accepted_ms: Math.round(acceptedMs), done_ms: Math.round(doneMs),
      ratio: Math.round((doneMs / floorMs) * 100) / 100,
      api_cpu_s_per_1m_to_202: perMillion(acceptedCpuMs), api_cpu_s_per_1m_to_done: perMillion(doneCpuMs),
      process_cpu_s_per_1m_to_done: perMillion(processCpuMs),
      ...(HASH && round === ROUNDS - 1 ? { results_sha256: (await pageAll(uploads.deployment, jobId)).sha256 } : {}),
    }));
  }
} finally {
  await uploads.stop();
}
