/**
 * The SFTP drop-folder scenario alone, for profiling and A/B runs of the inbound path
 * (test/bench/README.md "Uploads and drop folders alone"): sftp-rounds.ts (the inbound bench's
 * measurement) with SFTP_DRIVER_FILES files (default 20) of SFTP_DRIVER_ROWS rows (default
 * 10,000), SFTP_DRIVER_ROUNDS rounds (default 1) into the same folder. SFTP_DRIVER_LOG=1 prints the
 * poller's log lines on stderr.
 *
 * Not a bench of its own (no goal, no report): one JSON line per round with the ratio to the
 * customer's upload and the load average. Run: `node test/bench/sftp-driver.ts` (add --cpu-prof to
 * profile: the poller runs in this process, matcher and projection in worker threads).
 */
import { loadavg } from 'node:os';
import { startSftpDrops } from './sftp-rounds.ts';

const FILES = Number(process.env.SFTP_DRIVER_FILES ?? 20);
const ROWS = Number(process.env.SFTP_DRIVER_ROWS ?? 10_000);
const ROUNDS = Number(process.env.SFTP_DRIVER_ROUNDS ?? 1);

const drops = await startSftpDrops(ROWS, { log: process.env.SFTP_DRIVER_LOG === '1' });
try {
  for (let round = 0; round < ROUNDS; round++) {
    const r = await drops.round(FILES, `r${round}`);
    console.log(JSON.stringify({
      round, files: FILES, rows: ROWS, kib: Math.round(drops.fileBytes / 1024), load: loadavg()[0].toFixed(2),
      upload_ms: Math.round(r.uploadMs), no_delay_upload_ms: Math.round(r.noDelayUploadMs),
      first_result_ms: Math.round(r.firstResultMs), all_results_ms: Math.round(r.allResultsMs),
      ratio: Math.round((r.allResultsMs / r.uploadMs) * 100) / 100, ratio_no_delay: Math.round((r.allResultsMs / r.noDelayUploadMs) * 100) / 100,
      rows_per_s: Math.round((FILES * ROWS) / (r.allResultsMs / 1000)),
    }));
  }
} finally {
  await drops.stop();
}
