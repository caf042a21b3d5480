/**
 * The results read-ahead on Kafka + ClickHouse (docs/architecture.md "Read-ahead"): the API of the
 * deployment reads the next page while the client takes the one before; a second API on the same
 * stores (in this process, its own app and cache) reads every page when asked. What must hold:
 * - every page read with the read-ahead is the bytes of the page read without it;
 * - a job deleted between two pages, by the other API, by this one, or whose results retention
 *   dropped, gets the answer it got before read-ahead (410, or the empty page of a done job whose
 *   records are gone), never the bytes read ahead;
 * - a request for another page or another limit is not served from the cache.
 * The read-ahead's counters say when a page was taken out of the cache; the bytes say what was served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceContext, startApi, type RunningApi } from '../../services/processes.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { utcDay } from '../../services/platform/store/job-results.ts';
import { createResultsReadAhead, READ_AHEAD_LIMITS } from '../../services/api/results-read-ahead.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { mixedRows } from '../support/pipeline.ts';
import { until } from '../support/until.ts';

interface Page {
  status: number;
  bytes: Buffer;
  next: string | null;
  count: number;
}

describe('results read-ahead on Kafka + ClickHouse', () => {
  // The limits of the API's own, but entries kept for 10 minutes: a loaded machine must not let a
  // page expire between two requests of a test (expiry: test/unit/api/results-read-ahead.test.ts).
  const readAhead = createResultsReadAhead({ ...READ_AHEAD_LIMITS, ttlMs: 600_000 });
  let d: DistributedDeployment;
  let other: RunningApi;

  beforeAll(async () => {
    d = await startDistributed(null, { matchers: 1, overrides: { resultsReadAhead: readAhead } });
    // Another API instance on the same stores, without a read-ahead: today's answers, and a DELETE
    // that the read-ahead API hears nothing of.
    other = await startApi(createServiceContext(d.platform, d.config, silentLogger(), { resultsReadAhead: null }));
  }, 240_000);

  afterAll(async () => {
    await other?.stop();
    await d?.stop();
  });

  const auth = () => ({ Authorization: `Bearer ${d.liveKey}` });

  async function doneJob(rows: number, options: Record<string, unknown> = {}): Promise<string> {
    const created = await fetch(new URL('/v2/check-jobs', d.baseUrl), {
      method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ people: mixedRows(rows).map((r) => r.person), options }),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    let status = '';
    await until(`job ${id} done`, async () => {
      status = ((await (await fetch(new URL(`/v2/check-jobs/${id}`, d.baseUrl), { headers: auth() })).json()) as { status: string }).status;
      if (status === 'failed') throw new Error('the job failed');
      return status === 'done';
      // The deadline only bounds a failure: the deployment's first job took 90 s at load 16.
    }, 300_000, 100);
    return id;
  }

  async function page(base: string, id: string, limit: number, cursor: string | null): Promise<Page> {
    const url = new URL(`/v2/check-jobs/${id}/results?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, base);
    const response = await fetch(url, { headers: auth() });
    const bytes = Buffer.from(await response.arrayBuffer());
    const json = JSON.parse(bytes.toString('utf8')) as { results?: unknown[]; next_cursor?: string | null };
    return { status: response.status, bytes, next: json.next_cursor ?? null, count: json.results?.length ?? 0 };
  }

  /** The signal that the page after `cursor` has been read ahead: its bytes are held. */
  async function readAheadOf(id: string): Promise<void> {
    await until(`the read-ahead of job ${id}'s page 2`, () => readAhead.held(id).bytes > 0, 60_000);
  }

  it('every page read with the read-ahead is byte for byte the page read without it, and all but the first come from the cache', async () => {
    const rows = 2_300; // pages of 300 cross the stored records' 1,000-row bounds
    const id = await doneJob(rows);
    const before = readAhead.counts().taken;
    let cursor: string | null = null;
    let pages = 0;
    let results = 0;
    do {
      const ahead: Page = await page(d.baseUrl, id, 300, cursor);
      const plain = await page(other.address, id, 300, cursor);
      expect(ahead.status, ahead.bytes.toString('utf8').slice(0, 300)).toBe(200);
      expect(plain.status).toBe(200);
      expect(ahead.bytes.equals(plain.bytes), `page ${pages}`).toBe(true);
      pages += 1;
      results += ahead.count;
      cursor = ahead.next;
    } while (cursor !== null);
    expect(pages).toBe(Math.ceil(rows / 300));
    expect(results).toBe(rows);
    // Every page after the first was the one read ahead (taken out of the cache, its check passed).
    expect(readAhead.counts().taken - before).toBe(pages - 1);
    // The last page has no next one: nothing of the job is left read ahead.
    expect(readAhead.held(id).pages).toBe(0);
  }, 420_000);

  it('a job deleted through another API instance between two pages answers the next page 410, never the bytes read ahead', async () => {
    const id = await doneJob(600);
    const first = await page(d.baseUrl, id, 200, null);
    expect(first.status).toBe(200);
    await readAheadOf(id);
    const deleted = await fetch(new URL(`/v2/check-jobs/${id}`, other.address), { method: 'DELETE', headers: auth() });
    expect(deleted.status).toBe(200);
    const taken = readAhead.counts().taken;
    const next = await page(d.baseUrl, id, 200, first.next);
    expect(readAhead.counts().taken, 'the page read ahead was asked for').toBe(taken + 1);
    expect(next.status, next.bytes.toString('utf8').slice(0, 300)).toBe(410);
    expect(JSON.parse(next.bytes.toString('utf8')).error.code).toBe('gone');
    // The other API answers the same.
    expect((await page(other.address, id, 200, first.next)).status).toBe(410);
  }, 420_000);

  it('a job deleted through this API between two pages answers the next page 410; its pages read ahead are gone at once', async () => {
    const id = await doneJob(600);
    const first = await page(d.baseUrl, id, 200, null);
    expect(first.status).toBe(200);
    await readAheadOf(id);
    const deleted = await fetch(new URL(`/v2/check-jobs/${id}`, d.baseUrl), { method: 'DELETE', headers: auth() });
    expect(deleted.status).toBe(200);
    expect(readAhead.held(id), 'nothing of the deleted job is held').toEqual({ pages: 0, bytes: 0 });
    const next = await page(d.baseUrl, id, 200, first.next);
    expect(next.status, next.bytes.toString('utf8').slice(0, 300)).toBe(410);
  }, 420_000);

  it('a job whose results retention dropped answers the next page as without read-ahead (no rows), then 410 once purged', async () => {
    // One day of retention: its results are in a partition of their own (tomorrow's), which
    // retention's drop removes without touching the other tests' jobs (30 days).
    const id = await doneJob(600, { retention_days: 1 });
    const first = await page(d.baseUrl, id, 200, null);
    expect(first.status).toBe(200);
    await readAheadOf(id);
    // Retention's first step, as the sweep runs it (services/projection/retention.ts): whole days of
    // results up to the job's delete_after day dropped; the job itself is still `done` until purged.
    const dayAfter = utcDay(new Date(Date.now() + 2 * 86_400_000).toISOString());
    await d.platform.jobs.dropResultsDueBefore(dayAfter);
    const taken = readAhead.counts().taken;
    const next = await page(d.baseUrl, id, 200, first.next);
    const plain = await page(other.address, id, 200, first.next);
    expect(readAhead.counts().taken, 'the page read ahead was asked for').toBe(taken + 1);
    expect(next.status).toBe(200);
    expect(next.count, 'none of the rows read ahead').toBe(0);
    expect(next.bytes.equals(plain.bytes)).toBe(true);
    // Its second step: the job purged; the page is 410 from then on.
    await d.platform.jobs.purgeJob(id, new Date().toISOString());
    expect((await page(d.baseUrl, id, 200, first.next)).status).toBe(410);
  }, 420_000);

  it('a request for another page or another limit is not served from the cache', async () => {
    const id = await doneJob(1_000);
    const first = await page(d.baseUrl, id, 200, null);
    await readAheadOf(id);
    // Cursors the other API hands out are the same seals (one key ring): page 3's cursor.
    const second = await page(other.address, id, 200, first.next);
    expect(second.next).not.toBeNull();
    const taken = readAhead.counts().taken;
    // Page 3 while page 2 is held: read from the store, the bytes of page 3.
    const third = await page(d.baseUrl, id, 200, second.next);
    expect(third.bytes.equals((await page(other.address, id, 200, second.next)).bytes)).toBe(true);
    // Page 2 with another limit: read from the store, 150 rows.
    const shorter = await page(d.baseUrl, id, 150, first.next);
    expect(shorter.count).toBe(150);
    expect(shorter.bytes.equals((await page(other.address, id, 150, first.next)).bytes)).toBe(true);
    expect(readAhead.counts().taken, 'nothing taken from the cache').toBe(taken);
    // Page 2 as read ahead: taken, and the same bytes.
    const ahead = await page(d.baseUrl, id, 200, first.next);
    expect(readAhead.counts().taken).toBe(taken + 1);
    expect(ahead.bytes.equals(second.bytes)).toBe(true);
  }, 420_000);
});
