import { readFile } from 'node:fs/promises';
import type { ImapFlow } from 'imapflow';
import type SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { statusFor } from '../../services/domain/status.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { makeSpreadsheets, scratchDir, type Rows } from '../support/files/spreadsheets.ts';
import { startExportServer, type ExportServer } from '../support/connector-server.ts';
import { INBOUND_TEST_ENV, startSftpDropFolder, type InboundEmbedded, type SftpDropFolder } from '../support/inbound.ts';
import { attachmentsOf, createMailUser, openImap, sendMail, textBodyOf, waitForMessages, type MailUser } from '../support/mail.ts';
import { multipartBody } from '../support/multipart.ts';
import { servers } from '../support/servers.ts';
import { dropFile, waitForNames } from '../support/sftp.ts';
import { addConnector, CONNECTOR_AUTH, expectJobLevels, waitForJobDone, waitForStatus } from './connector-scenario.ts';
import { uploadRows } from './uploads-scenarios.ts';

/**
 * A column mapping saved once applies to its header layout on every channel (docs/inbound.md
 * "Saved column mappings on every channel"): a CRM export headed "Kundenr." / "Kunde" / "Sted" /
 * "Bemærkning" has no column the guesser reads as a name, so through SFTP and email it is refused
 * with the "not recognised" explanation (nothing checked, no job). Once its mapping is saved
 * through the API (from an uploaded draft of the same export), the next file through the SFTP
 * folder and the next emailed one (headers in other case and spacing) are checked with it: the
 * list members among the rows blocked; so is a connector's export. A mapping kept to uploads
 * only is not used by SFTP. Real OpenSSH, Postfix and Dovecot, an HTTPS export server on
 * loopback; the embedded deployment in this process.
 */
