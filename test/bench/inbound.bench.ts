/**
 * Inbound channels. The goal (docs/inbound.md "Bench"): BENCH_INBOUND_FILES files (100) × BENCH_INBOUND_ROWS rows
 * (10,000) dropped at once into one SFTP drop folder → every result in outbox/, ≤ 3× the
 * customer's own SFTP upload of the files measured in the same run (sftp-rounds.ts: real OpenSSH of
 * infra/local, the embedded deployment in this process as npm start runs it), twice.
 *
 * Email as information, only with INBOUND_BENCH_ONLY=email or all (it is no goal of the issue):
 * BENCH_INBOUND_EMAILS (50) emails with one such attachment each → every reply in the sender's
 * mailbox (Postfix → Dovecot), against the time SMTP took to accept them.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { csvAsExcelWrites } from '../support/files/spreadsheets.ts';
import { startInboundEmbedded } from '../support/inbound.ts';
import { createMailUser, messagesIn, openImap, sendMail } from '../support/mail.ts';
import { servers } from '../support/servers.ts';
import { uploadRows } from '../e2e/uploads-scenarios.ts';
import { ratioMetric, relativeTo, type Reference } from './reference.ts';
import { SFTP_BENCH_ENV, startSftpDrops } from './sftp-rounds.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';

const FILES = Number(process.env.BENCH_INBOUND_FILES ?? 100);
const EMAILS = Number(process.env.BENCH_INBOUND_EMAILS ?? 50);
const ROWS = Number(process.env.BENCH_INBOUND_ROWS ?? 10_000);
const ONLY = process.env.INBOUND_BENCH_ONLY ?? 'sftp';
if (!['sftp', 'email', 'all'].includes(ONLY)) throw new Error(`INBOUND_BENCH_ONLY must be sftp, email or all, not ${ONLY}`);
const ROUNDS = 2;

async function sftpFigures(): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const drops = await startSftpDrops(ROWS);
  const metrics: BenchMetric[] = [];
  const notes: string[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const r = await drops.round(FILES, `r${round}`);
      const load = loadavg()[0].toFixed(1);
      const upload: Reference = { name: "the customer's own SFTP upload of the files", value: round2(r.uploadMs / 1000), unit: 's' };
      const label = `sftp, round ${round + 1}`;
      metrics.push(
        withLoad(ratioMetric(`${label}: ${FILES} files × ${ROWS.toLocaleString('en')} rows → all results in outbox/, as a multiple of the customer's upload`, round2(r.allResultsMs / 1000), upload, { op: '<=', value: 3 }), load),
        { name: `${label}: the customer's upload (put under hidden names)`, value: upload.value, unit: 's', note: `load ${load}` },
        relativeTo({ name: `${label}: all results in outbox/ after the drop`, value: round2(r.allResultsMs / 1000), unit: 's', note: `first result after ${round2(r.firstResultMs / 1000)} s; ${Math.round((FILES * ROWS) / (r.allResultsMs / 1000)).toLocaleString('en')} rows/s; load ${load}` }, { name: 'the same files put with TCP_NODELAY', value: round2(r.noDelayUploadMs / 1000), unit: 's' }),
      );
    }
    notes.push(
      `SFTP: ${FILES} files of ${ROWS.toLocaleString('en')} rows (name, address + 2 other columns, ${Math.round(drops.fileBytes / 1024)} KiB CSV) put under hidden names by the customer's client (ssh2-sftp-client, the reference), then all renamed into inbox/ at once; the time runs from the first rename. Poller: SFTP_POLL_MS ${SFTP_BENCH_ENV.SFTP_POLL_MS}, SFTP_STABLE_MS ${SFTP_BENCH_ENV.SFTP_STABLE_MS} (a file renamed from a hidden name is ready at once, docs/inbound.md), SFTP_CONCURRENCY 4 (default), one drop folder. The ratio to the same files put with TCP_NODELAY (no ~40 ms delayed-ACK pause per round trip) is information: a faster client makes the same service look slower.`,
    );
  } finally {
    await drops.stop();
  }
  return { metrics, notes };
}

async function emailFigures(): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const bytes = csvAsExcelWrites(uploadRows(ROWS).rows, 'utf8-comma');
  const ingest = await createMailUser('ingest', 'robinson.test');
  const sender = await createMailUser('bench', 'customer.test');
  const d = await startInboundEmbedded({ ...SFTP_BENCH_ENV });
  try {
    await runAdminCommand({
      accounts: d.platform.accounts, lists: d.platform.lists, keys: d.platform.keys, logger: silentLogger(),
      inbound: { inbound: d.platform.inbound, secrets: () => { throw new Error('not needed'); } },
    }, 'senders', 'add', [], { org: d.orgId, address: sender.address });
    await d.startInbound('email', {
      IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false',
      IMAP_USER: ingest.address, IMAP_PASSWORD: ingest.password, SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
    });
    const sendStart = performance.now();
    for (let i = 0; i < EMAILS; i++) await sendMail(sender.address, ingest.address, `Liste ${i}`, [{ filename: `liste${i}.csv`, content: bytes }]);
    const sendS = (performance.now() - sendStart) / 1000;
    const imap = await openImap(sender);
    const deadline = Date.now() + 30 * 60_000;
    while ((await messagesIn(imap, 'INBOX')).length < EMAILS) {
      if (Date.now() > deadline) throw new Error('not every reply arrived within 30 minutes');
      await new Promise((r) => setTimeout(r, 500));
    }
    const emailS = (performance.now() - sendStart) / 1000;
    await imap.logout();
    const send: Reference = { name: 'SMTP accepting the messages', value: round2(sendS), unit: 's' };
    return {
      metrics: [
        relativeTo({ name: `email: ${EMAILS} messages → all replies in the sender's mailbox`, value: round2(emailS), unit: 's', note: `from the first message sent; load ${loadavg()[0].toFixed(1)}` }, send),
        { name: 'email: messages per minute', value: round2((EMAILS / emailS) * 60), unit: 'emails/min', ratio: { value: round2(sendS / emailS), of: 'the rate SMTP accepted them' } },
      ],
      notes: ['Email: Postfix delivering into Dovecot (infra/local postfix.sh, dovecot.sh) on this machine, one attachment per message, sent one after the other.'],
    };
  } finally {
    await d.stop();
    for (const user of [ingest, sender]) await user.remove();
  }
}

const bench: Bench = async (): Promise<BenchSection> => {
  const metrics: BenchMetric[] = [];
  const notes: string[] = [];
  for (const part of [ONLY !== 'email' ? sftpFigures : null, ONLY !== 'sftp' ? emailFigures : null]) {
    if (!part) continue;
    const figures = await part();
    metrics.push(...figures.metrics);
    notes.push(...figures.notes);
  }
  const parts = [
    ...(ONLY !== 'email' ? [`${FILES} files × ${ROWS.toLocaleString('en')} rows by SFTP`] : []),
    ...(ONLY !== 'sftp' ? [`${EMAILS} emails × ${ROWS.toLocaleString('en')} rows`] : []),
  ];
  return { title: `Inbound channels: ${parts.join(', ')} (embedded)`, metrics, notes };
};

function withLoad(metric: BenchMetric, load: string): BenchMetric {
  return { ...metric, note: `${metric.note ?? ''}; load ${load}` };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
