import { readFile } from 'node:fs/promises';
import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { sql } from '../../services/platform/store/clickhouse/sql.ts';
import { startDistributed, type DistributedDeployment, type ServiceProcess } from '../support/deployments.ts';
import { makeSpreadsheets, scratchDir } from '../support/files/spreadsheets.ts';
import { INBOUND_TEST_ENV, seededOrgId } from '../support/inbound.ts';
import { attachmentsOf, createMailUser, messagesIn, openImap, sendMail, waitForMessages, type MailUser } from '../support/mail.ts';
import { servers } from '../support/servers.ts';
import { readResultFile, uploadRows } from './uploads-scenarios.ts';

/**
 * Exactly once across crashes for emailed spreadsheets (docs/decisions.md §15): the email ingest
 * runs as its own process (`npm run service -- email`) on the distributed deployment, reading a
 * real Dovecot mailbox that Postfix delivers into, and is killed with SIGKILL (1) after it claimed
 * a message (moved it to Processing) and before any job exists, (2) after both attachments' jobs
 * exist and before the reply is sent. A new process finishes the work: one job per attachment,
 * one reply carrying both result files, every row checked.
 */
describe('email ingest killed with SIGKILL (distributed deployment, Postfix + Dovecot)', () => {
  let d: DistributedDeployment;
  let ingest: MailUser;
  let customer: MailUser;
  let customerImap: ImapFlow;
  let ingestImap: ImapFlow;
  let orgId: string;
  let conn: ClickHouseConnection;
  let dir: string;
  let imapEnv: Record<string, string>;
  const ROWS = 20_000;

  beforeAll(async () => {
    ingest = await createMailUser('ingest', 'robinson.test');
    customer = await createMailUser('kunde', 'customer.test');
    d = await startDistributed(null, { env: { ...INBOUND_TEST_ENV } });
    orgId = await seededOrgId(d.platform);
    await runAdminCommand({
      accounts: d.platform.accounts, lists: d.platform.lists, keys: d.platform.keys, logger: silentLogger(),
      inbound: { inbound: d.platform.inbound, secrets: () => { throw new Error('not needed'); } },
    }, 'senders', 'add', [], { org: orgId, address: customer.address, locale: 'en' });
    imapEnv = {
      IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false',
      IMAP_USER: ingest.address, IMAP_PASSWORD: ingest.password,
      SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
    };
    customerImap = await openImap(customer);
    ingestImap = await openImap(ingest);
    conn = createClickHouseConnection({ url: servers.clickhouseUrl, database: d.env.CLICKHOUSE_DATABASE });
    dir = await scratchDir('email-crash');
  }, 120_000);
  afterAll(async () => {
    await customerImap?.logout().catch(() => undefined);
    await ingestImap?.logout().catch(() => undefined);
    await conn?.close();
    await d?.stop();
    for (const user of [ingest, customer]) await user?.remove();
  });

  /** Every job of the organisation, straight from the table (not through the store's lookups). */
  async function jobsOfOrg(): Promise<Array<{ id: string; filename: string; source: string }>> {
    const rows = await conn.rows<{ id: string; doc: string }>(sql`SELECT id, doc FROM ${conn.table('check_jobs')} FINAL WHERE org_id = ${orgId} ORDER BY id`);
    return rows.map((r) => {
      const doc = JSON.parse(r.doc) as { filename: string; source: string };
      return { id: r.id, filename: doc.filename, source: doc.source };
    });
  }

  async function intakeClosed(jobId: string): Promise<boolean> {
    const [row] = await conn.rows<{ n: string }>(sql`SELECT count() AS n FROM ${conn.table('check_job_intakes')} WHERE job_id = ${jobId} AND closed = 1`);
    return Number(row.n) > 0;
  }

  /** A CSV and an xlsx of ROWS people each, sent by the customer through Postfix. */
  async function sendTwoAttachments(subject: string, base: string): Promise<{ messageId: string; levels: Array<number | null> }> {
    const { rows, levels } = uploadRows(ROWS);
    const [csv, xlsx] = await makeSpreadsheets(dir, [
      { name: `${base}.csv`, rows, via: 'utf8-comma' },
      { name: `${base}.xlsx`, rows, via: 'exceljs' },
    ]);
    const messageId = await sendMail(customer.address, ingest.address, subject, [
      { filename: `${base}.csv`, content: await readFile(csv) },
      { filename: `${base}.xlsx`, content: await readFile(xlsx) },
    ]);
    return { messageId, levels };
  }

  /** How many messages the ingest mailbox's folder holds (STATUS: cheap enough to ask every few ms). */
  async function countIn(folder: string): Promise<number> {
    const exists = (await ingestImap.list()).some((m) => m.path === folder);
    if (!exists) return 0;
    const status = await ingestImap.status(folder, { messages: true });
    return status ? status.messages ?? 0 : 0;
  }

  async function kill(p: ServiceProcess): Promise<void> {
    p.child.kill('SIGKILL');
    await p.exited;
  }

  function running(): ServiceProcess[] {
    return d.processes.filter((p) => p.name === 'email' && p.child.exitCode === null && p.child.signalCode === null);
  }

  /** The reply to `messageId` holds two result files, each with every row and its level. */
  async function expectReply(messageId: string, base: string, levels: Array<number | null>, replyCount: number): Promise<void> {
    const replies = await waitForMessages(customerImap, 'INBOX', replyCount);
    const reply = replies.filter((r) => r.inReplyTo === messageId);
    expect(reply, 'one reply to the message').toHaveLength(1);
    const attached = attachmentsOf(reply[0].source);
    expect(attached.map((a) => a.filename).sort()).toEqual([`${base}.result.csv`, `${base}.result.xlsx`]);
    for (const file of attached) {
      const back = await readResultFile(file.content, file.filename.endsWith('.xlsx') ? 'xlsx' : { encoding: 'utf-8', bom: false, delimiter: ',' });
      expect(back).toHaveLength(ROWS + 1);
      expect(back.slice(1).map((r) => (r[5] === '' ? null : Number(r[5])))).toEqual(levels);
    }
    const jobs = (await jobsOfOrg()).filter((j) => j.filename.startsWith(`${base}.`));
    expect(jobs.map((j) => j.filename).sort(), 'one job per attachment').toEqual([`${base}.csv`, `${base}.xlsx`]);
    expect(jobs.every((j) => j.source === 'email')).toBe(true);
  }

  it('killed after the claim, before any job exists: one job per attachment, one reply', async () => {
    const email = await d.spawnService('email', imapEnv);
    const { messageId, levels } = await sendTwoAttachments('Liste 1', 'first');
    const deadline = Date.now() + 60_000;
    while ((await countIn('Processing')) === 0) {
      if (Date.now() > deadline) throw new Error('the message was not claimed within 60 s');
      await new Promise((r) => setTimeout(r, 5));
    }
    await kill(email);
    expect(await jobsOfOrg(), 'the kill came before any job existed').toEqual([]);

    await d.spawnService('email', imapEnv);
    await expectReply(messageId, 'first', levels, 1);
    await waitForMessages(ingestImap, 'Processed', 1);
    expect(await countIn('Processing')).toBe(0);
  }, 240_000);

  it('killed after the jobs exist, before the reply: still one job per attachment, one reply', async () => {
    const { messageId, levels } = await sendTwoAttachments('Liste 2', 'second');
    const deadline = Date.now() + 90_000;
    const created = async () => {
      const jobs = (await jobsOfOrg()).filter((j) => j.filename.startsWith('second.'));
      if (jobs.length < 2) return false;
      for (const job of jobs) if (!(await intakeClosed(job.id))) return false;
      return true;
    };
    while (!(await created())) {
      if (Date.now() > deadline) throw new Error('the jobs were not created within 90 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    for (const p of running()) await kill(p);
    const replied = (await messagesIn(customerImap, 'INBOX')).filter((m) => m.inReplyTo === messageId);
    expect(replied, 'the kill came before the reply').toEqual([]);

    await d.spawnService('email', imapEnv);
    await expectReply(messageId, 'second', levels, 2);
    await waitForMessages(ingestImap, 'Processed', 2);
    // The first message's reply was not sent again by either restart: two messages, two replies.
    expect(await messagesIn(customerImap, 'INBOX')).toHaveLength(2);
    expect((await jobsOfOrg()).map((j) => j.filename).sort()).toEqual(['first.csv', 'first.xlsx', 'second.csv', 'second.xlsx']);
    const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.channel === 'email');
    expect(claims.map((c) => c.state)).toEqual(Array(6).fill('delivered'));
  }, 240_000);
});
