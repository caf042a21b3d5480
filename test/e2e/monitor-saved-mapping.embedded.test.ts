import { readFile } from 'node:fs/promises';
import type SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonInput } from '../../services/domain/types.ts';
import { blockPlace, openContacts } from '../../services/ingest/monitors/contact-seal.ts';
import type { MonitorRecord } from '../../services/platform/store/monitors-port.ts';
import { makeSpreadsheets, scratchDir, type Rows } from '../support/files/spreadsheets.ts';
import { startExportServer, type ExportServer } from '../support/connector-server.ts';
import { INBOUND_TEST_ENV, startSftpDropFolder, type InboundEmbedded, type SftpDropFolder } from '../support/inbound.ts';
import { multipartBody } from '../support/multipart.ts';
import { dropFile, namesIn, waitForNames } from '../support/sftp.ts';
import { addConnector, CONNECTOR_AUTH, waitForStatus } from './connector-scenario.ts';
import { uploadRows } from './uploads-scenarios.ts';

/**
 * Monitors fed by a file take the organisation's saved column mapping too (docs/inbound.md "Saved
 * column mappings on every channel", docs/monitors.md): a CRM export headed "Kundenr." / "Kunde" /
 * "Sted" / "Bemærkning" has no column the guesser reads as a name. Without a saved mapping, the
 * SFTP folder feeding a monitor refuses it with the "not recognised" explanation (failed/, da and
 * en, the contacts unchanged) and a connector feeding a monitor records the same refusal; once the
 * mapping is saved through the API, the next file through the folder and the connector's next pull
 * replace the contacts read with it (names from "Kunde", addresses from "Sted"), read back from
 * the store and opened with the monitor's key. Real OpenSSH, an HTTPS export server on loopback;
 * the embedded deployment in this process.
 */
