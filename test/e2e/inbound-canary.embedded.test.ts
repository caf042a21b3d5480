import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import type SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { addDropFolder, INBOUND_TEST_ENV, startInboundEmbedded, type InboundEmbedded } from '../support/inbound.ts';
import { attachmentsOf, createMailUser, messagesIn, openImap, sendMail, waitForMessages, type MailUser } from '../support/mail.ts';
import { decoderWithRemainingKeys, scanEmbeddedLog } from '../support/canary-scan.ts';
import { scratchDir } from '../support/files/spreadsheets.ts';
import { createSftpAccount, namesIn, type SftpAccount } from '../support/sftp.ts';
import { servers } from '../support/servers.ts';

const run = promisify(execFile);
const DAY_MS = 86_400_000;

/**
 * The canary (issue 8, DECISIONS §10): a made-up person's name in a dropped file and in an emailed
 * file is found nowhere after the jobs' delete_after: not in the drop folder (read on disk, as
 * root, inside the chroot), the ingest mailbox (Dovecot's Maildir, every folder), Postfix's spool,
 * the service's local spool and work dirs, the inbound services' logs (debug level), the bytes of
 * the embedded database file (with its WAL) nor the messages of the embedded event log (raw, and
 * decoded with the data keys the store still holds: rows and results are sealed). First it
 * is found where it must be (so the search can fail). Time passes by one clock (the inbound
 * services', the projection's and the event log's) moving past delete_after; the jobs are purged
 * by the projection's own retention sweep (every second here) and the rows and results on the log
 * expire by the log's own retention.
 */
