/**
 * The SFTP drop-folder scenario alone, for profiling and A/B runs of the inbound path
 * (test/bench/README.md "Drop folders and uploads alone"): SFTP_DRIVER_FILES files (default 20)
 * of SFTP_DRIVER_ROWS rows (default 10,000; the inbound bench's file) dropped into one folder of
 * the test OpenSSH server (infra/local), the embedded deployment in this process as npm start runs
 * it (matcher and projection in worker threads, the poller on the main thread), with the inbound
 * bench's poll and stability settings. SFTP_DRIVER_ROUNDS rounds (default 1), each:
 * - the customer's own upload: every file put under a hidden name (as careful clients do), timed:
 *   the reference the goal is a multiple of (docs/inbound.md "Bench");
 * - the drop: every file renamed into inbox/ at once, then the time until every result is in
 *   outbox/ (the first result's time too).
 *
 * Not a bench of its own (no goal, no report): one JSON line per round with the load average.
 * Run: `node test/bench/sftp-driver.ts` (add --cpu-prof to profile; the poller runs in this
 * process, matcher and projection in worker threads).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLogger } from '../../services/platform/logger.ts';
import { csvAsExcelWrites } from '../support/files/spreadsheets.ts';
import { addDropFolder, INBOUND_TEST_ENV, startInboundEmbedded } from '../support/inbound.ts';
import { createSftpAccount, namesIn } from '../support/sftp.ts';
import { uploadRows } from '../e2e/uploads-scenarios.ts';

const FILES = Number(process.env.SFTP_DRIVER_FILES ?? 20);
const ROWS = Number(process.env.SFTP_DRIVER_ROWS ?? 10_000);
const ROUNDS = Number(process.env.SFTP_DRIVER_ROUNDS ?? 1);
/** The inbound bench's settings (inbound.bench.ts). */
const SFTP_BENCH_ENV = { SFTP_STABLE_MS: '1000', SFTP_POLL_MS: '500' } as const;
/** Longest wait for one round's results (the whole round, under any load). */
const ROUND_DEADLINE_MS = 30 * 60_000;

const bytes = csvAsExcelWrites(uploadRows(ROWS).rows, 'utf8-comma');
const account = await createSftpAccount();
const d = await startInboundEmbedded({ ...SFTP_BENCH_ENV }, undefined, { workers: true, jobChunkRows: 2000 });
try {
  await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, account);
  // SFTP_DRIVER_LOG=1: the poller's log lines (ids and counts only) on stderr, to see where a round's time goes.
  await d.startInbound('sftp', {}, process.env.SFTP_DRIVER_LOG === '1' ? { logger: createLogger({ level: 'info', stderr: true, format: 'json' }) } : {});
  const customer = await account.customer();
  for (let round = 0; round < ROUNDS; round++) {
    const name = (i: number) => `r${round}-f${i}.csv`;
    const uploadStart = performance.now();
    for (let i = 0; i < FILES; i++) await customer.put(bytes, `/inbox/.${name(i)}.part`);
    const uploadMs = performance.now() - uploadStart;
    const dropStart = performance.now();
    for (let i = 0; i < FILES; i++) await customer.rename(`/inbox/.${name(i)}.part`, `/inbox/${name(i)}`);
    let firstMs: number | null = null;
    for (;;) {
      const results = (await namesIn(customer, '/outbox')).filter((n) => n.startsWith(`r${round}-`) && n.endsWith('.result.csv')).length;
      if (results > 0) firstMs ??= performance.now() - dropStart;
      if (results >= FILES) break;
      if (performance.now() - dropStart > ROUND_DEADLINE_MS) throw new Error(`only ${results} of ${FILES} results after ${ROUND_DEADLINE_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const allMs = performance.now() - dropStart;
    console.log(JSON.stringify({
      round, files: FILES, rows: ROWS, kib: Math.round(bytes.length / 1024), load: loadavg()[0].toFixed(2),
      upload_ms: Math.round(uploadMs), first_result_ms: Math.round(firstMs ?? allMs), all_results_ms: Math.round(allMs),
      ratio: Math.round((allMs / uploadMs) * 100) / 100, rows_per_s: Math.round((FILES * ROWS) / (allMs / 1000)),
    }));
  }
} finally {
  await d.stop();
  await account.remove();
}
