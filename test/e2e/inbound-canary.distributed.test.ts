import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { sql } from '../../services/platform/store/clickhouse/sql.ts';
import { decoderWithRemainingKeys, scanClickHouse, scanKafka } from '../support/canary-scan.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { scratchDir } from '../support/files/spreadsheets.ts';
import { INBOUND_TEST_ENV, seededOrgId } from '../support/inbound.ts';
import { servers } from '../support/servers.ts';
import { inboundCanaryScenario } from './inbound-canary-scenario.ts';

/**
 * The inbound canary (inbound-canary-scenario.ts) on Kafka + ClickHouse: the SFTP, email and
 * connector services each in its own process (`npm run service -- <name>`), beside the matchers
 * and the projection, the API in this process. Their clocks are the machine's, so time passes by
 * backdating what the stores keep: the claims' delete_after through the inbound store, the jobs'
 * as a new revision of their records (check_jobs is a ReplacingMergeTree on revision). The
 * processes' own retention sweeps (every second here) then empty the drop folder and the mailbox
 * and purge the jobs. Scanned besides the scenario's places: every message still on every topic
 * of the run's prefix decoded with the keys left, every table of the run's ClickHouse database as
 * stored (delete-masked rows and older parts included), every log line of every process (debug).
 */
describe('canary: a name dropped, emailed and pulled by a connector is gone everywhere after delete_after, by the real retention (Kafka + ClickHouse)', () => {
  let deployment: DistributedDeployment;
  let conn: ClickHouseConnection;
  let logFile: string;
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    logFile = join(await scratchDir('inbound-canary-distributed-logs'), 'api.log');
    const logger = pino({ level: 'debug' }, pino.destination({ dest: logFile, sync: true }));
    deployment = await startDistributed(null, { env: { ...INBOUND_TEST_ENV, RETENTION_SWEEP_SECONDS: '1' }, logger, serviceLogLevel: 'debug' });
    conn = createClickHouseConnection({ url: servers.clickhouseUrl, database: deployment.env.CLICKHOUSE_DATABASE });
  }, 120_000);

  afterAll(async () => {
    await conn?.close();
    await deployment?.stop();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('is found before, and nowhere after delete_after', async () => {
    const decoder = decoderWithRemainingKeys(deployment.platform);
    await inboundCanaryScenario({
      platform: deployment.platform,
      orgId: await seededOrgId(deployment.platform),
      dataDir: deployment.env.DATA_DIR,
      async startChannel(name, env, server) {
        await deployment.spawnService(name, { ...env, NODE_EXTRA_CA_CERTS: server.certFile });
      },
      async scan(canary) {
        const logs = [readFileSync(logFile, 'utf8'), ...deployment.processes.map((p) => p.output())];
        return [
          ...(await scanKafka(canary, servers.kafkaBrokers, deployment.env.KAFKA_TOPIC_PREFIX, decoder)),
          ...(await scanClickHouse(canary, conn)),
          ...(logs.some((text) => text.includes(canary)) ? ['logs'] : []),
        ];
      },
      async passRetention(jobIds, claimIds) {
        const past = new Date(Date.now() - 3_600_000);
        for (const id of claimIds) {
          const claim = await deployment.platform.inbound.getClaim(id);
          if (claim?.delete_after) await deployment.platform.inbound.updateClaim(id, { delete_after: past.toISOString(), updated_at: new Date().toISOString() });
        }
        for (const jobId of jobIds) {
          const [row] = await conn.rows<{ revision: string; org_id: string; mode: string; status: string; doc: string }>(
            sql`SELECT revision, org_id, mode, status, doc FROM ${conn.table('check_jobs')} FINAL WHERE id = ${jobId}`,
          );
          const doc = { ...JSON.parse(row.doc), delete_after: past.toISOString() };
          await conn.insert('check_jobs', [{
            id: jobId, revision: Number(row.revision) + 1, org_id: row.org_id, mode: row.mode, status: row.status,
            delete_after_ms: past.getTime(), doc: JSON.stringify(doc),
          }]);
        }
      },
    }, cleanups);
  }, 300_000);
});
