/**
 * The canary on the embedded default (npm start's wiring in this process: API, matcher and
 * projection on one node:sqlite file), see canary-scenario.ts. Scanned: every file of DATA_DIR
 * byte for byte (the database and its WAL, spool, uploads), every message of the embedded event
 * log decoded with the keys left in the store, and every log line the services wrote (debug).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pino from 'pino';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { decoderWithRemainingKeys, scanEmbeddedLog, scanFiles } from '../support/canary-scan.ts';
import { startEmbedded, type EmbeddedDeployment } from '../support/deployments.ts';
import { scratchDir } from '../support/files/spreadsheets.ts';
import { canaryScenario, draftCanaryScenario, monitorCanaryScenario, syncCheckCanaryScenario, type CanaryDeployment } from './canary-scenario.ts';

describe('canary on the embedded default: a deleted job leaves no trace', () => {
  let deployment: EmbeddedDeployment;
  let d: CanaryDeployment;
  let logFile: string;

  beforeAll(async () => {
    logFile = join(await scratchDir('canary-embedded-logs'), 'services.log');
    const logger = pino({ level: 'debug' }, pino.destination({ dest: logFile, sync: true }));
    deployment = await startEmbedded(null, { env: { RETENTION_SWEEP_SECONDS: '1', MONITOR_INTERVAL_MS: '200' }, logger, monitor: true });
    const decoder = decoderWithRemainingKeys(deployment.platform);
    d = {
      ...deployment,
      async scan(canary) {
        return [
          ...(await scanFiles(canary, deployment.dataDir)),
          ...(await scanEmbeddedLog(canary, deployment.platform.eventLogPath!, decoder)),
          ...(readFileSync(logFile, 'utf8').includes(canary) ? [`log ${logFile}`] : []),
        ];
      },
      async backdateMonitor(monitorId) {
        const db = new DatabaseSync(deployment.platform.databasePath);
        try {
          db.prepare(`UPDATE monitors SET doc = json_set(doc, '$.delete_after', ?) WHERE id = ?`).run(new Date(Date.now() - 3_600_000).toISOString(), monitorId);
        } finally {
          db.close();
        }
      },
      async expireRemembered(idempotencyKey) {
        // 24 hours passing for one remembered answer: its expiry in the past, as the store keeps it.
        const db = new DatabaseSync(deployment.platform.databasePath);
        try {
          db.prepare('UPDATE idempotency_keys SET expires_at = ? WHERE key = ?').run(new Date(Date.now() - 60_000).toISOString(), idempotencyKey);
        } finally {
          db.close();
        }
      },
      async backdate(jobId) {
        // Time passing for one job: its delete_after an hour ago, written as the store keeps it.
        const db = new DatabaseSync(deployment.platform.databasePath);
        try {
          const past = new Date(Date.now() - 3_600_000);
          db.prepare(`UPDATE check_jobs SET delete_after_ms = ?, doc = json_set(doc, '$.delete_after', ?) WHERE id = ?`)
            .run(past.getTime(), past.toISOString(), jobId);
        } finally {
          db.close();
        }
      },
    };
  }, 60_000);

  afterAll(async () => {
    await deployment?.stop();
  });

  it('created, done, DELETE: the name is found before and nowhere after (files, WAL, log messages decrypted, logs)', async () => {
    await canaryScenario(d, 'delete');
  }, 180_000);

  it('created, done, delete_after passed: the retention sweep leaves the name nowhere', async () => {
    await canaryScenario(d, 'retention');
  }, 180_000);

  it('a monitor checked by the monitor service: its job travels sealed; monitor and job deleted leave the name nowhere', async () => {
    await monitorCanaryScenario(d);
  }, 180_000);

  it('a monitor and its re-check job past their delete_after: the monitor service and the retention sweep leave the name nowhere', async () => {
    await monitorCanaryScenario(d, 'retention');
  }, 180_000);

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
