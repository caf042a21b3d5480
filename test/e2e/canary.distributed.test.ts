/**
 * The canary on Kafka + ClickHouse (API in this process, two matchers and the projection as child
 * processes), see canary-scenario.ts. Scanned: every message still on every topic of the run's
 * prefix (DLQs included) decoded with the keys left in the store, every table of the run's
 * ClickHouse database as stored (no FINAL, delete-masked rows included, after the purge's
 * mutations are done), every file of DATA_DIR (spool, uploads, the idempotency database), and
 * every log line of the API (debug) and of the child processes (debug).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { sql } from '../../services/platform/store/clickhouse/sql.ts';
import { decoderWithRemainingKeys, scanClickHouse, scanFiles, scanKafka } from '../support/canary-scan.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { scratchDir } from '../support/files/spreadsheets.ts';
import { servers } from '../support/servers.ts';
import { canaryScenario, draftCanaryScenario, monitorCanaryScenario, syncCheckCanaryScenario, type CanaryDeployment } from './canary-scenario.ts';

describe('canary on Kafka + ClickHouse: a deleted job leaves no trace', () => {
  let deployment: DistributedDeployment;
  let conn: ClickHouseConnection;
  let d: CanaryDeployment;
  let logFile: string;

  beforeAll(async () => {
    logFile = join(await scratchDir('canary-distributed-logs'), 'api.log');
    const logger = pino({ level: 'debug' }, pino.destination({ dest: logFile, sync: true }));
    deployment = await startDistributed(null, { env: { RETENTION_SWEEP_SECONDS: '1', MONITOR_INTERVAL_MS: '200' }, logger, serviceLogLevel: 'debug' });
    conn = createClickHouseConnection({ url: servers.clickhouseUrl, database: deployment.env.CLICKHOUSE_DATABASE });
    // The monitor service in its own process, for both monitor canaries.
    await deployment.spawnService('monitor');
    const decoder = decoderWithRemainingKeys(deployment.platform);
    d = {
      ...deployment,
      async scan(canary) {
        const logs = [readFileSync(logFile, 'utf8'), ...deployment.processes.map((p) => p.output())];
        return [
          ...(await scanKafka(canary, servers.kafkaBrokers, deployment.env.KAFKA_TOPIC_PREFIX, decoder)),
          ...(await scanClickHouse(canary, conn)),
          ...(await scanFiles(canary, deployment.env.DATA_DIR)),
          ...(logs.some((text) => text.includes(canary)) ? ['logs'] : []),
        ];
      },
      async backdateMonitor(monitorId) {
        // A new revision of the monitor with delete_after an hour ago (monitors is a ReplacingMergeTree on revision).
        const [row] = await conn.rows<{ revision: string; org_id: string; mode: string; deleted: number; created_at: string; doc: string }>(
          sql`SELECT revision, org_id, mode, deleted, created_at, doc FROM ${conn.table('monitors')} FINAL WHERE id = ${monitorId}`,
        );
        const doc = { ...JSON.parse(row.doc), delete_after: new Date(Date.now() - 3_600_000).toISOString() };
        await conn.insert('monitors', [{
          id: monitorId, revision: Number(row.revision) + 1, org_id: row.org_id, mode: row.mode, deleted: row.deleted, created_at: row.created_at, doc: JSON.stringify(doc),
        }]);
      },
      async expireRemembered(idempotencyKey) {
        // 24 hours passing for one remembered answer: its claim's expiry in the past (a mutation waited for).
        await conn.command(
          sql`ALTER TABLE ${conn.table('idempotency_events')} UPDATE expires_ms = ${Date.now() - 60_000} WHERE key = ${idempotencyKey} AND kind = 'claim'`,
          { mutations_sync: '2' },
        );
      },
      async backdate(jobId) {
        // Time passing for one job: a new revision of its record with delete_after an hour ago,
        // written as the store writes revisions (check_jobs is a ReplacingMergeTree on revision).
        const [row] = await conn.rows<{ revision: string; org_id: string; mode: string; status: string; doc: string }>(
          sql`SELECT revision, org_id, mode, status, doc FROM ${conn.table('check_jobs')} FINAL WHERE id = ${jobId}`,
        );
        const past = new Date(Date.now() - 3_600_000);
        const doc = { ...JSON.parse(row.doc), delete_after: past.toISOString() };
        await conn.insert('check_jobs', [{
          id: jobId, revision: Number(row.revision) + 1, org_id: row.org_id, mode: row.mode, status: row.status,
          delete_after_ms: past.getTime(), doc: JSON.stringify(doc),
        }]);
      },
    };
  }, 120_000);

  afterAll(async () => {
    await conn?.close();
    await deployment?.stop();
  });

  it('created, done, DELETE: the name is found before and nowhere after (topics decrypted, ClickHouse tables, files, logs)', async () => {
    await canaryScenario(d, 'delete');
  }, 240_000);

  it('created, done, delete_after passed: the retention sweep leaves the name nowhere', async () => {
    await canaryScenario(d, 'retention');
  }, 240_000);

  it('a monitor checked by the monitor service (its own process): its job travels sealed; monitor and job deleted leave the name nowhere', async () => {
    await monitorCanaryScenario(d);
  }, 240_000);

  it('a monitor and its re-check job past their delete_after: the monitor service and the retention sweep leave the name nowhere', async () => {
    await monitorCanaryScenario(d, 'retention');
  }, 240_000);

  it('an upload with an Idempotency-Key: DELETE of the draft forgets its remembered answer too', async () => {
    await draftCanaryScenario(d);
  }, 180_000);

  it('an upload with an Idempotency-Key left a draft past its delete_after: the retention sweep and the draft-file sweep leave the name nowhere', async () => {
    await draftCanaryScenario(d, 'retention');
  }, 180_000);

  it('a synchronous check with an Idempotency-Key: once its 24 h are over, the retention sweep leaves the answer nowhere', async () => {
    await syncCheckCanaryScenario(d);
  }, 120_000);
});
