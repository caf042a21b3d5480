import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type SftpClient from 'ssh2-sftp-client';
import { makeSpreadsheets, scratchDir } from '../support/files/spreadsheets.ts';
import { startSftpDropFolder, type InboundEmbedded, type SftpDropFolder } from '../support/inbound.ts';
import { namesIn, dropFile } from '../support/sftp.ts';
import { readResultFile, UPLOAD_HEADER, uploadRows } from './uploads-scenarios.ts';
import { VERDICT_HEADER } from '../support/verdict-words.ts';

/**
 * SFTP drop folders end to end (docs/decisions.md §15) on the embedded deployment: a customer
 * drops a CSV (as Excel writes it) and an xlsx (exceljs) into inbox/ of a chrooted account on
 * OpenSSH's sshd; the poller claims them, makes one `source: sftp` job each, and the result files
 * come back in outbox/ with every row checked; the originals go to archive/.
 */
describe('SFTP drop folder (embedded deployment, OpenSSH)', () => {
  let folder: SftpDropFolder;
  let d: InboundEmbedded;
  let customer: SftpClient;
  let folderId: string;

  beforeAll(async () => {
    folder = await startSftpDropFolder(async () => ({ locale: 'en' }));
    ({ d, customer, folderId } = folder);
  }, 60_000);
  afterAll(async () => folder?.stop());

  it('a CSV and an xlsx dropped by an SFTP client come back in outbox/ with every row checked', async () => {
    const { rows, levels } = uploadRows(41);
    const dir = await scratchDir('sftp-e2e');
    const [csv, xlsx] = await makeSpreadsheets(dir, [
      { name: 'kunder uge 12.csv', rows, via: 'excel-1252-semicolon' },
      { name: 'kunder.xlsx', rows, via: 'exceljs' },
    ]);
    await dropFile(customer, await readFile(csv), '/inbox/kunder uge 12.csv');
    await dropFile(customer, await readFile(xlsx), '/inbox/kunder.xlsx');

    const outbox = await waitForNames(customer, '/outbox', ['kunder uge 12.result.csv', 'kunder uge 12.result.txt', 'kunder.result.txt', 'kunder.result.xlsx']);
    expect(outbox).toEqual(['kunder uge 12.result.csv', 'kunder uge 12.result.txt', 'kunder.result.txt', 'kunder.result.xlsx']);
    expect(await namesIn(customer, '/inbox')).toEqual([]);
    expect(await namesIn(customer, '/archive')).toEqual(['kunder uge 12.csv', 'kunder.xlsx']);
    expect(await namesIn(customer, '/failed')).toEqual([]);

    const data = rows.slice(1);
    const fromCsv = await readResultFile((await customer.get('/outbox/kunder uge 12.result.csv')) as Buffer, { encoding: 'windows-1252', bom: false, delimiter: ';' });
    const fromXlsx = await readResultFile((await customer.get('/outbox/kunder.result.xlsx')) as Buffer, 'xlsx');
    for (const back of [fromCsv, fromXlsx]) {
      expect(back[0]).toEqual([...UPLOAD_HEADER, ...VERDICT_HEADER.en]);
      expect(back).toHaveLength(rows.length);
      expect(back.slice(1).map((r) => r[0])).toEqual(data.map((r) => r[0]));
      expect(back.slice(1).map((r) => (r[5] === '' ? null : Number(r[5])))).toEqual(levels);
      expect(back.slice(1).every((r) => ['Allowed', 'Blocked', 'Manual review'].includes(r[4]) && r[8] === '2026-01-01')).toBe(true);
    }
    // Beside each result, its counts (the folder's language first), the same as the job's.
    const job = await d.platform.jobs.getJobById((await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).find((c) => c.source_ref === folderId && c.item.startsWith('kunder.xlsx'))!.id);
    const summary = ((await customer.get('/outbox/kunder.result.txt')) as Buffer).toString('utf8');
    expect(summary).toMatch(/^The file "kunder.xlsx" was checked against the Robinson list \(published 2026-01-01\) at \d{4}-\d\d-\d\d \d\d:\d\d UTC\.\n/);
    expect(summary).toContain(`${data.length} rows: ${job!.blocked_count} blocked, ${job!.allowed_count} allowed, ${job!.manual_count} for manual review.\nThe result is in kunder.result.xlsx.`);
    expect(summary).toContain(`${data.length} rækker: ${job!.blocked_count} blokeret, ${job!.allowed_count} tilladt, ${job!.manual_count} til manuel vurdering.`);
    expect(job!.blocked_count + job!.allowed_count + job!.manual_count).toBe(data.length);

    // One job per file, from the drop folder, with the file's name; each claim delivered.
    const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.source_ref === folderId);
    expect(claims).toHaveLength(2);
    for (const claim of claims) {
      expect(claim.state).toBe('delivered');
      const job = await d.platform.jobs.getJobById(claim.id);
      expect(job).toMatchObject({ source: 'sftp', status: 'done', row_count: data.length, org_id: d.orgId });
      expect(['kunder uge 12.csv', 'kunder.xlsx']).toContain(job?.filename);
    }
  }, 90_000);

  it('a file that is not a spreadsheet is refused into failed/ with the reason in English and Danish', async () => {
    await dropFile(customer, Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x13]), '/inbox/noise.csv');
    await waitForNames(customer, '/failed', ['noise.csv', 'noise.error.txt']);
    const text = ((await customer.get('/failed/noise.error.txt')) as Buffer).toString('utf8');
    expect(text).toMatch(/^The file "noise.csv" was not checked: .+\n\nFilen "noise.csv" blev ikke tjekket: .+\n$/);
    expect(await namesIn(customer, '/inbox')).toEqual([]);
  }, 60_000);

  it('an upload still being written is never claimed half-way', async () => {
    const { rows, levels } = uploadRows(600);
    const bytes = Buffer.from(`${rows.map((r) => r.map((c) => c ?? '').join(';')).join('\r\n')}\r\n`, 'utf8');
    // Written in 12 pieces, 250 ms apart (the stability interval is 600 ms): the file keeps growing.
    const piece = Math.ceil(bytes.length / 12);
    let writing = true;
    const slowly = Readable.from((async function* () {
      for (let at = 0; at < bytes.length; at += piece) {
        yield bytes.subarray(at, at + piece);
        await new Promise((r) => setTimeout(r, 250));
      }
    })());
    const upload = customer.put(slowly, '/inbox/slow.csv').finally(() => { writing = false; });
    const seenWhileWriting = new Set<string>();
    while (writing) {
      for (const name of await namesIn(customer, '/inbox')) seenWhileWriting.add(name);
      await new Promise((r) => setTimeout(r, 50));
    }
    await upload;
    expect([...seenWhileWriting], 'never claimed while growing').toEqual(['slow.csv']);
    await waitForNames(customer, '/outbox', ['kunder uge 12.result.csv', 'kunder uge 12.result.txt', 'kunder.result.txt', 'kunder.result.xlsx', 'slow.result.csv', 'slow.result.txt']);
    const back = await readResultFile((await customer.get('/outbox/slow.result.csv')) as Buffer, { encoding: 'utf-8', bom: false, delimiter: ';' });
    expect(back).toHaveLength(rows.length);
    expect(back.slice(1).map((r) => (r[5] === '' ? null : Number(r[5])))).toEqual(levels);
  }, 60_000);

  it('a file dropped again under a name whose outputs exist gets its own names (the claim id in them); nothing is replaced', async () => {
    const firstResult = (await customer.get('/outbox/kunder uge 12.result.csv')) as Buffer;
    const firstError = (await customer.get('/failed/noise.error.txt')) as Buffer;
    const { rows } = uploadRows(5);
    const [csv] = await makeSpreadsheets(await scratchDir('sftp-e2e-again'), [{ name: 'kunder uge 12.csv', rows, via: 'excel-1252-semicolon' }]);
    await dropFile(customer, await readFile(csv), '/inbox/kunder uge 12.csv');
    await dropFile(customer, Buffer.from([0x00, 0x01, 0x02, 0xff]), '/inbox/noise.csv');
    const claimOf = async (item: string) => {
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.source_ref === folderId && c.item.startsWith(`${item}.`));
        const newest = claims.find((c) => c.state === 'delivered' && c.outputs.some((o) => o.includes(c.id.slice(0, 8))));
        if (newest) return newest.id.slice(0, 8);
      }
      throw new Error(`no second claim of ${item} delivered`);
    };
    const [csvId, noiseId] = [await claimOf('kunder uge 12.csv'), await claimOf('noise.csv')];
    expect(await namesIn(customer, '/outbox')).toEqual([
      'kunder uge 12.result.csv', 'kunder uge 12.result.txt', `kunder uge 12.${csvId}.result.csv`, `kunder uge 12.${csvId}.result.txt`,
      'kunder.result.txt', 'kunder.result.xlsx', 'slow.result.csv', 'slow.result.txt',
    ].sort());
    expect(await namesIn(customer, '/archive')).toEqual(['kunder uge 12.csv', `${csvId}.kunder uge 12.csv`, 'kunder.xlsx', 'slow.csv'].sort());
    expect(await namesIn(customer, '/failed')).toEqual(['noise.csv', 'noise.error.txt', `${noiseId}.noise.csv`, `noise.${noiseId}.error.txt`].sort());
    expect((await customer.get('/outbox/kunder uge 12.result.csv')) as Buffer).toEqual(firstResult);
    expect((await customer.get('/failed/noise.error.txt')) as Buffer).toEqual(firstError);
  }, 90_000);

  it('shows the folder with its last success in the admin list', async () => {
    const status = await d.platform.inbound.getFolderStatus(folderId);
    expect(status).toMatchObject({ failures: 0, last_error: null });
    expect(status?.last_ok_at).not.toBeNull();
  });
});

/** Lists `folder` until exactly `names` are there (the result's arrival is the signal), 60 s at most. */
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
