/**
 * The CSV upload scenario alone, for profiling and A/B runs of the upload path
 * (test/bench/README.md "Uploads and drop folders alone"): upload-rounds.ts (the uploads bench's
 * measurement) with a CSV of UPLOAD_DRIVER_ROWS people (default 100,000) and a list of
 * UPLOAD_DRIVER_LIST entries (default 200,000, the bench's), UPLOAD_DRIVER_ROUNDS rounds (default 2).
 *
 * Not a bench of its own (no goal, no report): one JSON line per round with the floor, POST → 202,
 * POST → done, the ratio to the floor and the load average. Run: `node test/bench/upload-driver.ts`
 * (add --cpu-prof to profile: the API runs in this process, matcher and projection in workers).
 */
import { loadavg } from 'node:os';
import { startCsvUploads, UPLOAD_LIST_ENTRIES } from './upload-rounds.ts';

const ROWS = Number(process.env.UPLOAD_DRIVER_ROWS ?? 100_000);
const ROUNDS = Number(process.env.UPLOAD_DRIVER_ROUNDS ?? 2);
const LIST_ENTRIES = Number(process.env.UPLOAD_DRIVER_LIST ?? UPLOAD_LIST_ENTRIES);

const uploads = await startCsvUploads(ROWS, LIST_ENTRIES);
try {
  for (let round = 0; round < ROUNDS; round++) {
    const { floorMs, acceptedMs, doneMs } = await uploads.round();
    console.log(JSON.stringify({
      round, rows: ROWS, csv_mb: Math.round(uploads.csvBytes / 2 ** 20), load: loadavg()[0].toFixed(2),
      floor_ms: Math.round(floorMs), accepted_ms: Math.round(acceptedMs), done_ms: Math.round(doneMs),
      ratio: Math.round((doneMs / floorMs) * 100) / 100,
    }));
  }
} finally {
  await uploads.stop();
}
