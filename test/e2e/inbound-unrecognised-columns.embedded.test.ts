import { readFile } from 'node:fs/promises';
import type { ImapFlow } from 'imapflow';
import type SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { makeSpreadsheets, scratchDir } from '../support/files/spreadsheets.ts';
import { startSftpDropFolder, type InboundEmbedded, type SftpDropFolder } from '../support/inbound.ts';
import { attachmentsOf, createMailUser, messagesIn, openImap, sendMail, textBodyOf, waitForMessages, type MailUser } from '../support/mail.ts';
import { servers } from '../support/servers.ts';
import { namesIn, dropFile } from '../support/sftp.ts';
import { uploadRows } from './uploads-scenarios.ts';

/**
 * No silent failure through SFTP and email (docs/inbound.md "Files refused for their warnings"):
 * a customer's file whose address column is not recognised (headed "Lokation", the house number
 * before the street) is not checked as 30 manual verdicts and billed; it comes back explained, in
 * failed/ and in a reply in the sender's language, with no job and no usage. A good file through
 * the same folder, checked and billed, shows the channel and the billing work (real OpenSSH,
 * Postfix and Dovecot).
 */
describe('files whose address column is not recognised: explained, nothing checked, nothing billed (SFTP + email)', () => {
  let folder: SftpDropFolder;
  let d: InboundEmbedded;
  let customer: SftpClient;
  let folderId: string;
  let ingest: MailUser;
  let sender: MailUser;
  let senderImap: ImapFlow;

  const unrecognised = () => [
    ['Navn', 'Lokation', 'Postnr', 'By'],
    ...Array.from({ length: 30 }, (_, i) => [`Anne Hansen ${i}`, `${i + 1} Vestergade`, '8000', 'Aarhus C']),
  ];

  beforeAll(async () => {
    folder = await startSftpDropFolder(async () => ({ locale: 'da' }));
    ({ d, customer, folderId } = folder);
    ingest = await createMailUser('ingest', 'robinson.test');
    sender = await createMailUser('kunde', 'customer.test');
    await runAdminCommand({
      accounts: d.platform.accounts, lists: d.platform.lists, keys: d.platform.keys, logger: silentLogger(),
      inbound: { inbound: d.platform.inbound, secrets: () => { throw new Error('not needed'); } },
    }, 'senders', 'add', [], { org: d.orgId, address: sender.address, locale: 'da' });
    await d.startInbound('email', {
      IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false',
      IMAP_USER: ingest.address, IMAP_PASSWORD: ingest.password,
      SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
    });
    senderImap = await openImap(sender);
  }, 90_000);
  afterAll(async () => {
    await senderImap?.logout().catch(() => undefined);
    await folder?.stop();
    for (const user of [ingest, sender]) await user?.remove();
  });

  it('SFTP: the error file in failed/ explains in Danish and English; no job; a good file beside it is checked', async () => {
    const dir = await scratchDir('inbound-unrecognised-sftp');
    const { rows: good } = uploadRows(12);
    const [bad, fine] = await makeSpreadsheets(dir, [
      { name: 'kunder.csv', rows: unrecognised(), via: 'excel-1252-semicolon' },
      { name: 'gode.csv', rows: good, via: 'excel-1252-semicolon' },
    ]);
    await dropFile(customer, await readFile(bad), '/inbox/kunder.csv');
    await dropFile(customer, await readFile(fine), '/inbox/gode.csv');
    await waitForNames(customer, '/failed', ['kunder.csv', 'kunder.error.txt']);
    await waitForNames(customer, '/outbox', ['gode.result.csv', 'gode.result.txt']);
    const text = ((await customer.get('/failed/kunder.error.txt')) as Buffer).toString('utf8');
    // The folder's language first, then the other.
    expect(text).toMatch(/^Filen "kunder.csv" blev ikke tjekket: Ingen kolonne blev genkendt som adresse\. .*Intet er tjekket, og intet er faktureret\. .*\n\nThe file "kunder.csv" was not checked: No column was recognised as the address\. .*Nothing was checked and nothing was billed\. .*\n$/s);
    expect(text).not.toContain('Vestergade');
    expect(await namesIn(customer, '/outbox')).toEqual(['gode.result.csv', 'gode.result.txt']);

    const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.source_ref === folderId);
    const refused = claims.find((c) => c.item.startsWith('kunder.csv'));
    const checked = claims.find((c) => c.item.startsWith('gode.csv'));
    expect(refused?.outputs.some((o) => o.includes('failed/'))).toBe(true);
    expect(await d.platform.jobs.getJobById(refused!.id)).toBeNull();
    expect(await d.platform.jobs.getJobById(checked!.id)).toMatchObject({ status: 'done', row_count: 12 });
  }, 120_000);

  it('email: the reply, in the sender\'s language, says the file was not checked and why, with no attachment; no job', async () => {
    const dir = await scratchDir('inbound-unrecognised-email');
    const [bad] = await makeSpreadsheets(dir, [{ name: 'liste.xlsx', rows: unrecognised(), via: 'exceljs' }]);
    const sent = await sendMail(sender.address, ingest.address, 'Tjek venligst', [{ filename: 'liste.xlsx', content: await readFile(bad) }]);
    const [reply] = await waitForMessages(senderImap, 'INBOX', 1);
    expect(reply.inReplyTo).toBe(sent);
    expect(reply.subject).toBe('Sv: Tjek venligst');
    expect(attachmentsOf(reply.source)).toEqual([]);
    const body = textBodyOf(reply.source);
    expect(body).toContain('- liste.xlsx: ikke tjekket. Ingen kolonne blev genkendt som adresse.');
    expect(body).toContain('Intet er tjekket, og intet er faktureret.');
    expect(body).not.toContain('vedhæftet');
    expect(body).not.toContain('Vestergade');
    const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.item.startsWith('attachment:'));
    expect(claims).toHaveLength(1);
    expect(await d.platform.jobs.getJobById(claims[0].id)).toBeNull();
    expect(await messagesIn(senderImap, 'INBOX')).toHaveLength(1);
  }, 120_000);

  it('billed: only the good file\'s 12 rows, as one job', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const deadline = Date.now() + 90_000;
    let usage = (await d.platform.usage.monthly(month)).filter((t) => t.org_id === d.orgId);
    // The projection records a job's usage at completion; the result in outbox/ may come first.
    while (usage.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      usage = (await d.platform.usage.monthly(month)).filter((t) => t.org_id === d.orgId);
    }
    expect(usage).toEqual([expect.objectContaining({ kind: 'job_row', count: 12, entries: 1 })]);
  }, 120_000);
});

/** Lists `folder` until exactly `names` are there (the file's arrival is the signal), 60 s at most. */
async function waitForNames(client: SftpClient, folder: string, names: string[]): Promise<string[]> {
  const want = [...names].sort();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = await namesIn(client, folder);
    if (JSON.stringify(seen) === JSON.stringify(want)) return seen;
    if (Date.now() > deadline) throw new Error(`${folder} holds ${JSON.stringify(seen)}, expected ${JSON.stringify(want)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