describe('monitors fed by SFTP and a connector use the saved column mapping', () => {
  let folder: SftpDropFolder;
  let d: InboundEmbedded;
  let customer: SftpClient;
  let exports: ExportServer;
  let folderMonitor: string;
  let connectorMonitor: string;
  let connectorId: string;

  const HEADER = ['Kundenr.', 'Kunde', 'Sted', 'Bemærkning'];
  /** uploadRows' people under headers the guesser cannot read as a name. */
  const crmExport = (header: string[], count: number): Rows => [header, ...uploadRows(count).rows.slice(1)];
  /** What the saved mapping must read: the "Kunde" and "Sted" cells of each data row (an empty cell: no value). */
  const expectedContacts = (rows: Rows) => rows.slice(1).map((r) => ({ name: r[1] ?? undefined, address: r[2] ?? undefined }));

  const api = async (path: string, init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> } = {}) => {
    const answer = await fetch(`${d.baseUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${d.liveKey}`, ...init.headers } });
    return { status: answer.status, body: (await answer.json()) as Record<string, any> };
  };
  const createMonitor = async (name: string): Promise<string> => {
    const created = await api('/v2/monitors', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ people: [{ name, address: 'Gammelvej 1, 8000 Aarhus C' }] }),
    });
    if (created.status !== 201) throw new Error(`the monitor was not created: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body.id as string;
  };
  const stored = async (id: string) => (await d.platform.monitors.getMonitorById(id)) as MonitorRecord;
  /**
   * The monitor's current contacts, opened with its data key (what a re-check would read). The
   * connector replaces its monitor's contacts at every pull and a finished re-check drops older
   * generations, so a read is kept only when the generation is still the current one after it.
   */
  async function contacts(id: string): Promise<PersonInput[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const m = await stored(id);
      const blocks = await d.platform.monitors.readContactBlocks(m.id, m.generation, { from: 0, to: 100 });
      if ((await stored(id)).generation === m.generation) {
        return blocks.flatMap((b) => openContacts(m.data_key as string, blockPlace(m.id, m.generation, b.block), b.sealed));
      }
      if (Date.now() > deadline) throw new Error(`monitor ${id}: no generation stayed current while its contacts were read`);
    }
  }
  const csvOf = (rows: Rows) => `${rows.map((r) => r.map((c) => c ?? '').join(';')).join('\r\n')}\r\n`;

  beforeAll(async () => {
    folder = await startSftpDropFolder(async (deployment) => {
      d = deployment;
      folderMonitor = await createMonitor('Gammel Kontakt');
      return { locale: 'da', monitor: folderMonitor };
    });
    customer = folder.customer;
    exports = await startExportServer(CONNECTOR_AUTH);
  }, 90_000);
  afterAll(async () => {
    await folder?.stop();
    await exports?.close();
  });

  it('without a saved mapping: the folder\'s file and the connector\'s export are refused as not recognised; the contacts unchanged', async () => {
    const before = await stored(folderMonitor);
    const [csv] = await makeSpreadsheets(await scratchDir('monitor-mapping-none'), [
      { name: 'kunder-uden.csv', rows: crmExport(HEADER, 6), via: 'excel-1252-semicolon' },
    ]);
    await dropFile(customer, await readFile(csv), '/inbox/kunder-uden.csv');
    await waitForNames(customer, '/failed', ['kunder-uden.csv', 'kunder-uden.error.txt']);
    const text = ((await customer.get('/failed/kunder-uden.error.txt')) as Buffer).toString('utf8');
    expect(text).toMatch(/^Filen "kunder-uden.csv" blev ikke tjekket: Ingen kolonne blev genkendt som navn\..* Overvågningens kontakter er uændrede\.\n\nThe file "kunder-uden.csv" was not checked: No column was recognised as the name\..* The monitor's contacts are unchanged\.\n$/s);
    expect(await stored(folderMonitor)).toMatchObject({ generation: before.generation, contact_count: 1 });
    expect((await contacts(folderMonitor)).map((c) => c.name)).toEqual(['Gammel Kontakt']);
    expect(await namesIn(customer, '/outbox')).toEqual([]);

    connectorMonitor = await createMonitor('Ib Berg');
    const url = exports.serve('crm/kunder.csv', csvOf(crmExport(['kundenr.', 'Kunde', 'Sted ', 'Bemærkning'], 9)), 'text/csv; charset=utf-8');
    connectorId = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, url, { monitor: connectorMonitor });
    await d.startInbound('connectors', { CONNECTOR_TICK_MS: '200' }, { connectorCa: exports.cert });
    const refused = await waitForStatus(d.platform, connectorId, (s) => s.failures > 0, 'a refused pull');
    expect(refused).toMatchObject({ last_error: 'refused:mapping_warnings:no_name_column', last_ok_at: null });
    expect(await stored(connectorMonitor)).toMatchObject({ generation: 1, contact_count: 1 });
    expect((await contacts(connectorMonitor)).map((c) => c.name)).toEqual(['Ib Berg']);
  }, 180_000);

  it('saved once through the API: the folder\'s next file and the connector\'s next pull replace the contacts read with it', async () => {
    const dir = await scratchDir('monitor-mapping-used');
    const [november] = await makeSpreadsheets(dir, [{ name: 'november.csv', rows: crmExport(HEADER, 3), via: 'excel-utf8-bom' }]);
    const form = await multipartBody([{ name: 'file', value: { bytes: await readFile(november), filename: 'november.csv' } }]);
    const draft = await api('/v2/check-jobs', { method: 'POST', headers: { 'Content-Type': form.contentType }, body: new Uint8Array(form.body) });
    expect([draft.status, draft.body.status]).toEqual([202, 'draft']);
    const saved = await api('/v2/column-mappings', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'CRM-udtræk', job_id: draft.body.id, column_mapping: { header_row: 0, external_id: 'Kundenr.', name: 'Kunde', address: 'Sted' } }),
    });
    expect([saved.status, saved.body.channels]).toEqual([201, null]);

    // The connector pulls every 2 s: its first pull after the save succeeds (last_ok_at set).
    const replaced = await waitForStatus(d.platform, connectorId, (s) => s.last_ok_at !== null, 'a replaced contact set');
    expect(replaced.last_job_id).toBeNull();
    const pulled = crmExport(['kundenr.', 'Kunde', 'Sted ', 'Bemærkning'], 9);
    expect(await stored(connectorMonitor)).toMatchObject({ contact_count: 9 });
    expect((await contacts(connectorMonitor)).map((c) => ({ name: c.name, address: c.address }))).toEqual(expectedContacts(pulled));

    // Headers in other case and spacing: the same layout.
    const december = crmExport(['KUNDENR.', ' kunde', 'Sted', 'bemærkning '], 7);
    const [xlsx] = await makeSpreadsheets(dir, [{ name: 'kunder.xlsx', rows: december, via: 'exceljs' }]);
    const before = await stored(folderMonitor);
    await dropFile(customer, await readFile(xlsx), '/inbox/kunder.xlsx');
    await waitForNames(customer, '/outbox', ['kunder.receipt.txt']);
    expect(await stored(folderMonitor)).toMatchObject({ contact_count: 7, generation: before.generation + 1 });
    expect((await contacts(folderMonitor)).map((c) => ({ name: c.name, address: c.address }))).toEqual(expectedContacts(december));
    const receipt = ((await customer.get('/outbox/kunder.receipt.txt')) as Buffer).toString('utf8');
    expect(receipt).toContain(`Filen "kunder.xlsx" har erstattet kontakterne i overvågning ${folderMonitor} (7 kontakter).`);
    expect(await namesIn(customer, '/failed')).toEqual(['kunder-uden.csv', 'kunder-uden.error.txt']);
  }, 180_000);
});
