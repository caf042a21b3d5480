import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../services/platform/store/connectors-port.ts';
import { createIngestFileJobs } from '../../services/ingest/inbound/ingest-file-jobs.ts';
import { createSecretBox } from '../../services/ingest/inbound/secrets.ts';
import { pullSlot } from '../../services/ingest/connector/pull.ts';
import { slotOf } from '../../services/ingest/connector/schedule.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createPipelineEvents } from '../../services/pipeline/events.ts';
import { startExportServer, type ExportServer } from '../support/connector-server.ts';
import { INBOUND_TEST_ENV, startInboundEmbedded, type InboundEmbedded } from '../support/inbound.ts';
import {
  addConnector, CONNECTOR_AUTH, downThenUp, expectJobLevels, exportCsv, slotJobId, waitForJobDone, waitForStatus,
} from './connector-scenario.ts';
import { mkdtemp, readFile } from 'node:fs/promises';
import { makeSpreadsheets, scratchDir } from '../support/files/spreadsheets.ts';
import { uploadRows } from './uploads-scenarios.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Connectors on the embedded deployment (npm start's wiring, in this process): a real HTTPS
 * server on loopback (node:https, certificate from the openssl CLI) serves a CSV and a JSON
 * export; the connector service pulls them on a 2-second schedule.
 */
