import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExportServer, type ExportServer } from '../support/connector-server.ts';
import { slotOf } from '../../services/ingest/connector/schedule.ts';
import { startDistributed, type DistributedDeployment, type ServiceProcess } from '../support/deployments.ts';
import { INBOUND_TEST_ENV, seededOrgId } from '../support/inbound.ts';
import {
  addConnector, CONNECTOR_AUTH, downThenUp, expectJobLevels, exportCsv, slotJobId, waitForJobDone, waitForStatus,
} from './connector-scenario.ts';

/**
 * Connectors on Kafka + ClickHouse: `npm run service -- connectors` as its own process (trusting
 * the export server's self-signed certificate through NODE_EXTRA_CA_CERTS, as docs/connectors.md
 * says), matchers and the projection as child processes; the same scenario as the embedded test.
 * Then the process killed -9 during a pull, and after the slot's job was created: restarted, the
 * slot ends with exactly one job that completes, its results once.
 */
describe('connectors (distributed deployment, run-service connectors)', () => {
  let d: DistributedDeployment;
  let server: ExportServer;
  let orgId: string;
  const { csv, levels } = exportCsv(41);

  beforeAll(async () => {
    server = await startExportServer(CONNECTOR_AUTH);
    d = await startDistributed(null, { env: { ...INBOUND_TEST_ENV, CONNECTOR_TICK_MS: '200' } });
    orgId = await seededOrgId(d.platform);
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
    await server?.close();
  });

  it('pulls the export every slot into a connector job; server down → the error is visible, the next slot succeeds', async () => {
    const url = server.serve('export/kunder.csv', csv, 'text/csv');
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, url);
    const service = await d.spawnService('connectors', { NODE_EXTRA_CA_CERTS: server.certFile });
    const first = await waitForStatus(d.platform, id, (s) => s.last_job_id !== null, 'a first job');
    expect(first.last_job_id).toBe(slotJobId(id, first.last_slot as number));
    await expectJobLevels(d.platform, await waitForJobDone(d.platform, first.last_job_id as string), levels);
    await downThenUp(d.platform, server, id, levels);
    // The kill tests below run their own connector processes (one per deployment, as in production).
    await d.platform.connectors.removeConnector(id, new Date().toISOString());
    service.child.kill('SIGTERM');
    await service.exited;
  }, 180_000);

  const DAY = 86_400;
  const spawnConnectors = () => d.spawnService('connectors', { NODE_EXTRA_CA_CERTS: server.certFile });
  async function killed(service: ServiceProcess): Promise<void> {
    service.child.kill('SIGKILL');
    await service.exited;
  }
  /** Every job the slot could have made (its attempts): the ones that exist. */
  async function slotJobs(connectorId: string, slot: number) {
    const jobs = await Promise.all([0, 1, 2].map((attempt) => d.platform.jobs.getJobById(slotJobId(connectorId, slot, attempt))));
    return jobs.filter((job) => job !== null);
  }

  it('kill -9 during a pull (half the export on the wire): restarted, the slot makes exactly one job, its results once', async () => {
    const path = 'export/kill-during-pull.csv';
    const { csv: body, levels: expected } = exportCsv(400);
    const url = server.serve(path, body, 'text/csv');
    const held = server.hold(path, Math.floor(body.length / 2));
    // Once a day: the restart falls in the same slot.
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, url, { every: String(DAY) });
    const slot = slotOf(Date.now(), DAY);
    let service = await spawnConnectors();
    // The export server's own signal: half the answer is written to the connector's connection.
    await held.sent;
    await killed(service);
    held.release();
    expect(await d.platform.connectors.getStatus(id)).toBeNull();
    expect(await slotJobs(id, slot)).toEqual([]);

    service = await spawnConnectors();
    const status = await waitForStatus(d.platform, id, (s) => s.last_job_id !== null, 'the slot pulled after the restart');
    expect(status).toMatchObject({ last_slot: slot, last_job_id: slotJobId(id, slot), failures: 0 });
    await expectJobLevels(d.platform, await waitForJobDone(d.platform, slotJobId(id, slot)), expected);
    expect((await slotJobs(id, slot)).map((j) => j.id)).toEqual([slotJobId(id, slot)]);
    expect(server.requests(path)).toHaveLength(2);
    await d.platform.connectors.removeConnector(id, new Date().toISOString());
    await killed(service);
  }, 180_000);

  it('kill -9 during a pull for a monitor: restarted, the contacts are replaced exactly once', async () => {
    const created = await fetch(new URL('/v2/monitors', d.baseUrl), {
      method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ people: [{ name: 'Gammel Kontakt', address: 'Gammelvej 1, 8000 Aarhus C' }] }),
    });
    expect(created.status).toBe(201);
    const monitorId = ((await created.json()) as { id: string }).id;
    const before = await d.platform.monitors.getMonitorById(monitorId);
    const path = 'export/kill-monitor.csv';
    const { csv: body, levels: expected } = exportCsv(300);
    const url = server.serve(path, body, 'text/csv');
    const held = server.hold(path, Math.floor(body.length / 2));
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, url, { every: String(DAY), monitor: monitorId });
    let service = await spawnConnectors();
    await held.sent;
    await killed(service);
    held.release();
    expect(await d.platform.monitors.getMonitorById(monitorId)).toMatchObject({ generation: before?.generation, contact_count: 1 });

    service = await spawnConnectors();
    await waitForStatus(d.platform, id, (s) => s.last_ok_at !== null, 'the slot pulled after the restart');
    // One replacement: the next generation, every row of the export; no job of the connector's own.
    expect(await d.platform.monitors.getMonitorById(monitorId)).toMatchObject({ generation: (before?.generation ?? 0) + 1, contact_count: expected.length });
    expect(await slotJobs(id, slotOf(Date.now(), DAY))).toEqual([]);
    expect(server.requests(path)).toHaveLength(2);
    await d.platform.connectors.removeConnector(id, new Date().toISOString());
    await killed(service);
  }, 180_000);

  it('kill -9 after the slot\'s job was created: restarted, the slot ends with exactly one job that completes, its results once', async () => {
    const path = 'export/kill-after-job.csv';
    const { csv: body, levels: expected } = exportCsv(20_000);
    const url = server.serve(path, body, 'text/csv');
    const id = await addConnector(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, url, { every: String(DAY) });
    const slot = slotOf(Date.now(), DAY);
    let service = await spawnConnectors();
    // The store's own signal: the slot's job exists (its rows may still be being published).
    const end = Date.now() + 120_000;
    while ((await d.platform.jobs.getJobById(slotJobId(id, slot))) === null) {
      if (Date.now() > end) throw new Error(`the slot's job never appeared:\n${service.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await killed(service);
    const statusAtKill = await d.platform.connectors.getStatus(id);

    service = await spawnConnectors();
    const status = statusAtKill ?? await waitForStatus(d.platform, id, (s) => s.last_job_id !== null, 'the slot recorded after the restart');
    expect(status).toMatchObject({ last_slot: slot, failures: 0 });
    const job = await waitForJobDone(d.platform, status.last_job_id as string);
    expect(job).toMatchObject({ source: 'connector', status: 'done', row_count: expected.length });
    const levels: Array<number | null> = [];
    for (let cursor: string | null = null; ;) {
      const page = await d.platform.jobs.readResults(job.id, { cursor, limit: 10_000 });
      levels.push(...page.rows.map((r) => r.result.match.level));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(levels).toEqual(expected);
    // One job of the slot completes; an attempt cut off while publishing was ended (no results).
    const jobs = await slotJobs(id, slot);
    expect(jobs.filter((j) => j.status !== 'deleted').map((j) => j.id)).toEqual([job.id]);
    for (const cut of jobs.filter((j) => j.status === 'deleted')) expect(await d.platform.jobs.countResults(cut.id)).toMatchObject({ processed: 0 });
    // Pulled again only when the first job was cut off.
    expect(server.requests(path)).toHaveLength(job.id === slotJobId(id, slot) ? 1 : 2);
    await d.platform.connectors.removeConnector(id, new Date().toISOString());
    await killed(service);
  }, 300_000);
});
