import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import type SftpClient from 'ssh2-sftp-client';
import type { PersonInput } from '../../services/domain/types.ts';
import { blockPlace, openContacts } from '../../services/ingest/monitors/contact-seal.ts';
import type { MonitorRecord } from '../../services/platform/store/monitors-port.ts';
import { makeSpreadsheets, scratchDir } from '../support/files/spreadsheets.ts';
import { startSftpDropFolder, type InboundEmbedded, type SftpDropFolder } from '../support/inbound.ts';
import { namesIn, dropFile } from '../support/sftp.ts';
import { UPLOAD_HEADER, uploadRows } from './uploads-scenarios.ts';

/**
 * An SFTP drop folder that feeds a monitor (docs/inbound.md "Folders that feed a monitor",
 * docs/decisions.md §16) on the embedded deployment against OpenSSH's sshd: a CSV (as Excel writes it)
 * and then an xlsx (exceljs) dropped into inbox/ each replace the monitor's contacts (read back
 * from the store and opened with the monitor's key) and leave a receipt in outbox/; a file that
 * is no spreadsheet is refused into failed/ (da and en) and the contacts stay as they were.
 */
describe('SFTP drop folder feeding a monitor (embedded deployment, OpenSSH)', () => {
  let folder: SftpDropFolder;
  let d: InboundEmbedded;
  let customer: SftpClient;
  let monitorId: string;

  const stored = async () => (await d.platform.monitors.getMonitorById(monitorId)) as MonitorRecord;
  /** The monitor's current contacts, opened with its data key (what a re-check would read). */
  async function contacts(): Promise<PersonInput[]> {
    const m = await stored();
    const blocks = await d.platform.monitors.readContactBlocks(m.id, m.generation, { from: 0, to: 100 });
    return blocks.flatMap((b) => openContacts(m.data_key as string, blockPlace(m.id, m.generation, b.block), b.sealed));
  }

  beforeAll(async () => {
    folder = await startSftpDropFolder(async (deployment) => {
      d = deployment;
      const created = await fetch(new URL('/v2/monitors', d.baseUrl), {
        method: 'POST',
        headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ people: [{ name: 'Gammel Kontakt', address: 'Gammelvej 1, 8000 Aarhus C' }] }),
      });
      if (created.status !== 201) throw new Error(`the monitor was not created: ${created.status} ${await created.text()}`);
      monitorId = ((await created.json()) as { id: string }).id;
      return { locale: 'en', monitor: monitorId };
    });
    customer = folder.customer;
  }, 60_000);
  afterAll(async () => folder?.stop());

  it('a CSV, then an xlsx, dropped by an SFTP client each replace the contacts, with a receipt in outbox/ and no job', async () => {
    const dir = await scratchDir('sftp-monitor');
    const csvRows = uploadRows(5).rows;
    // Another set: the first three contacts gone, three new ones.
    const xlsxRows = [UPLOAD_HEADER, ...uploadRows(8).rows.slice(4)];
    const [csv, xlsx] = await makeSpreadsheets(dir, [
      { name: 'kontakter.csv', rows: csvRows, via: 'excel-1252-semicolon' },
      { name: 'kontakter uge 2.xlsx', rows: xlsxRows, via: 'exceljs' },
    ]);
    const namesOf = (rows: typeof csvRows) => rows.slice(1).map((r) => r[UPLOAD_HEADER.indexOf('Navn')] ?? undefined);
    const generation = (await stored()).generation;

    await dropFile(customer, await readFile(csv), '/inbox/kontakter.csv');
    await waitForNames(customer, '/outbox', ['kontakter.receipt.txt']);
    expect((await contacts()).map((c) => c.name)).toEqual(namesOf(csvRows));
    expect(await stored()).toMatchObject({ contact_count: 5, generation: generation + 1 });
    const receipt = ((await customer.get('/outbox/kontakter.receipt.txt')) as Buffer).toString('utf8');
    expect(receipt).toBe(
      `The file "kontakter.csv" replaced the contacts of monitor ${monitorId} (5 contacts). They are checked against the active list version; the result comes as a job with source "monitor".\n\n` +
      `Filen "kontakter.csv" har erstattet kontakterne i overvågning ${monitorId} (5 kontakter). De tjekkes mod den aktive listeversion; resultatet kommer som et job med source "monitor".\n`,
    );

    await dropFile(customer, await readFile(xlsx), '/inbox/kontakter uge 2.xlsx');
    await waitForNames(customer, '/outbox', ['kontakter.receipt.txt', 'kontakter uge 2.receipt.txt']);
    expect((await contacts()).map((c) => c.name)).toEqual(namesOf(xlsxRows));
    expect(await stored()).toMatchObject({ contact_count: xlsxRows.length - 1, generation: generation + 2 });
    expect(await namesIn(customer, '/archive')).toEqual(['kontakter uge 2.xlsx', 'kontakter.csv']);
    expect(await namesIn(customer, '/inbox')).toEqual([]);
    expect(await namesIn(customer, '/failed')).toEqual([]);

    // Delivered claims, no job made of them; deleted with the files at the organisation's retention.
    const claims = (await d.platform.inbound.listClaimsDue('9999-01-01T00:00:00.000Z', 100)).filter((c) => c.org_id === d.orgId);
    expect(claims.map((c) => c.state)).toEqual(['delivered', 'delivered']);
    for (const claim of claims) expect(await d.platform.jobs.getJobById(claim.id)).toBeNull();
  }, 90_000);

  it('a file that is not a spreadsheet is refused into failed/ with the reason in English and Danish; the contacts are unchanged', async () => {
    const before = await stored();
    const people = await contacts();
    await dropFile(customer, Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x13]), '/inbox/noise.csv');
    await waitForNames(customer, '/failed', ['noise.csv', 'noise.error.txt']);
    const text = ((await customer.get('/failed/noise.error.txt')) as Buffer).toString('utf8');
    expect(text).toMatch(/^The file "noise.csv" was not checked: .+ The monitor's contacts are unchanged\.\n\nFilen "noise.csv" blev ikke tjekket: .+ Overvågningens kontakter er uændrede\.\n$/);
    expect(await stored()).toMatchObject({ generation: before.generation, contact_count: before.contact_count, updated_at: before.updated_at });
    expect(await contacts()).toEqual(people);
    expect(await namesIn(customer, '/outbox')).toEqual(['kontakter uge 2.receipt.txt', 'kontakter.receipt.txt']);
  }, 60_000);
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
