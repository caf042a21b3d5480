/**
 * Remembered responses go at the end of their 24 h by the API's retention sweep, not only when a
 * later request with a key happens to come (docs/privacy-and-proof.md "Every store"): an expired
 * record is planted in the deployment's own store and the running API removes it by itself.
 */
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedDeployment } from '../support/deployments.ts';

describe('expired idempotency records are purged by the sweep', () => {
  let deployment: EmbeddedDeployment;
  beforeAll(async () => {
    deployment = await startEmbedded(null, { env: { RETENTION_SWEEP_SECONDS: '1' } });
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
  });

  it('a record past its window disappears without any request carrying a key', async () => {
    const scope = { orgId: 'org-sweep', mode: 'live' as const, endpoint: 'POST /v2/check-jobs' };
    const past = (ms: number) => new Date(Date.now() - ms);
    await deployment.platform.idempotency.begin(scope, 'old', 'fp', { now: past(25 * 3_600_000), expiresAt: past(3_600_000), leaseUntil: past(24 * 3_600_000) });
    await deployment.platform.idempotency.complete(scope, 'old', { status: 202, body: '{"id":"x","preview":[{"name":"Åse Jensen"}]}' });
    const db = new DatabaseSync(deployment.platform.databasePath, { readOnly: true });
    try {
      const count = () => (db.prepare("SELECT count(*) AS n FROM idempotency_keys WHERE key = 'old'").get() as { n: number }).n;
      expect(count()).toBe(1);
      const end = Date.now() + 60_000;
      while (count() > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      expect(count()).toBe(0);
    } finally {
      db.close();
    }
  }, 120_000);
});
