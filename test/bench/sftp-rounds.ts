/**
 * The SFTP goal (docs/inbound.md "Bench": "100 SFTP files of 10,000 rows → all results in outbox/: ≤ 3× the
 * client's upload"), measured the same way by the inbound bench and its driver (inbound.bench.ts,
 * sftp-driver.ts): one drop folder of a fresh account on the test OpenSSH server (infra/local),
 * the embedded deployment in this process as npm start runs it (matcher and projection in worker
 * threads, the poller on the main thread), polls every 500 ms and a 1 s stability interval. A
 * round:
 * - the customer's own upload, the reference: every file put under a hidden name by the
 *   customer's SFTP client (ssh2-sftp-client, as the tests' customer), timed;
 * - for information, the same files put by the same client with TCP_NODELAY (its round trips
 *   otherwise wait ~40 ms on delayed ACKs) under other hidden names, then removed;
 * - the drop: every file renamed into inbox/ at once, then the time until every result is in
 *   outbox/ (and the first one's).
 */
import { performance } from 'node:perf_hooks';
import type SftpClient from 'ssh2-sftp-client';
import { createLogger } from '../../services/platform/logger.ts';
import { csvAsExcelWrites } from '../support/files/spreadsheets.ts';
import { addDropFolder, INBOUND_TEST_ENV, startInboundEmbedded, type InboundEmbedded } from '../support/inbound.ts';
import { createSftpAccount, namesIn } from '../support/sftp.ts';
import { uploadRows } from '../e2e/uploads-scenarios.ts';

/** Poll and stability settings of the inbound bench (the default 10 s interval would add a constant 10 s). */
export const SFTP_BENCH_ENV = { SFTP_STABLE_MS: '1000', SFTP_POLL_MS: '500', EMAIL_POLL_MS: '500' } as const;
/** Longest wait for one round's results, under any load. */
const ROUND_DEADLINE_MS = 30 * 60_000;

export interface DropRound {
  uploadMs: number;
  noDelayUploadMs: number;
  firstResultMs: number;
  allResultsMs: number;
}

export interface SftpDrops {
  d: InboundEmbedded;
  fileBytes: number;
  round(files: number, tag: string): Promise<DropRound>;
  stop(): Promise<void>;
}

/** `log`: the poller's log lines (ids and counts only) on stderr, to see where a round's time goes. */
export async function startSftpDrops(rows: number, options: { log?: boolean } = {}): Promise<SftpDrops> {
  const bytes = csvAsExcelWrites(uploadRows(rows).rows, 'utf8-comma');
  const account = await createSftpAccount();
  let d: InboundEmbedded | null = null;
  try {
    d = await startInboundEmbedded({ ...SFTP_BENCH_ENV }, undefined, { workers: true, jobChunkRows: 2000 });
    await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, account);
    await d.startInbound('sftp', {}, options.log ? { logger: createLogger({ level: 'info', stderr: true, format: 'json' }) } : {});
    const customer = await account.customer();
    const noDelay = await account.customer();
    (noDelay as unknown as { client: { setNoDelay(on: boolean): void } }).client.setNoDelay(true);
    const deployment = d;
    return {
      d: deployment,
      fileBytes: bytes.length,
      round: (files, tag) => dropRound(customer, noDelay, bytes, files, tag),
      async stop() {
        await deployment.stop();
        await account.remove();
      },
    };
  } catch (error) {
    await d?.stop();
    await account.remove();
    throw error;
  }
}

async function dropRound(customer: SftpClient, noDelay: SftpClient, bytes: Buffer, files: number, tag: string): Promise<DropRound> {
  const name = (i: number) => `${tag}-f${i}.csv`;
  const noDelayStart = performance.now();
  for (let i = 0; i < files; i++) await noDelay.put(bytes, `/inbox/.ref-${name(i)}.part`);
  const noDelayUploadMs = performance.now() - noDelayStart;
  for (let i = 0; i < files; i++) await noDelay.delete(`/inbox/.ref-${name(i)}.part`);
  const uploadStart = performance.now();
  for (let i = 0; i < files; i++) await customer.put(bytes, `/inbox/.${name(i)}.part`);
  const uploadMs = performance.now() - uploadStart;
  const dropStart = performance.now();
  for (let i = 0; i < files; i++) await customer.rename(`/inbox/.${name(i)}.part`, `/inbox/${name(i)}`);
  let firstResultMs: number | null = null;
  for (;;) {
    const results = (await namesIn(customer, '/outbox')).filter((n) => n.startsWith(`${tag}-`) && n.endsWith('.result.csv')).length;
    if (results > 0) firstResultMs ??= performance.now() - dropStart;
    if (results >= files) break;
    if (performance.now() - dropStart > ROUND_DEADLINE_MS) throw new Error(`only ${results} of ${files} results after ${ROUND_DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const allResultsMs = performance.now() - dropStart;
  return { uploadMs, noDelayUploadMs, firstResultMs: firstResultMs ?? allResultsMs, allResultsMs };
}
