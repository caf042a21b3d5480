/**
 * Two API processes on one Kafka + ClickHouse deployment: the API in this process and
 * a second one as `npm run service -- api` (its own process, its own DATA_DIR), matchers and
 * projection as child processes. What one API process knows the other must honour:
 * - idempotency (docs/decisions.md §6): the same key sent to both at once makes one job and one charge;
 * - the rate limit (§11): a key at twice its rate, spread evenly over both, gets 429 for about half
 *   (each process alone would let all of it through: each sees only its rate).
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
    // A low rate so the rate test takes seconds: 10 requests/s, bursts of 5.
    d = await startDistributed(null, { matchers: 1, env: { RATE_LIMIT_PER_SECOND: '10', RATE_LIMIT_BURST: '5', RATE_LIMIT_SYNC_MS: '100' } });
    secondDataDir = mkdtempSync(join(tmpdir(), 'second-api-'));
    const second = await d.spawnService('api', { PORT: '0', DATA_DIR: secondDataDir });
    secondUrl = JSON.parse(second.output().split('\n').find((l) => l.includes('process.started')) as string).address;
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

  it('a key at twice its rate, alternating between the processes, gets 429 for about half, with Retry-After and RateLimit headers', async () => {
    const check = (base: string) => fetch(new URL('/v2/checks', base), {
      method: 'POST', headers: { Authorization: `Bearer ${d.testKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }),
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.text() }));
    // 20 requests/s for 8 s, sent on a fixed schedule whatever the answers, every other to each process.
    const sent: Array<Promise<Awaited<ReturnType<typeof check>>>> = [];
    const sentAt: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 160; i++) {
      const due = started + i * 50;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      sentAt.push(Date.now());
      sent.push(check(i % 2 ? secondUrl : d.baseUrl));
    }
    const answers = await Promise.all(sent);
    const limited = answers.filter((a) => a.status === 429);
    expect(answers.every((a) => a.status === 200 || a.status === 429), JSON.stringify(answers.map((a) => a.status))).toBe(true);
    // Allowed: the burst (5) plus 10/s over the time the requests took to send (8 s when the
    // machine keeps the schedule): ≈ 85 of 160, ≈ 47 % refused. A loaded machine stretches the
    // schedule, so the expectation is computed from the span actually taken.
    const spanS = (sentAt.at(-1)! - sentAt[0]) / 1000;
    const expectedRefused = Math.max(0, answers.length - (5 + 10 * spanS));
    const share = limited.length / answers.length;
    const what = `${limited.length} of ${answers.length} refused over ${spanS.toFixed(1)} s (expected ≈ ${Math.round(expectedRefused)})`;
    expect(Math.abs(limited.length - expectedRefused), what).toBeLessThan(0.12 * answers.length);
    expect(share, what).toBeGreaterThan(0.25);
    console.log(what);
    for (const a of answers) {
      expect(a.headers.get('ratelimit-policy')).toBe('10;w=1;burst=5');
      expect(a.headers.get('ratelimit-limit')).toBe('5');
      expect(Number(a.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(Number(a.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    }
    for (const a of limited) {
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(a.body).error.code).toBe('rate_limited');
    }
    // Which process does the refusing is timing, not a property: under load one process took
    // nearly the whole rate and refused 3 of its 80 while the other refused the rest (fresh-clone
    // CI, 2026-11-28), the total as expected. Each process alone would refuse none of its 10/s, so
    // the total above needs the exchange; that each counts the other's spending, one direction at
    // a time, is the store contract's (test/contract/rate-usage.contract.ts).
  }, 60_000);
});
