/**
 * The canary through the inbound channels (docs/privacy-and-proof.md "Every store"), written once
 * and run by inbound-canary.embedded.test.ts and inbound-canary.distributed.test.ts: a made-up
 * person's name goes in through a dropped file (SFTP), an emailed file (IMAP, replied by SMTP) and
 * a connector's pull (HTTPS export on loopback). It is first found where it must be (so the
 * search can fail), then the jobs' and claims' delete_after pass and the processes' own retention
 * sweeps run; afterwards it is found nowhere: not in the drop folder (read on disk, inside the
 * chroot), the ingest mailbox (Dovecot's Maildir, every folder), Postfix's spool, the deployment's
 * stores (its scan: database files or ClickHouse tables, the event log raw and decoded with the
 * keys left), its DATA_DIR (spool and the channels' work dirs), nor any log line at debug level.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type SftpClient from 'ssh2-sftp-client';
import { expect } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import { startExportServer } from '../support/connector-server.ts';
import { addDropFolder, INBOUND_TEST_ENV } from '../support/inbound.ts';
import { attachmentsOf, createMailUser, messagesIn, openImap, sendMail, waitForMessages } from '../support/mail.ts';
import { servers } from '../support/servers.ts';
import { createSftpAccount, namesIn, dropFile } from '../support/sftp.ts';
import { until } from '../support/until.ts';
import { addConnector, CONNECTOR_AUTH, waitForJobDone, waitForStatus } from './connector-scenario.ts';

const run = promisify(execFile);
const DAY_MS = 86_400_000;

export interface InboundCanaryDeployment {
  platform: Platform;
  orgId: string;
  /** DATA_DIR of every process: the spool and the inbound channels' work dirs are under it. */
  dataDir: string;
  /** Starts an inbound channel of this deployment with these settings (its process or in this one). */
  startChannel(name: 'sftp' | 'email' | 'connectors', env: Record<string, string>, connectorCaFile: { cert: string; certFile: string }): Promise<void>;
  /** Places of the deployment's own stores and logs holding `canary` (database, event log, logs). */
  scan(canary: string): Promise<string[]>;
  /** Time passes beyond the jobs' and claims' delete_after (a clock moved, or their records backdated). */
  passRetention(jobIds: readonly string[], claimIds: readonly string[]): Promise<void>;
}

/**
 * Runs the scenario; what it creates outside the deployment (SFTP account, mail users, export
 * server) is added to `cleanups`, for the test to remove once the deployment has stopped (a
 * running channel still holds the mailbox and the folder).
 */
