import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExportServer, type ExportServer } from '../support/connector-server.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { INBOUND_TEST_ENV, seededOrgId } from '../support/inbound.ts';
import {
  addConnector, CONNECTOR_AUTH, downThenUp, expectJobLevels, exportCsv, slotJobId, waitForJobDone, waitForStatus,
} from './connector-scenario.ts';

/**
 * Connectors on Kafka + ClickHouse: `npm run service -- connectors` as its own process (trusting
 * the export server's self-signed certificate through NODE_EXTRA_CA_CERTS, as docs/connectors.md
 * says), matchers and the projection as child processes; the same scenario as the embedded test.
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
    await d.spawnService('connectors', { NODE_EXTRA_CA_CERTS: server.certFile });
    const first = await waitForStatus(d.platform, id, (s) => s.last_job_id !== null, 'a first job');
    expect(first.last_job_id).toBe(slotJobId(id, first.last_slot as number));
    await expectJobLevels(d.platform, await waitForJobDone(d.platform, first.last_job_id as string), levels);
    await downThenUp(d.platform, server, id, levels);
  }, 180_000);
});
