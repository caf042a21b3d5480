/**
 * The read-ahead's cache alone (services/api/results-read-ahead.ts; docs/architecture.md
 * "Read-ahead"): exact keys, taken once, failures forgotten, and its bounds: time, pages, bytes.
 * Whether a page may be served is the route's (test/e2e/results-read-ahead.distributed.test.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createResultsReadAhead, READ_AHEAD_LIMITS, type ReadAheadKey } from '../../../services/api/results-read-ahead.ts';
import type { ResultBytesPage } from '../../../services/platform/store/jobs-port.ts';

const job = (id: string) => ({ id, list_version: { id: 'v1', published_at: '2026-11-01T00:00:00Z' } as never });
const key = (over: Partial<ReadAheadKey> = {}): ReadAheadKey => ({ org_id: 'org-a', mode: 'live', job_id: 'job-1', cursor: 'c1', limit: 100, ...over });
const pageOf = (bytes: number, next: string | null = null): ResultBytesPage => ({ pieces: [Buffer.alloc(bytes, 0x61)], count: 1, next_cursor: next });

/** Lets the settled reads' callbacks run (promise jobs only, no timers). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('results read-ahead cache', () => {
  it('serves a page only for exactly its key (organisation, mode, job, cursor, limit), and once', async () => {
    const ahead = createResultsReadAhead();
    const page = pageOf(10, 'c2');
    let reads = 0;
    ahead.start(key(), job('job-1'), async () => { reads += 1; return page; });
    // Started again for the same key while held: not read twice.
    ahead.start(key(), job('job-1'), async () => { reads += 1; return page; });
    expect(reads).toBe(1);
    for (const other of [{ org_id: 'org-b' }, { mode: 'test' as const }, { job_id: 'job-2' }, { cursor: 'c9' }, { limit: 101 }]) {
      expect(ahead.take(key(other)), JSON.stringify(other)).toBeNull();
    }
    const taken = await ahead.take(key());
    expect(taken?.page).toBe(page);
    expect(taken?.job.id).toBe('job-1');
    expect(ahead.take(key()), 'taken once').toBeNull();
    expect(ahead.counts()).toEqual({ started: 1, taken: 1, failed: 0, dropped: 0 });
    expect(ahead.held()).toEqual({ pages: 0, bytes: 0 });
  });

  it('hands out a page still in flight, and its read when it ends', async () => {
    const ahead = createResultsReadAhead();
    let finish: (page: ResultBytesPage) => void = () => {};
    ahead.start(key(), job('job-1'), () => new Promise((resolve) => { finish = resolve; }));
    const taken = ahead.take(key());
    expect(taken).not.toBeNull();
    const page = pageOf(5);
    finish(page);
    expect((await taken)?.page).toBe(page);
    // Taken before it was read: its bytes were never counted as held.
    expect(ahead.held()).toEqual({ pages: 0, bytes: 0 });
  });

  it('forgets a failed read: taken before the failure it gives null, after it nothing is held', async () => {
    const ahead = createResultsReadAhead();
    ahead.start(key(), job('job-1'), async () => { throw new Error('store down'); });
    expect(await ahead.take(key())).toBeNull();
    ahead.start(key({ cursor: 'c2' }), job('job-1'), async () => { throw new Error('store down'); });
    await settled();
    expect(ahead.take(key({ cursor: 'c2' }))).toBeNull();
    expect(ahead.counts().failed).toBe(2);
    expect(ahead.held()).toEqual({ pages: 0, bytes: 0 });
  });

  it('forgetJob drops every page of that job and no other', async () => {
    const ahead = createResultsReadAhead();
    ahead.start(key(), job('job-1'), async () => pageOf(10));
    ahead.start(key({ limit: 50 }), job('job-1'), async () => pageOf(10));
    ahead.start(key({ job_id: 'job-2' }), job('job-2'), async () => pageOf(7));
    await settled();
    expect(ahead.held('job-1')).toEqual({ pages: 2, bytes: 20 });
    ahead.forgetJob('job-1');
    expect(ahead.held()).toEqual({ pages: 1, bytes: 7 });
    expect(ahead.take(key())).toBeNull();
    expect(ahead.take(key({ job_id: 'job-2' }))).not.toBeNull();
    expect(ahead.counts().dropped).toBe(2);
  });

  it('drops an entry after its time, whether or not anyone asks', async () => {
    vi.useFakeTimers();
    const ahead = createResultsReadAhead({ ...READ_AHEAD_LIMITS, ttlMs: 30_000 });
    ahead.start(key(), job('job-1'), async () => pageOf(10));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(ahead.held()).toEqual({ pages: 1, bytes: 10 });
    await vi.advanceTimersByTimeAsync(1);
    expect(ahead.held()).toEqual({ pages: 0, bytes: 0 });
    expect(ahead.take(key())).toBeNull();
    expect(ahead.counts().dropped).toBe(1);
  });

  it('holds at most maxPages pages: the oldest goes first', async () => {
    const ahead = createResultsReadAhead({ maxPages: 3, maxBytes: 1_000, ttlMs: 30_000 });
    for (let i = 1; i <= 4; i++) ahead.start(key({ cursor: `c${i}` }), job('job-1'), async () => pageOf(10));
    await settled();
    expect(ahead.held().pages).toBe(3);
    expect(ahead.take(key({ cursor: 'c1' })), 'the oldest').toBeNull();
    for (const cursor of ['c2', 'c3', 'c4']) expect(ahead.take(key({ cursor }))).not.toBeNull();
  });

  it('holds at most maxBytes: older pages go for a newer one, a page larger than the bound alone is not kept', async () => {
    const ahead = createResultsReadAhead({ maxPages: 8, maxBytes: 100, ttlMs: 30_000 });
    ahead.start(key({ cursor: 'c1' }), job('job-1'), async () => pageOf(40));
    ahead.start(key({ cursor: 'c2' }), job('job-1'), async () => pageOf(40));
    await settled();
    expect(ahead.held()).toEqual({ pages: 2, bytes: 80 });
    ahead.start(key({ cursor: 'c3' }), job('job-1'), async () => pageOf(40));
    await settled();
    expect(ahead.held()).toEqual({ pages: 2, bytes: 80 });
    expect(ahead.take(key({ cursor: 'c1' })), 'the oldest went').toBeNull();
    ahead.start(key({ cursor: 'big' }), job('job-1'), async () => pageOf(101));
    await settled();
    expect(ahead.take(key({ cursor: 'big' }))).toBeNull();
    expect(ahead.held().bytes).toBeLessThanOrEqual(100);
  });

  it('maxPages 0 reads nothing ahead', () => {
    const ahead = createResultsReadAhead({ maxPages: 0, maxBytes: 100, ttlMs: 30_000 });
    let reads = 0;
    ahead.start(key(), job('job-1'), async () => { reads += 1; return pageOf(1); });
    expect(reads).toBe(0);
    expect(ahead.take(key())).toBeNull();
  });
});