export async function inboundCanaryScenario(d: InboundCanaryDeployment, cleanups: Array<() => Promise<unknown>>): Promise<void> {
  const canary = `Zqx${Math.random().toString(36).slice(2, 8)}kanarie`;
  const account = await createSftpAccount();
  cleanups.push(() => account.remove());
  const ingest = await createMailUser('ingest', 'robinson.test');
  cleanups.push(() => ingest.remove());
  const sender = await createMailUser('kunde', 'customer.test');
  cleanups.push(() => sender.remove());
  const server = await startExportServer(CONNECTOR_AUTH);
  cleanups.push(() => server.close());
  const imaps: Array<{ logout(): Promise<unknown> }> = [];
  let customer: SftpClient | null = null;
  try {
    await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, account);
    await runAdminCommand({
      accounts: d.platform.accounts, lists: d.platform.lists, keys: d.platform.keys, logger: silentLogger(),
      inbound: { inbound: d.platform.inbound, secrets: () => { throw new Error('not needed'); } },
    }, 'senders', 'add', [], { org: d.orgId, address: sender.address });
    const csv = Buffer.from(`Navn;Adresse\r\nAnne ${canary};Nørregade 7, 2. th, 5000 Odense\r\nIb Berg;Strandvejen 100, 2900 Hellerup\r\n`, 'utf8');
    // An hourly connector: one pull at its start, none again before the test removes it.
    const connectorId = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, server.serve('export/canary.csv', csv, 'text/csv; charset=utf-8'), { every: '3600' });
    await d.startChannel('sftp', {}, server);
    await d.startChannel('email', {
      IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false',
      IMAP_USER: ingest.address, IMAP_PASSWORD: ingest.password, SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
    }, server);
    await d.startChannel('connectors', { CONNECTOR_TICK_MS: '200' }, server);
    customer = await account.customer();
    await dropFile(customer, csv, '/inbox/canary.csv');
    await sendMail(sender.address, ingest.address, 'Liste', [{ filename: 'canary.csv', content: csv }]);

    // Delivered: the result in outbox/, the reply in the sender's mailbox, the connector's job done.
    const sftp = customer;
    await until('the result in outbox/', async () => (await namesIn(sftp, '/outbox')).includes('canary.result.csv'), 90_000, 100);
    const senderImap = await openImap(sender);
    imaps.push(senderImap);
    await waitForMessages(senderImap, 'INBOX', 1);
    const ingestImap = await openImap(ingest);
    imaps.push(ingestImap);
    await waitForMessages(ingestImap, 'Processed', 1);
    const pulled = await waitForStatus(d.platform, connectorId, (s) => s.last_job_id !== null, 'the connector job');
    const connectorJob = await waitForJobDone(d.platform, pulled.last_job_id as string);
    expect(connectorJob.status).toBe('done');
    // Its source gone: no later slot pulls the canary again once time moves on.
    expect(await d.platform.connectors.removeConnector(connectorId, new Date().toISOString())).toBe(true);

    const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.org_id === d.orgId);
    const fileJobIds = claims.filter((c) => c.channel === 'sftp' || c.item.startsWith('attachment:')).map((c) => c.id);
    expect(fileJobIds).toHaveLength(2);
    const jobIds = [...fileJobIds, connectorJob.id];
    for (const id of jobIds) await waitForJobDone(d.platform, id);

    const mailDir = join(ingestMailDir(), ingest.address);
    const places = [account.localDir, mailDir, await postfixSpool(), d.dataDir];
    expect(await filesHolding(account.localDir, canary), 'the archive and the result hold it').not.toEqual([]);
    expect(await filesHolding(mailDir, canary), 'the Processed message holds it').not.toEqual([]);
    const before = await d.scan(canary);
    expect(before.length, 'the stores hold it while the jobs live').toBeGreaterThan(0);
    for (const id of jobIds) {
      const job = await d.platform.jobs.getJobById(id);
      expect(new Date(job!.delete_after).getTime()).toBeLessThan(Date.now() + 91 * DAY_MS);
    }

    // delete_after passes; the retention sweeps of the projection, SFTP and email processes act.
    await d.passRetention(jobIds, claims.map((c) => c.id));
    const statuses = async () => Promise.all(jobIds.map(async (id) => (await d.platform.jobs.getJobById(id))?.status));
    await until('files, messages and jobs gone after delete_after', async () =>
      (await namesIn(sftp, '/outbox')).length + (await namesIn(sftp, '/archive')).length === 0
      && (await messagesIn(ingestImap, 'Processed')).length === 0
      && (await statuses()).every((s) => s === 'deleted'), 90_000, 200);

    for (const place of places) expect(await filesHolding(place, canary), place).toEqual([]);
    expect(await d.scan(canary), 'stores, event log and logs').toEqual([]);
    for (const id of jobIds) {
      const job = await d.platform.jobs.getJobById(id);
      expect(job).toMatchObject({ status: 'deleted', preview: [] });
      expect(JSON.stringify(job)).not.toContain(canary);
      expect((await d.platform.jobs.countResults(id)).processed).toBe(0);
    }
    const left = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.org_id === d.orgId);
    expect(left.map((c) => c.state)).toEqual([]);
  } finally {
    for (const imap of imaps) await imap.logout().catch(() => undefined);
    await customer?.end().catch(() => undefined);
  }
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
export async function filesHolding(path: string, needle: string): Promise<string[]> {
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
