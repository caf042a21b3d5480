/**
 * Two API processes on one Kafka + ClickHouse deployment (issue 14): the API in this process and
 * a second one as `npm run service -- api` (its own process, its own DATA_DIR), matchers and
 * projection as child processes. What one API process knows the other must honour:
 * - idempotency (DECISIONS §6): the same key sent to both at once makes one job and one charge.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { mixedRows } from '../support/pipeline.ts';

describe('two API processes on Kafka + ClickHouse', () => {
  let d: DistributedDeployment;
  let secondUrl: string;
  let secondDataDir: string;

  beforeAll(async () => {
    d = await startDistributed(null, { matchers: 1 });
    secondDataDir = mkdtempSync(join(tmpdir(), 'second-api-'));
    const second = await d.spawnService('api', { PORT: '0', DATA_DIR: secondDataDir });
    secondUrl = JSON.parse(second.output().split('\n').find((l) => l.includes('services started')) as string).address;
  }, 120_000);

  afterAll(async () => {
    await d?.stop();
    if (secondDataDir) rmSync(secondDataDir, { recursive: true, force: true });
  });

  const post = (base: string, key: string, body: string) => fetch(new URL('/v2/check-jobs', base), {
    method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': key }, body,
  }).then(async (r) => ({ status: r.status, json: await r.json() as Record<string, any>, replayed: r.headers.get('idempotent-replayed') }));

  it('50 concurrent requests with one key, split over both processes, make one job (one charge); the rest 409 or replay it', async () => {
    const key = `same-${Date.now()}`;
    const body = JSON.stringify({ people: mixedRows(400).map((r) => r.person) });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(i % 2 ? secondUrl : d.baseUrl, key, body)));
    const accepted = answers.filter((a) => a.status === 202);
    expect(answers.every((a) => a.status === 202 || a.status === 409), JSON.stringify(answers.map((a) => a.status))).toBe(true);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((a) => a.json.id)).size).toBe(1);
    expect(accepted.filter((a) => a.replayed !== 'true')).toHaveLength(1);
    for (const conflict of answers.filter((a) => a.status === 409)) expect(conflict.json.error.code).toBe('conflict');
    // One job in the store, whatever the answers said; done once, counted once for billing.
    const jobId = accepted[0].json.id as string;
    const done = Date.now() + 90_000;
    const status = async () => (await (await fetch(new URL(`/v2/check-jobs/${jobId}`, d.baseUrl), { headers: { Authorization: `Bearer ${d.liveKey}` } })).json() as { status: string }).status;
    while ((await status()) !== 'done') {
      if (Date.now() > done) throw new Error('the job did not finish');
      await new Promise((r) => setTimeout(r, 200));
    }
    // This deployment's database is its own: its only live job rows are this job's (recorded by
    // the projection in the same write that completes it).
    const month = new Date().toISOString().slice(0, 7);
    const usage = (await d.platform.usage.monthly(month)).filter((u) => u.kind === 'job_row');
    expect(usage).toEqual([{ org_id: expect.any(String), kind: 'job_row', count: 400, entries: 1 }]);
    // Afterwards both processes replay the same answer.
    for (const base of [d.baseUrl, secondUrl]) {
      const again = await post(base, key, body);
      expect(again).toMatchObject({ status: 202, replayed: 'true' });
      expect(again.json.id).toBe(jobId);
    }
  }, 180_000);

  it('the same key with another body is 422 idempotency_key_reused on the other process', async () => {
    const key = `reuse-${Date.now()}`;
    const first = await post(d.baseUrl, key, JSON.stringify({ people: mixedRows(3).map((r) => r.person) }));
    expect(first.status).toBe(202);
    const other = await post(secondUrl, key, JSON.stringify({ people: mixedRows(4).map((r) => r.person) }));
    expect(other.status).toBe(422);
    expect(other.json.error.details.reason).toBe('idempotency_key_reused');
  }, 60_000);
});