describe('saved column mappings on SFTP and email: unguessable headers refused without one, checked with it', () => {
  let folder: SftpDropFolder;
  let d: InboundEmbedded;
  let customer: SftpClient;
  let folderId: string;
  let ingest: MailUser;
  let sender: MailUser;
  let senderImap: ImapFlow;
  let exports: ExportServer;

  const HEADER = ['Kundenr.', 'Kunde', 'Sted', 'Bemærkning'];
  /** uploadRows' people (whose list levels are known) under headers the guesser cannot read as a name. */
  const crmExport = (header: string[], count: number) => {
    const { rows, levels } = uploadRows(count);
    return { rows: [header, ...rows.slice(1)] as Rows, levels };
  };

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
    exports = await startExportServer(CONNECTOR_AUTH);
  }, 90_000);
  afterAll(async () => {
    await senderImap?.logout().catch(() => undefined);
    await folder?.stop();
    await exports?.close();
    for (const user of [ingest, sender]) await user?.remove();
  });

  const api = async (path: string, init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> } = {}) => {
    const answer = await fetch(`${d.baseUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${d.liveKey}`, ...init.headers } });
    return { status: answer.status, body: (await answer.json()) as Record<string, any> };
  };
  /** Uploads `bytes` as a draft through the API and saves `mapping` for its header row. */
  const saveMappingOf = async (filename: string, bytes: Buffer, mapping: Record<string, number | string>, channels?: string[]) => {
    const form = await multipartBody([{ name: 'file', value: { bytes, filename } }]);
    const draft = await api('/v2/check-jobs', { method: 'POST', headers: { 'Content-Type': form.contentType }, body: new Uint8Array(form.body) });
    expect([draft.status, draft.body.status]).toEqual([202, 'draft']);
    const saved = await api('/v2/column-mappings', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'CRM-udtræk', job_id: draft.body.id, column_mapping: mapping, ...(channels ? { channels } : {}) }),
    });
    expect(saved.status).toBe(201);
    return saved.body;
  };
  const claimsOf = async (prefix: string) =>
    (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.item.startsWith(prefix));
  const blockedOf = async (levels: Array<number | null>) => {
    const org = (await d.platform.accounts.listOrganisations()).find((o) => o.id === d.orgId)!;
    // The rows' known list levels under the organisation's stop line (standard policy), as the domain rules them.
    return levels.filter((level) => statusFor(level, 'standard', org.stop_level) === 'blocked').length;
  };

  it('without a saved mapping: the SFTP file and the emailed one are refused as not recognised; no job', async () => {
    const dir = await scratchDir('saved-mapping-none');
    const { rows } = crmExport(HEADER, 16);
    const [csv, xlsx] = await makeSpreadsheets(dir, [
      { name: 'kunder-uden.csv', rows, via: 'excel-1252-semicolon' },
      { name: 'liste-uden.xlsx', rows, via: 'exceljs' },
    ]);
    await dropFile(customer, await readFile(csv), '/inbox/kunder-uden.csv');
    await waitForNames(customer, '/failed', ['kunder-uden.csv', 'kunder-uden.error.txt']);
    const text = ((await customer.get('/failed/kunder-uden.error.txt')) as Buffer).toString('utf8');
    expect(text).toMatch(/^Filen "kunder-uden.csv" blev ikke tjekket: Ingen kolonne blev genkendt som navn\..*Intet er tjekket, og intet er faktureret\./s);
    const [refused] = (await claimsOf('kunder-uden.csv')).filter((c) => c.source_ref === folderId);
    expect(await d.platform.jobs.getJobById(refused.id)).toBeNull();

    await sendMail(sender.address, ingest.address, 'Uden gemte kolonner', [{ filename: 'liste-uden.xlsx', content: await readFile(xlsx) }]);
    const [reply] = await waitForMessages(senderImap, 'INBOX', 1);
    expect(attachmentsOf(reply.source)).toEqual([]);
    expect(textBodyOf(reply.source)).toContain('- liste-uden.xlsx: ikke tjekket. Ingen kolonne blev genkendt som navn.');
    const mailed = await claimsOf('attachment:');
    expect(mailed).toHaveLength(1);
    expect(await d.platform.jobs.getJobById(mailed[0].id)).toBeNull();
  }, 180_000);

  it('saved once through the API: the next SFTP file and the next emailed one (other case and spacing) are checked with it, members blocked', async () => {
    const dir = await scratchDir('saved-mapping-used');
    const november = crmExport(HEADER, 4);
    const december = crmExport(['KUNDENR.', ' kunde', 'Sted', 'bemærkning '], 16);
    const january = crmExport(['Kundenr.', 'Kunde', '  STED', 'Bemærkning'], 24);
    const [novemberCsv, decemberCsv, januaryXlsx] = await makeSpreadsheets(dir, [
      { name: 'november.csv', rows: november.rows, via: 'excel-utf8-bom' },
      { name: 'kunder.csv', rows: december.rows, via: 'excel-1252-semicolon' },
      { name: 'liste.xlsx', rows: january.rows, via: 'exceljs' },
    ]);
    const saved = await saveMappingOf('november.csv', await readFile(novemberCsv), { header_row: 0, external_id: 'Kundenr.', name: 'Kunde', address: 'Sted' });
    const mapping = { header_row: 0, external_id: 0, name: 1, address: 2 };
    expect(saved).toMatchObject({ column_mapping: mapping, channels: null });

    await dropFile(customer, await readFile(decemberCsv), '/inbox/kunder.csv');
    await waitForNames(customer, '/outbox', ['kunder.result.csv', 'kunder.result.txt']);
    const [checked] = (await claimsOf('kunder.csv')).filter((c) => c.source_ref === folderId);
    const sftpJob = await d.platform.jobs.getJobById(checked.id);
    expect(sftpJob).toMatchObject({ source: 'sftp', status: 'done', row_count: 16, column_mapping: mapping, blocked_count: await blockedOf(december.levels) });
    expect(sftpJob!.blocked_count).toBeGreaterThan(0);

    await sendMail(sender.address, ingest.address, 'Med gemte kolonner', [{ filename: 'liste.xlsx', content: await readFile(januaryXlsx) }]);
    const replies = await waitForMessages(senderImap, 'INBOX', 2);
    const reply = replies.find((r) => r.subject === 'Sv: Med gemte kolonner')!;
    expect(attachmentsOf(reply.source).map((a) => a.filename)).toEqual(['liste.result.xlsx']);
    const mailed = (await claimsOf('attachment:')).map((c) => c.id);
    const emailJobs = (await Promise.all(mailed.map((id) => d.platform.jobs.getJobById(id)))).filter((job) => job !== null);
    expect(emailJobs).toHaveLength(1);
    expect(emailJobs[0]).toMatchObject({ source: 'email', status: 'done', row_count: 24, column_mapping: mapping, blocked_count: await blockedOf(january.levels) });
    expect(textBodyOf(reply.source)).toContain(`${emailJobs[0].blocked_count} blokeret`);
  }, 180_000);

  it('a connector\'s export with the same headers is checked with it too (the mapping saved above, for every channel)', async () => {
    const { rows, levels } = crmExport(['kundenr.', 'Kunde', 'Sted ', 'Bemærkning'], 12);
    const csv = `${rows.map((r) => r.map((c) => c ?? '').join(';')).join('\r\n')}\r\n`;
    const url = exports.serve('crm/kunder.csv', csv, 'text/csv; charset=utf-8');
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, url);
    await d.startInbound('connectors', { CONNECTOR_TICK_MS: '200' }, { connectorCa: exports.cert });
    const status = await waitForStatus(d.platform, id, (s) => s.last_job_id !== null, 'a connector job');
    const job = await waitForJobDone(d.platform, status.last_job_id as string);
    expect(job.column_mapping).toEqual({ header_row: 0, external_id: 0, name: 1, address: 2 });
    // Every row's level as the list gives it: the name and address columns were the saved ones.
    await expectJobLevels(d.platform, job, levels);
    expect(job.blocked_count).toBe(await blockedOf(levels));
  }, 120_000);

  it('a mapping kept to uploads is not used by the SFTP folder: its file is refused as before', async () => {
    const dir = await scratchDir('saved-mapping-upload-only');
    // Another export of the same system (its last column differs): another header row.
    const header = ['Kundenr.', 'Kunde', 'Sted', 'Note'];
    const { rows } = crmExport(header, 8);
    const [csv] = await makeSpreadsheets(dir, [{ name: 'medlemmer.csv', rows, via: 'excel-utf8-bom' }]);
    const saved = await saveMappingOf('medlemmer.csv', await readFile(csv), { header_row: 0, name: 1, address: 2 }, ['upload']);
    expect((await api(`/v2/column-mappings`)).body.data).toHaveLength(2);
    expect(saved.channels).toEqual(['upload']);
    await dropFile(customer, await readFile(csv), '/inbox/medlemmer.csv');
    await waitForNames(customer, '/failed', ['kunder-uden.csv', 'kunder-uden.error.txt', 'medlemmer.csv', 'medlemmer.error.txt']);
    const [refused] = (await claimsOf('medlemmer.csv')).filter((c) => c.source_ref === folderId);
    expect(await d.platform.jobs.getJobById(refused.id)).toBeNull();
  }, 180_000);
});