describe('canary: a name dropped and emailed is gone everywhere after delete_after, by the real retention', () => {
  const CANARY = `Zqx${Math.random().toString(36).slice(2, 8)}kanarie`;
  let d: InboundEmbedded;
  let account: SftpAccount;
  let customer: SftpClient;
  let ingest: MailUser;
  let sender: MailUser;
  let logFile: string;
  let offsetMs = 0;
  const clock = () => new Date(Date.now() + offsetMs);

  beforeAll(async () => {
    account = await createSftpAccount();
    ingest = await createMailUser('ingest', 'robinson.test');
    sender = await createMailUser('kunde', 'customer.test');
    d = await startInboundEmbedded({ RETENTION_SWEEP_SECONDS: '1' }, clock);
    await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, account);
    await runAdminCommand({
      accounts: d.platform.accounts, lists: d.platform.lists, keys: d.platform.keys, logger: silentLogger(),
      inbound: { inbound: d.platform.inbound, secrets: () => { throw new Error('not needed'); } },
    }, 'senders', 'add', [], { org: d.orgId, address: sender.address });
    logFile = join(await scratchDir('canary-logs'), 'inbound.log');
    const logger = pino({ level: 'debug' }, pino.destination({ dest: logFile, sync: true }));
    await d.startInbound('sftp', {}, { clock, logger });
    await d.startInbound('email', {
      IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false',
      IMAP_USER: ingest.address, IMAP_PASSWORD: ingest.password, SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
    }, { clock, logger });
    customer = await account.customer();
  }, 60_000);
  afterAll(async () => {
    await d?.stop();
    await account?.remove();
    for (const user of [ingest, sender]) await user?.remove();
  });

  it('is found before, and nowhere after delete_after', async () => {
    const csv = Buffer.from(`Navn;Adresse\r\nAnne ${CANARY};Nørregade 7, 2. th, 5000 Odense\r\nIb Berg;Strandvejen 100, 2900 Hellerup\r\n`, 'utf8');
    await customer.put(csv, '/inbox/canary.csv');
    await sendMail(sender.address, ingest.address, 'Liste', [{ filename: 'canary.csv', content: csv }]);

    // Delivered: the result in outbox/, the reply in the sender's mailbox.
    const deadline = Date.now() + 60_000;
    while (!(await namesIn(customer, '/outbox')).includes('canary.result.csv')) {
      if (Date.now() > deadline) throw new Error('no result in outbox/');
      await new Promise((r) => setTimeout(r, 100));
    }
    const senderImap = await openImap(sender);
    await waitForMessages(senderImap, 'INBOX', 1);
    const ingestImap = await openImap(ingest);
    await waitForMessages(ingestImap, 'Processed', 1);
    const claims = await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100);
    const jobIds = claims.filter((c) => c.channel === 'sftp' || c.item.startsWith('attachment:')).map((c) => c.id);
    expect(jobIds).toHaveLength(2);

    const places = [account.localDir, join(ingestMailDir(), ingest.address), await postfixSpool(), d.dataDir];
    expect(await filesHolding(account.localDir, CANARY), 'the archive and the result hold it').not.toEqual([]);
    expect(await filesHolding(join(ingestMailDir(), ingest.address), CANARY), 'the Processed message holds it').not.toEqual([]);
    const database = d.platform.databasePath;
    expect(await databaseFilesHolding(database, CANARY), 'the database file holds it').not.toEqual([]);
    // Rows and results are sealed with the job's data key: found by decoding with the keys the store holds.
    expect(await scanEmbeddedLog(CANARY, database, decoderWithRemainingKeys(d.platform)), 'rows and results on the event log hold it').not.toEqual([]);

    // delete_after passes: one clock moves on; the projection's retention sweep purges the jobs.
    for (const id of jobIds) {
      const job = await d.platform.jobs.getJobById(id);
      expect(new Date(job!.delete_after).getTime()).toBeLessThan(Date.now() + 91 * DAY_MS);
    }
    offsetMs = 92 * DAY_MS;
    const gone = Date.now() + 60_000;
    const statuses = async () => Promise.all(jobIds.map(async (id) => (await d.platform.jobs.getJobById(id))?.status));
    while ((await namesIn(customer, '/outbox')).length + (await namesIn(customer, '/archive')).length > 0
      || (await messagesIn(ingestImap, 'Processed')).length > 0
      || (await statuses()).some((s) => s !== 'deleted')) {
      if (Date.now() > gone) throw new Error('files or messages still there after delete_after');
      await new Promise((r) => setTimeout(r, 200));
    }
    await senderImap.logout();
    await ingestImap.logout();

    for (const place of places) expect(await filesHolding(place, CANARY), place).toEqual([]);
    expect(await databaseFilesHolding(database, CANARY), 'the database file and its WAL').toEqual([]);
    expect(await scanEmbeddedLog(CANARY, database, decoderWithRemainingKeys(d.platform)), 'the event log, raw and decoded with the keys left').toEqual([]);
    expect(await filesHolding(logFile, CANARY), 'inbound logs').toEqual([]);
    expect((await readFile(logFile, 'utf8')).length, 'the services did log').toBeGreaterThan(0);
    for (const id of jobIds) {
      const job = await d.platform.jobs.getJobById(id);
      expect(job).toMatchObject({ status: 'deleted', preview: [] });
      expect(JSON.stringify(job)).not.toContain(CANARY);
      expect((await d.platform.jobs.countResults(id)).processed).toBe(0);
    }
    const states = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).map((c) => c.state);
    expect(states).toEqual([]);
  }, 180_000);
});

/** The database file and its WAL, byte by byte (deleted rows must not linger in free space). */
async function databaseFilesHolding(database: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const path of [database, `${database}-wal`]) found.push(...(await filesHolding(path, needle)));
  return found;
}

function ingestMailDir(): string {
  return join(process.env.ROBINSON_LOCAL ?? join(process.env.TMPDIR ?? '/tmp', 'robinson-local'), 'dovecot', 'mail');
}

async function postfixSpool(): Promise<string> {
  return (await run('bash', [new URL('../../infra/local/postfix.sh', import.meta.url).pathname, 'spool-dir'])).stdout.trim();
}

/**
 * Files under `path` (a file or a directory) whose bytes contain `needle` (UTF-8), also inside
 * base64 MIME parts (mail in Maildir and in the MTA's queue carries attachments that way).
 */
async function filesHolding(path: string, needle: string): Promise<string[]> {
  const info = await stat(path).catch(() => null);
  if (!info) return [];
  if (info.isFile()) {
    const bytes = await readFile(path);
    const inAttachments = attachmentsOf(bytes).some((a) => a.content.includes(Buffer.from(needle, 'utf8')));
    return bytes.includes(Buffer.from(needle, 'utf8')) || inAttachments ? [path] : [];
  }
  if (!info.isDirectory()) return [];
  const found: string[] = [];
  for (const entry of await readdir(path)) found.push(...(await filesHolding(join(path, entry), needle)));
  return found;
}