describe('connectors (embedded deployment, HTTPS export server on loopback)', () => {
  let d: InboundEmbedded;
  let server: ExportServer;
  const { csv, levels } = exportCsv(41);

  beforeAll(async () => {
    server = await startExportServer(CONNECTOR_AUTH);
    d = await startInboundEmbedded({ CONNECTOR_TICK_MS: '200' });
  }, 60_000);
  afterAll(async () => {
    await d?.stop();
    await server?.close();
  });

  it('pulls a CSV export every slot into a connector job; server down → the error is visible, the next slot succeeds', async () => {
    const url = server.serve('export/kunder.csv', csv, 'text/csv; charset=utf-8');
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, url);
    await d.startInbound('connectors', { CONNECTOR_TICK_MS: '200' }, { connectorCa: server.cert });

    const first = await waitForStatus(d.platform, id, (s) => s.last_job_id !== null, 'a first job');
    expect(first.last_job_id).toBe(slotJobId(id, first.last_slot as number));
    const job = await waitForJobDone(d.platform, first.last_job_id as string);
    await expectJobLevels(d.platform, job, levels);
    expect(job).toMatchObject({ org_id: d.orgId, filename: 'kunder.csv', file_format: 'csv' });
    // Every pull carried the auth header opened from its sealed form.
    expect(server.requests('export/kunder.csv').every((r) => r.authorization === CONNECTOR_AUTH)).toBe(true);

    await downThenUp(d.platform, server, id, levels);
  }, 120_000);

  it('a JSON export ({"people": [...]}) becomes a job the same way', async () => {
    const people = [
      { id: 'a', name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense' },
      { id: 'b', name: 'Åse Østergård', address: 'Vestergade 3, 5000 Odense' },
    ];
    const url = server.serve('people.json', JSON.stringify({ people }), 'application/json');
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, url);
    const status = await waitForStatus(d.platform, id, (s) => s.last_job_id !== null, 'a JSON job');
    const job = await waitForJobDone(d.platform, status.last_job_id as string);
    await expectJobLevels(d.platform, job, [5, 0]);
  }, 60_000);

  it('an xlsx export (written by exceljs) becomes a job through the file readers; a wrong auth header is a visible 401', async () => {
    const { rows } = uploadRows(41);
    const [xlsx] = await makeSpreadsheets(await scratchDir('connector-xlsx'), [{ name: 'kunder.xlsx', rows, via: 'exceljs' }]);
    const url = server.serve('kunder.xlsx', await readFile(xlsx), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, url);
    const status = await waitForStatus(d.platform, id, (s) => s.last_job_id !== null, 'an xlsx job');
    const job = await waitForJobDone(d.platform, status.last_job_id as string);
    await expectJobLevels(d.platform, job, levels);
    expect(job).toMatchObject({ filename: 'kunder.xlsx', file_format: 'xlsx' });

    const wrong = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, url, {}, 'Bearer not-the-token');
    const refused = await waitForStatus(d.platform, wrong, (s) => s.failures > 0, 'a refused pull');
    expect(refused).toMatchObject({ last_error: 'http_status:401', last_job_id: null, last_ok_at: null });
  }, 60_000);

  it('a connector with --monitor replaces the monitor\'s contacts each pull (no job of its own); a deleted monitor is a visible error', async () => {
    const auth = { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' };
    const created = await fetch(new URL('/v2/monitors', d.baseUrl), {
      method: 'POST', headers: auth, body: JSON.stringify({ people: [{ name: 'Ib Berg', address: 'Strandvejen 100, 2900 Hellerup' }] }),
    });
    const monitor = (await created.json()) as { id: string };
    expect(created.status, JSON.stringify(monitor)).toBe(201);
    const before = await d.platform.monitors.getMonitor({ org_id: d.orgId, mode: 'live' }, monitor.id);
    expect(before?.contact_count).toBe(1);

    const url = server.serve('monitor/kunder.csv', csv, 'text/csv');
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, url, { monitor: monitor.id });
    const status = await waitForStatus(d.platform, id, (s) => s.last_ok_at !== null, 'a replaced contact set');
    expect(status).toMatchObject({ failures: 0, last_job_id: null });
    const after = await d.platform.monitors.getMonitor({ org_id: d.orgId, mode: 'live' }, monitor.id);
    expect(after?.contact_count).toBe(levels.length);
    expect(after?.generation).toBeGreaterThan(before?.generation ?? 0);

    const deleted = await fetch(new URL(`/v2/monitors/${monitor.id}`, d.baseUrl), { method: 'DELETE', headers: { Authorization: auth.Authorization } });
    expect(deleted.status).toBe(200);
    const refused = await waitForStatus(d.platform, id, (s) => s.failures > 0, 'a pull into a deleted monitor');
    expect(refused.last_error).toBe('monitor_not_found');
    // Adding a connector for a monitor that is not the organisation's is refused up front.
    await expect(addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, url, { monitor: monitor.id })).rejects.toThrow(/not a live monitor/);
  }, 60_000);

  it('a slot pulled twice (killed after making its job, before recording it) still makes one job', async () => {
    const url = server.serve('again.csv', csv, 'text/csv');
    // Stored removed, so the running service never pulls it: only the two runs below do.
    const secrets = createSecretBox(Buffer.from(INBOUND_TEST_ENV.INBOUND_SECRET_KEY, 'base64'));
    const id = randomUUID();
    const connector: Connector = {
      id, org_id: d.orgId, url, auth_header_name: 'Authorization', auth_header_sealed: secrets.seal(CONNECTOR_AUTH, id),
      interval_seconds: 86_400, target: { kind: 'job' }, column_mapping: null, options: {}, locale: 'da',
      created_at: new Date().toISOString(), removed_at: new Date().toISOString(),
    };
    await d.platform.connectors.createConnector(connector);
    const fileJobs = createIngestFileJobs({
      jobs: d.platform.jobs, lists: d.platform.lists, addresses: d.platform.addresses, logger: silentLogger(),
      events: createPipelineEvents({ log: d.platform.log, registry: d.platform.registry, topicPrefix: d.platform.topicPrefix }),
      spoolDir: join(d.dataDir, 'spool'), draftDir: join(d.dataDir, 'uploads'),
    });
    const deps = {
      accounts: d.platform.accounts, fileJobs, secrets,
      workDir: await mkdtemp(join(tmpdir(), 'connector-work-')), allowHosts: ['127.0.0.1'], timeoutMs: 10_000, maxBytes: 1 << 20,
      ca: server.cert, logger: silentLogger(), now: () => new Date(),
    };
    const slot = slotOf(Date.now(), 86_400);
    const requestsBefore = server.requests('again.csv').length;
    const once = await pullSlot(deps, connector, slot, null);
    const twice = await pullSlot(deps, connector, slot, null);
    expect(once.last_job_id).toBe(slotJobId(id, slot));
    expect(twice.last_job_id).toBe(once.last_job_id);
    // The second run found the job and did not fetch again.
    expect(server.requests('again.csv').length - requestsBefore).toBe(1);
    await expectJobLevels(d.platform, await waitForJobDone(d.platform, once.last_job_id as string), levels);
  }, 60_000);
});
