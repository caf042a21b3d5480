import { readFile } from 'node:fs/promises';
import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { makeSpreadsheets, scratchDir } from '../support/files/spreadsheets.ts';
import { startInboundEmbedded, type InboundEmbedded } from '../support/inbound.ts';
import { attachmentsOf, createMailUser, messagesIn, openImap, sendMail, textBodyOf, waitForMessages, type MailUser } from '../support/mail.ts';
import { servers } from '../support/servers.ts';
import { readResultFile, UPLOAD_HEADER, uploadRows } from './uploads-scenarios.ts';
import { VERDICT_HEADER } from '../support/verdict-words.ts';

/**
 * Emailed spreadsheets end to end (docs/decisions.md §15) on the embedded deployment with real
 * mail servers: customers send through Postfix, which delivers into Dovecot; the email service
 * reads the ingest mailbox over IMAP and replies through Postfix; the test reads the customer's
 * mailbox over IMAP as the customer would.
 */
describe('emailed spreadsheets (embedded deployment, Postfix + Dovecot)', () => {
  let d: InboundEmbedded;
  let ingest: MailUser;
  let customer: MailUser;
  let stranger: MailUser;
  let customerImap: ImapFlow;
  let ingestImap: ImapFlow;

  beforeAll(async () => {
    ingest = await createMailUser('ingest', 'robinson.test');
    customer = await createMailUser('kunde', 'customer.test');
    stranger = await createMailUser('fremmed', 'customer.test');
    d = await startInboundEmbedded();
    await runAdminCommand({
      accounts: d.platform.accounts, lists: d.platform.lists, keys: d.platform.keys, logger: silentLogger(),
      inbound: { inbound: d.platform.inbound, secrets: () => { throw new Error('not needed'); } },
    }, 'senders', 'add', [], { org: d.orgId, address: customer.address.toUpperCase(), locale: 'en' });
    await d.startInbound('email', {
      IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false',
      IMAP_USER: ingest.address, IMAP_PASSWORD: ingest.password,
      SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
    });
    customerImap = await openImap(customer);
    ingestImap = await openImap(ingest);
  }, 60_000);
  afterAll(async () => {
    await customerImap?.logout().catch(() => undefined);
    await ingestImap?.logout().catch(() => undefined);
    await d?.stop();
    for (const user of [ingest, customer, stranger]) await user?.remove();
  });

  it('an email with two attachments gets one threaded reply with two result files, every row checked', async () => {
    const { rows, levels } = uploadRows(25);
    const dir = await scratchDir('email-e2e');
    const [csv, xlsx] = await makeSpreadsheets(dir, [
      { name: 'liste.csv', rows, via: 'excel-utf8-bom' },
      { name: 'liste2.xlsx', rows, via: 'exceljs' },
    ]);
    const sent = await sendMail(customer.address, ingest.address, 'Tjek af liste', [
      { filename: 'liste.csv', content: await readFile(csv) },
      { filename: 'liste2.xlsx', content: await readFile(xlsx) },
    ]);

    const [reply] = await waitForMessages(customerImap, 'INBOX', 1);
    expect(reply.from).toBe(ingest.address);
    expect(reply.inReplyTo).toBe(sent);
    expect(reply.subject).toBe('Re: Tjek af liste');
    // The reply says each file's counts (the same job counts the API shows).
    const body = textBodyOf(reply.source);
    expect(body).toMatch(/- liste\.csv: checked, see liste\.result\.csv\r?\n  25 rows: \d+ blocked, \d+ allowed, \d+ for manual review\./);
    const attached = attachmentsOf(reply.source);
    expect(attached.map((a) => a.filename).sort()).toEqual(['liste.result.csv', 'liste2.result.xlsx']);
    const data = rows.slice(1);
    for (const file of attached) {
      const back = await readResultFile(file.content, file.filename.endsWith('.xlsx') ? 'xlsx' : { encoding: 'utf-8', bom: true, delimiter: ';' });
      expect(back[0]).toEqual([...UPLOAD_HEADER, ...VERDICT_HEADER.en]);
      expect(back.slice(1).map((r) => r[0])).toEqual(data.map((r) => r[0]));
      expect(back.slice(1).map((r) => (r[5] === '' ? null : Number(r[5])))).toEqual(levels);
    }
    // The original moved to Processed; nothing waits in INBOX or Processing.
    await waitForMessages(ingestImap, 'Processed', 1);
    expect(await messagesIn(ingestImap, 'INBOX')).toEqual([]);
    expect(await messagesIn(ingestImap, 'Processing')).toEqual([]);
    // Exactly one reply, and one `source: email` job per attachment.
    expect(await messagesIn(customerImap, 'INBOX')).toHaveLength(1);
    const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.item.startsWith('attachment:'));
    expect(claims).toHaveLength(2);
    for (const claim of claims) {
      const job = await d.platform.jobs.getJobById(claim.id);
      expect(job).toMatchObject({ source: 'email', status: 'done', row_count: data.length, org_id: d.orgId });
      expect(body).toContain(`${data.length} rows: ${job!.blocked_count} blocked, ${job!.allowed_count} allowed, ${job!.manual_count} for manual review.`);
    }
  }, 120_000);

  it('a file from an unknown sender is quarantined without a reply', async () => {
    const { rows } = uploadRows(3);
    const dir = await scratchDir('email-e2e-stranger');
    const [csv] = await makeSpreadsheets(dir, [{ name: 'x.csv', rows, via: 'utf8-comma' }]);
    await sendMail(stranger.address, ingest.address, 'Hej', [{ filename: 'x.csv', content: await readFile(csv) }]);
    const [quarantined] = await waitForMessages(ingestImap, 'Quarantine', 1);
    expect(quarantined.from).toBe(stranger.address);
    // A later allowed message is answered, so the stranger's message was passed over for good.
    await sendMail(customer.address, ingest.address, 'Ingen fil', []);
    const replies = await waitForMessages(customerImap, 'INBOX', 2);
    expect(replies.map((r) => r.subject)).toContain('Re: Ingen fil');
    const strangerImap = await openImap(stranger);
    expect(await messagesIn(strangerImap, 'INBOX')).toEqual([]);
    await strangerImap.logout();
    // No job for the stranger's file: the only attachment claims are the first test's two.
    const claims = await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100);
    expect(claims.filter((c) => c.item.startsWith('attachment:'))).toHaveLength(2);
    expect(claims.filter((c) => c.item.startsWith('quarantine:'))).toHaveLength(1);
  }, 90_000);
});
