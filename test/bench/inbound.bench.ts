/**
 * Inbound channels: 100 files × 10,000 rows dropped at once into one SFTP drop folder →
 * every result in outbox/; 50 emails with a 10,000-row attachment → every reply in the sender's
 * mailbox. Real servers (infra/local: OpenSSH, Postfix → Dovecot), the embedded deployment in
 * this process. Each figure comes with a ratio to something measured in the same run: the time
 * the customer's own SFTP client took to upload the files, and the time SMTP took to accept the
 * emails (the transfer floor the service cannot beat).
 *
 * BENCH_INBOUND_FILES / BENCH_INBOUND_EMAILS / BENCH_INBOUND_ROWS shrink it for a quick run.
 */
import { performance } from 'node:perf_hooks';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { csvAsExcelWrites } from '../support/files/spreadsheets.ts';
import { addDropFolder, INBOUND_TEST_ENV, startInboundEmbedded } from '../support/inbound.ts';
import { createMailUser, messagesIn, openImap, sendMail } from '../support/mail.ts';
import { servers } from '../support/servers.ts';
import { createSftpAccount, namesIn } from '../support/sftp.ts';
import { uploadRows } from '../e2e/uploads-scenarios.ts';
import { relativeTo, type Reference } from './reference.ts';
import type { Bench, BenchSection } from './types.ts';

const FILES = Number(process.env.BENCH_INBOUND_FILES ?? 100);
const EMAILS = Number(process.env.BENCH_INBOUND_EMAILS ?? 50);
const ROWS = Number(process.env.BENCH_INBOUND_ROWS ?? 10_000);

const bench: Bench = async (): Promise<BenchSection> => {
  const bytes = csvAsExcelWrites(uploadRows(ROWS).rows, 'utf8-comma');
  const account = await createSftpAccount();
  const ingest = await createMailUser('ingest', 'robinson.test');
  const sender = await createMailUser('bench', 'customer.test');
  // Production defaults for concurrency; the stability interval as in the tests (the default 10 s
  // would add a constant 10 s).
  const d = await startInboundEmbedded({ SFTP_STABLE_MS: '1000', SFTP_POLL_MS: '500', EMAIL_POLL_MS: '500' });
  try {
    await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, account);
    await runAdminCommand({
      accounts: d.platform.accounts, lists: d.platform.lists, keys: d.platform.keys, logger: silentLogger(),
      inbound: { inbound: d.platform.inbound, secrets: () => { throw new Error('not needed'); } },
    }, 'senders', 'add', [], { org: d.orgId, address: sender.address });
    await d.startInbound('sftp');
    await d.startInbound('email', {
      IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false',
      IMAP_USER: ingest.address, IMAP_PASSWORD: ingest.password, SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
    });

    // SFTP: every file uploaded (hidden name, then renamed, as careful clients do), then all renamed at once.
    const customer = await account.customer();
    const uploadStart = performance.now();
    for (let i = 0; i < FILES; i++) await customer.put(bytes, `/inbox/.f${i}.csv.part`);
    const uploadS = (performance.now() - uploadStart) / 1000;
    const dropStart = performance.now();
    for (let i = 0; i < FILES; i++) await customer.rename(`/inbox/.f${i}.csv.part`, `/inbox/f${i}.csv`);
    while ((await namesIn(customer, '/outbox')).filter((n) => n.endsWith('.result.csv')).length < FILES) {
      await new Promise((r) => setTimeout(r, 500));
    }
    const sftpS = (performance.now() - dropStart) / 1000;

    // Email: 50 messages, each with one attachment, sent one after the other; all replies.
    const sendStart = performance.now();
    for (let i = 0; i < EMAILS; i++) await sendMail(sender.address, ingest.address, `Liste ${i}`, [{ filename: `liste${i}.csv`, content: bytes }]);
    const sendS = (performance.now() - sendStart) / 1000;
    const imap = await openImap(sender);
    while ((await messagesIn(imap, 'INBOX')).length < EMAILS) await new Promise((r) => setTimeout(r, 500));
    const emailS = (performance.now() - sendStart) / 1000;
    await imap.logout();
    const upload: Reference = { name: "the customer's own SFTP upload of the files", value: round(uploadS), unit: 's' };
    const send: Reference = { name: 'SMTP accepting the messages', value: round(sendS), unit: 's' };

    return {
      title: `Inbound channels: ${FILES} files × ${ROWS.toLocaleString('en')} rows by SFTP, ${EMAILS} emails × ${ROWS.toLocaleString('en')} rows (embedded)`,
      metrics: [
        relativeTo({ name: 'sftp: all results in outbox/', value: round(sftpS), unit: 's', note: `from the moment all ${FILES} files appeared in inbox/ (stability interval 1 s included)` }, upload),
        { name: 'sftp: files per minute', value: round((FILES / sftpS) * 60), unit: 'files/min', ratio: { value: round(uploadS / sftpS), of: "the rate of the customer's own SFTP upload" } },
        { name: 'sftp: rows per second', value: Math.round((FILES * ROWS) / sftpS), unit: 'rows/s' },
        relativeTo({ name: 'email: all replies in the sender\'s mailbox', value: round(emailS), unit: 's', note: 'from the first message sent' }, send),
        { name: 'email: messages per minute', value: round((EMAILS / emailS) * 60), unit: 'emails/min', ratio: { value: round(sendS / emailS), of: 'the rate SMTP accepted them' } },
      ],
      notes: [
        `File: ${ROWS} rows of name + address + 2 other columns, ${Math.round(bytes.length / 1024)} KiB CSV. SFTP_CONCURRENCY 4 (default), one drop folder (the poller handles one folder's files one after the other in a visit).`,
        'Servers: OpenSSH sshd (infra/local/sshd.sh), Postfix delivering into Dovecot (postfix.sh, dovecot.sh), on the same machine as the service.',
      ],
    };
  } finally {
    await d.stop();
    await account.remove();
    for (const user of [ingest, sender]) await user.remove();
  }
};

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
