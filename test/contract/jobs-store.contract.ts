import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emptyLevelCounts } from '../../services/domain/check-job.ts';
import type { CheckResult, Status } from '../../services/domain/types.ts';
import type { JobRecord, JobStore, ResultBytesPage, ResultRow } from '../../services/platform/store/jobs-port.ts';
import {
  decodeCursor, encodeCursor, InvalidCursorError, JobExistsError, RESULT_RECORD_FORMAT, resultRecords, UnknownRecordFormatError, type ResultRecord,
} from '../../services/platform/store/job-results.ts';
import type { VerdictColumns } from '../../services/platform/store/result-verdicts.ts';
import { resultShapeRows } from '../fixtures/result-shapes.ts';
import { useHarness } from './harness.ts';

/** What a test file hands the suite: a fresh store, and how to release it afterwards. */
export interface JobStoreHarness {
  store: JobStore;
  /** The record format putResults writes (job-results.ts; RESULT_RECORD_FORMAT when not given). */
  writesFormat?: number;
  /**
   * The adapter's result records seen past the port (docs/platform-clickhouse-registry.md
   * "Record formats"): the stored format of each, and a record stored as a writer of another
   * format would store it.
   */
  records: {
    formats(jobId: string): Promise<Array<{ first_row: number; record_format: number }>>;
    /** Stores the record as given; verdict columns null as a writer from before them stored it. */
    write(jobId: string, deleteAfter: string, record: WrittenRecord): Promise<void>;
  };
  close(): Promise<void>;
}

/** A result record as some writer stored it: the verdict columns NULL where it came before them. */
export type WrittenRecord = Omit<ResultRecord, keyof VerdictColumns> & { [K in keyof VerdictColumns]: string | null };

/** A result record as a writer from before the verdict columns stored it. */
export function withoutVerdicts(record: ResultRecord): WrittenRecord {
  return { ...record, ids: null, verdicts: null, verdict_rows: null };
}

/** What a result file must read for a stored result line: its id and its verdict (all but id and address). */
export function verdictOfJson(line: string): { id: unknown; verdict: unknown } {
  const { id = null, address: _address, ...verdict } = JSON.parse(line) as Record<string, unknown>;
  return { id, verdict };
}

/** The JobStore conformance suite: every adapter passes it unchanged. */
export function jobsStoreContract(adapter: string, open: () => Promise<JobStoreHarness>): void {
  describe(`JobStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): JobStore => harness().store;

    it('creates a job and finds it only within its organisation and mode', async () => {
      const job = makeJob();
      await store().createJob(job);
      expect(await store().getJob({ org_id: job.org_id, mode: 'live' }, job.id)).toEqual(job);
      expect(await store().getJob({ org_id: job.org_id, mode: 'test' }, job.id)).toBeNull();
      expect(await store().getJob({ org_id: randomUUID(), mode: 'live' }, job.id)).toBeNull();
      expect(await store().getJob({ org_id: job.org_id, mode: 'live' }, randomUUID())).toBeNull();
      expect(await store().getJobById(job.id)).toEqual(job);
    });

    it('refuses a second job with the same id', async () => {
      const job = makeJob();
      await store().createJob(job);
      await expect(store().createJob({ ...job, org_id: randomUUID() })).rejects.toBeInstanceOf(JobExistsError);
      expect((await store().getJobById(job.id))?.org_id).toBe(job.org_id);
    });

    it('updates state, counters and callback outcome; identity never changes', async () => {
      const job = makeJob();
      await store().createJob(job);
      const level_counts = { ...emptyLevelCounts(), '0': 3, unread: 1 };
      const callback = {
        last_status: 503, attempts: 2, state: 'pending' as const,
        last_attempt_at: '2026-02-01T10:00:05.000Z', delivery_id: randomUUID(),
      };
      const updated = await store().updateJob(job.id, {
        status: 'running', processed_count: 4, allowed_count: 3, manual_count: 1, level_counts,
        callback, updated_at: '2026-02-01T10:00:06.000Z',
        ...({ id: 'other', org_id: 'other', created_at: 'x' } as object),
      });
      expect(updated).toEqual({
        ...job, status: 'running', processed_count: 4, allowed_count: 3, manual_count: 1,
        level_counts, callback, updated_at: '2026-02-01T10:00:06.000Z',
      });
      expect(await store().getJobById(job.id)).toEqual(updated);
      const done = await store().updateJob(job.id, { status: 'done', finished_at: '2026-02-01T10:01:00.000Z', error: null });
      expect(done?.status).toBe('done');
      expect(done?.processed_count).toBe(4);
      expect((await store().getJob({ org_id: job.org_id, mode: 'live' }, job.id))?.finished_at).toBe('2026-02-01T10:01:00.000Z');
      expect(await store().updateJob(randomUUID(), { status: 'done' })).toBeNull();
    });

    it('applies patches of one job written at once, losing none (as the API and the projection do)', async () => {
      // Each call is its own read and write, as from two processes: a patch must never undo another.
      for (let round = 0; round < 3; round++) {
        const job = makeJob();
        await store().createJob(job);
        const sha = 'c'.repeat(64);
        await Promise.all([
          store().updateJob(job.id, { row_count: 7, input_sha256: sha }),
          store().updateJob(job.id, { status: 'running', error: 'x' }),
          store().updateJob(job.id, { processed_count: 5 }),
          store().updateJob(job.id, { allowed_count: 4 }),
        ]);
        expect(await store().getJobById(job.id)).toMatchObject({
          row_count: 7, input_sha256: sha, status: 'running', error: 'x', processed_count: 5, allowed_count: 4,
        });
      }
    });

    it('applies a patch to a finished job as written', async () => {
      const job = makeJob();
      await store().createJob(job);
      await store().updateJob(job.id, { status: 'failed', error: 'unreadable_message', finished_at: '2026-02-01T10:01:00.000Z' });
      const patched = await store().updateJob(job.id, { row_count: 100_000, input_sha256: 'd'.repeat(64) });
      expect(patched).toMatchObject({ status: 'failed', row_count: 100_000, input_sha256: 'd'.repeat(64) });
      expect(await store().getJobById(job.id)).toEqual(patched);
    });

    it('keeps a finished job\'s row count and input hash from a patch conditional on an unfinished job (the late seal)', async () => {
      const unfinished = (current: JobRecord) => current.status !== 'done' && current.status !== 'failed';
      const seal = { row_count: 100_000, input_sha256: 'd'.repeat(64), updated_at: '2026-02-01T10:02:00.000Z' };
      const failed = makeJob();
      await store().createJob(failed);
      const before = await store().updateJob(failed.id, { status: 'failed', error: 'unreadable_message', finished_at: '2026-02-01T10:01:00.000Z' });
      expect(await store().updateJob(failed.id, seal, unfinished)).toEqual(before);
      expect(await store().getJobById(failed.id)).toEqual(before);
      const running = makeJob({ status: 'running' });
      await store().createJob(running);
      expect(await store().updateJob(running.id, seal, unfinished)).toEqual({ ...running, ...seal });
      expect(await store().getJobById(running.id)).toEqual({ ...running, ...seal });
      expect(await store().updateJob(randomUUID(), seal, unfinished)).toBeNull();
    });

    it('stores results idempotently on (job_id, row) and counts them exactly', async () => {
      const job = makeJob();
      await store().createJob(job);
      await store().putResults(job.id, job.delete_after, rows(0, 10));
      await store().putResults(job.id, job.delete_after, rows(5, 15)); // redelivery overlaps 5..9
      await store().putResults(job.id, job.delete_after, rows(0, 15)); // the whole job again
      const counts = await store().countResults(job.id);
      const expected = expectedCounts(0, 15);
      expect(counts).toEqual(expected);
      const page = await store().readResults(job.id, { limit: 100 });
      expect(page.rows.map((r) => r.row)).toEqual(range(0, 15));
      expect(page.next_cursor).toBeNull();
    });

    it('stores a 20,000-row batch, some of its rows stored before and out of order, each row once with exact counts', async () => {
      // A redelivered batch larger than one record block group, part of it stored by an earlier
      // batch: the stored rows are left out, the rest stored once.
      const job = makeJob();
      await store().createJob(job);
      await store().putResults(job.id, job.delete_after, rows(9_000, 11_500));
      const batch = rows(0, 20_000);
      await store().putResults(job.id, job.delete_after, [...batch.slice(10_000), ...batch.slice(0, 10_000)]);
      expect(await store().countResults(job.id)).toEqual(expectedCounts(0, 20_000));
      const first = await store().readResults(job.id, { limit: 10_000 });
      const second = await store().readResults(job.id, { cursor: first.next_cursor, limit: 10_000 });
      expect([...first.rows, ...second.rows].map((r) => r.row)).toEqual(range(0, 20_000));
      expect(second.rows[1_499]).toEqual(batch[11_499]);
      expect(second.next_cursor).toBeNull();
    });

    it('keeps results of different jobs apart', async () => {
      const a = makeJob();
      const b = makeJob();
      await store().createJob(a);
      await store().createJob(b);
      await store().putResults(a.id, a.delete_after, rows(0, 3));
      await store().putResults(b.id, b.delete_after, rows(0, 7));
      expect((await store().countResults(a.id)).processed).toBe(3);
      expect((await store().countResults(b.id)).processed).toBe(7);
      expect(await store().countResults(randomUUID())).toEqual({ processed: 0, allowed: 0, blocked: 0, manual: 0, level_counts: emptyLevelCounts() });
    });

    it('pages in row order with an opaque cursor, whatever order rows arrived in', async () => {
      const job = makeJob();
      await store().createJob(job);
      await store().putResults(job.id, job.delete_after, rows(20, 25).reverse());
      await store().putResults(job.id, job.delete_after, rows(0, 20).reverse());
      const seen: ResultRow[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const page = await store().readResults(job.id, { cursor, limit: 10 });
        sizes.push(page.rows.length);
        seen.push(...page.rows);
        cursor = page.next_cursor;
      } while (cursor);
      expect(sizes).toEqual([10, 10, 5]);
      expect(seen).toEqual(rows(0, 25));

      const exact = await store().readResults(job.id, { limit: 25 });
      expect(exact.rows).toHaveLength(25);
      expect(exact.next_cursor).toBeNull();
    });

    it('pages across gaps in row numbers', async () => {
      const job = makeJob();
      await store().createJob(job);
      const sparse = [0, 1, 2, 10, 11, 50, 51, 52, 53, 999].map((i) => rows(i, i + 1)[0]);
      await store().putResults(job.id, job.delete_after, sparse);
      const pages: number[][] = [];
      let cursor: string | null = null;
      do {
        const page = await store().readResults(job.id, { cursor, limit: 3 });
        pages.push(page.rows.map((r) => r.row));
        cursor = page.next_cursor;
      } while (cursor);
      expect(pages).toEqual([[0, 1, 2], [10, 11, 50], [51, 52, 53], [999]]);
    });

    it('pages one row at a time through 120 single rows, and past a long gap (as stored JSON too)', async () => {
      const job = makeJob();
      await store().createJob(job);
      // Every other row of 0..240 (each its own record where records are kept: far more records
      // before a late cursor than a one-row page needs), then one far away.
      const evens = Array.from({ length: 121 }, (_, i) => 2 * i);
      await store().putResults(job.id, job.delete_after, [...evens, 50_000].map((i) => rows(i, i + 1)[0]));
      const seen: number[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 120; i++) {
        const page = await store().readResults(job.id, { cursor, limit: 1 });
        seen.push(...page.rows.map((r) => r.row));
        cursor = page.next_cursor;
      }
      expect(seen).toEqual(evens.slice(0, 120));
      const json = await store().readResultsJson(job.id, { cursor, limit: 5 });
      expect(json.results.map((r) => (JSON.parse(r) as { id: string }).id)).toEqual([rows(240, 241)[0].result.id, rows(50_000, 50_001)[0].result.id]);
      expect(json.next_cursor).toBeNull();
    });

    it('gives each row\'s stored cells beside its JSON result, as readResults reads them, and its id and verdict as a result file reads them', async () => {
      // docs/architecture.md "Result files": the file reads ids, verdicts and cells as text.
      const job = makeJob();
      await store().createJob(job);
      const stored = resultShapeRows(1500);
      await store().putResults(job.id, job.delete_after, stored);
      const seen: Array<{ result: unknown; cells: unknown }> = [];
      let cursor: string | null = null;
      do {
        const json = await store().readResultsJson(job.id, { cursor, limit: 1000 });
        expect(json.cells).toHaveLength(json.results.length);
        // The same page as ids and verdicts: what JSON.parse of each line gives, but the address.
        const verdicts = await store().readResultVerdicts(job.id, { cursor, limit: 1000 });
        expect(verdicts.next_cursor).toBe(json.next_cursor);
        expect(verdicts.cells).toEqual(json.cells);
        expect(verdicts.ids.map((id, i) => ({ id: JSON.parse(id) as unknown, verdict: JSON.parse(verdicts.verdicts[i]) as unknown }))).toEqual(json.results.map(verdictOfJson));
        json.results.forEach((r, i) => seen.push({ result: JSON.parse(r), cells: JSON.parse(json.cells[i]) }));
        cursor = json.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual(stored.map((r) => ({ result: r.result, cells: r.cells })));
    });

    it('reads the verdicts of records stored before the verdict columns from their lines, as the same texts', async () => {
      // docs/platform-clickhouse-registry.md "Result records": NULL verdict columns, lines cut at read time.
      const job = makeJob();
      const old = makeJob();
      await store().createJob(job);
      await store().createJob(old);
      const stored = resultShapeRows(2100);
      await store().putResults(job.id, job.delete_after, stored);
      // The same rows on another job, every other record as a writer from before the columns left it.
      const records = resultRecords(stored, () => false);
      for (const [i, record] of records.entries()) await harness().records.write(old.id, old.delete_after, i % 2 === 0 ? withoutVerdicts(record) : record);
      for (const limit of [7, 1000, 10_000]) {
        let cursor: string | null = null;
        for (let page = 0; limit > 7 || page < 20; page++) {
          const expected = await store().readResultVerdicts(job.id, { cursor, limit });
          const read = await store().readResultVerdicts(old.id, { cursor: cursor === null ? null : encodeCursor(old.id, decodeCursor(job.id, cursor)), limit });
          expect({ ...read, next_cursor: read.next_cursor === null ? null : encodeCursor(job.id, decodeCursor(old.id, read.next_cursor)) }).toEqual(expected);
          cursor = expected.next_cursor;
          if (cursor === null) break;
        }
      }
    });

    it('serves a page as bytes equal to its JSON results joined with commas, on every result shape and cursor', async () => {
      // docs/architecture.md "Results pages": the bytes are the stored JSON, not a re-serialisation.
      const job = makeJob();
      await store().createJob(job);
      const stored = resultShapeRows(2500);
      await store().putResults(job.id, job.delete_after, stored);
      for (const limit of [7, 333, 1000, 10_000]) {
        let cursor: string | null = null;
        let total = 0;
        // Limit 7: the first 20 pages (cursors inside records and across gaps); the others to the end.
        for (let page = 0; limit > 7 || page < 20; page++) {
          const json = await store().readResultsJson(job.id, { cursor, limit });
          const bytes = await store().readResultsBytes(job.id, { cursor, limit });
          expect(bytes.count).toBe(json.results.length);
          expect(bytes.next_cursor).toBe(json.next_cursor);
          const served = Buffer.concat(bytes.pieces);
          if (!served.equals(Buffer.from(json.results.join(','), 'utf8'))) expect(served.toString('utf8')).toBe(json.results.join(','));
          total += bytes.count;
          cursor = bytes.next_cursor;
          if (cursor === null) break;
        }
        if (limit > 7) expect(total).toBe(stored.length);
      }
      const all = await store().readResultsBytes(job.id, { limit: 10_000 });
      expect(JSON.parse(`[${Buffer.concat(all.pieces).toString('utf8')}]`)).toEqual(stored.map((r) => r.result));
      const none = await store().readResultsBytes(makeJob().id, { limit: 10 });
      expect({ ...none, pieces: Buffer.concat(none.pieces).toString('utf8') }).toEqual({ pieces: '', count: 0, next_cursor: null });
    });

    it('reads a done job with its page in one call, as getJob and readResultsBytes give them, and no page of a job not done or out of scope', async () => {
      // docs/architecture.md "Results pages": one round trip a page on ClickHouse.
      const job = makeJob({ status: 'done' });
      const running = makeJob({ status: 'running' });
      const purged = makeJob({ status: 'done' });
      for (const j of [job, running, purged]) {
        await store().createJob(j);
        await store().putResults(j.id, j.delete_after, resultShapeRows(2500));
      }
      await store().purgeJob(purged.id, '2026-03-01T00:00:00.000Z');
      const scope = { org_id: job.org_id, mode: job.mode };
      const asBytes = (page: ResultBytesPage | null) => page && { ...page, pieces: Buffer.concat(page.pieces).toString('utf8') };
      for (const limit of [7, 1000, 10_000]) {
        let cursor: string | null = null;
        for (let page = 0; limit > 7 || page < 20; page++) {
          const together = await store().readDoneResultsBytes(scope, job.id, { cursor, limit });
          const apart = await store().readResultsBytes(job.id, { cursor, limit });
          expect({ job: together.job, page: asBytes(together.page) }).toEqual({ job: await store().getJob(scope, job.id), page: asBytes(apart) });
          cursor = apart.next_cursor;
          if (cursor === null) break;
        }
      }
      expect(await store().readDoneResultsBytes({ ...scope, org_id: randomUUID() }, job.id, { limit: 10 })).toEqual({ job: null, page: null });
      expect(await store().readDoneResultsBytes({ ...scope, mode: scope.mode === 'live' ? 'test' : 'live' }, job.id, { limit: 10 })).toEqual({ job: null, page: null });
      expect(await store().readDoneResultsBytes(scope, makeJob().id, { limit: 10 })).toEqual({ job: null, page: null });
      const notDone = await store().readDoneResultsBytes({ org_id: running.org_id, mode: running.mode }, running.id, { limit: 10 });
      expect(notDone).toEqual({ job: await store().getJob({ org_id: running.org_id, mode: running.mode }, running.id), page: null });
      const gone = await store().readDoneResultsBytes({ org_id: purged.org_id, mode: purged.mode }, purged.id, { limit: 10 });
      expect(gone.job?.status).toBe('deleted');
      expect(gone.page).toBeNull();
    });

    it('rejects a cursor from another job, a forged cursor and a limit out of 1..10000', async () => {
      const a = makeJob();
      const b = makeJob();
      await store().createJob(a);
      await store().createJob(b);
      await store().putResults(a.id, a.delete_after, rows(0, 4));
      await store().putResults(b.id, b.delete_after, rows(0, 4));
      const { next_cursor } = await store().readResults(a.id, { limit: 2 });
      expect(next_cursor).toEqual(expect.any(String));
      await expect(store().readResults(b.id, { cursor: next_cursor, limit: 2 })).rejects.toBeInstanceOf(InvalidCursorError);
      for (const forged of ['abc', "'; DROP TABLE check_results; --", Buffer.from(`r1.${a.id}.-1`).toString('base64url'), '%%%']) {
        await expect(store().readResults(a.id, { cursor: forged, limit: 2 })).rejects.toBeInstanceOf(InvalidCursorError);
      }
      for (const limit of [0, -1, 10_001, 1.5]) {
        await expect(store().readResults(a.id, { limit })).rejects.toBeInstanceOf(RangeError);
      }
      // A result file's pages of verdicts may be ten times an API page (jobs-port.ts MAX_VERDICT_PAGE).
      expect((await store().readResultVerdicts(a.id, { limit: 100_000 })).ids).toHaveLength(4);
      for (const limit of [0, 100_001, 1.5]) {
        await expect(store().readResultVerdicts(a.id, { limit })).rejects.toBeInstanceOf(RangeError);
      }
    });

    it('serves a full page of 10,000 rows', async () => {
      const job = makeJob();
      await store().createJob(job);
      await store().putResults(job.id, job.delete_after, rows(0, 10_001));
      const first = await store().readResults(job.id, { limit: 10_000 });
      expect(first.rows).toHaveLength(10_000);
      expect(first.rows[9_999].row).toBe(9_999);
      const second = await store().readResults(job.id, { cursor: first.next_cursor, limit: 10_000 });
      expect(second.rows.map((r) => r.row)).toEqual([10_000]);
      expect(second.next_cursor).toBeNull();
    });

    it('purges a job: personal data gone, counts and certificate kept, stays deleted', async () => {
      const job = makeJob({
        status: 'done', processed_count: 6, allowed_count: 4, blocked_count: 1, manual_count: 1,
        preview: [{ cells: ['Anne Hansen', 'Vestergade 1'], result: result(0, 'allowed', 0) }],
        certificate_token: 'header.payload.signature',
      });
      await store().createJob(job);
      await store().putResults(job.id, job.delete_after, rows(0, 6));
      const purged = await store().purgeJob(job.id, '2026-03-01T00:00:00.000Z');
      expect(purged).toEqual({ ...job, status: 'deleted', preview: [], updated_at: '2026-03-01T00:00:00.000Z' });
      expect(await store().getJobById(job.id)).toEqual(purged);
      expect(await store().readResults(job.id, { limit: 10 })).toEqual({ rows: [], next_cursor: null });
      expect((await store().countResults(job.id)).processed).toBe(0);
      const after = await store().updateJob(job.id, { status: 'done', preview: job.preview });
      expect(after?.status).toBe('deleted');
      expect(after?.preview).toEqual([]);
      await store().putResults(job.id, job.delete_after, rows(0, 6)); // a late redelivery
      expect((await store().countResults(job.id)).processed).toBe(0);
      expect(await store().purgeJob(randomUUID(), '2026-03-01T00:00:00.000Z')).toBeNull();
    });

    it('lists an organisation\'s recent jobs of one mode, newest first, deleted ones included', async () => {
      const org = randomUUID();
      const at = (minute: number) => `2026-02-01T09:${String(minute).padStart(2, '0')}:00.000Z`;
      const oldest = makeJob({ org_id: org, created_at: at(1) });
      const middle = makeJob({ org_id: org, created_at: at(2), status: 'draft' });
      const newest = makeJob({ org_id: org, created_at: at(3) });
      const testMode = makeJob({ org_id: org, created_at: at(4), mode: 'test' });
      const otherOrg = makeJob({ created_at: at(5) });
      for (const job of [middle, oldest, newest, testMode, otherOrg]) await store().createJob(job);
      await store().purgeJob(oldest.id, at(6));
      await store().updateJob(middle.id, { status: 'queued' });
      const live = await store().listRecentJobs({ org_id: org, mode: 'live' }, 10);
      expect(live.map((j) => [j.id, j.status])).toEqual([[newest.id, 'queued'], [middle.id, 'queued'], [oldest.id, 'deleted']]);
      expect((await store().listRecentJobs({ org_id: org, mode: 'live' }, 2)).map((j) => j.id)).toEqual([newest.id, middle.id]);
      expect((await store().listRecentJobs({ org_id: org, mode: 'test' }, 10)).map((j) => j.id)).toEqual([testMode.id]);
      expect(await store().listRecentJobs({ org_id: randomUUID(), mode: 'live' }, 10)).toEqual([]);
      await expect(store().listRecentJobs({ org_id: org, mode: 'live' }, 0)).rejects.toBeInstanceOf(RangeError);
    });

    it('filters the history by source, status, date and text, pages on, and leaves out discarded drafts when asked', async () => {
      const org = randomUUID();
      const at = (minute: number) => `2026-02-02T10:${String(minute).padStart(2, '0')}:00.000Z`;
      const kunder = makeJob({ org_id: org, created_at: at(1), source: 'upload', filename: 'Kunder marts.xlsx', status: 'done' });
      const emailed = makeJob({ org_id: org, created_at: at(2), source: 'email', filename: 'kunder-april.csv', external_ref: 'KAMPAGNE-7' });
      const discarded = makeJob({ org_id: org, created_at: at(3), source: 'upload', filename: 'kunder.csv', status: 'draft', list_version: null });
      const api = makeJob({ org_id: org, created_at: at(4), source: 'api', external_ref: "o'brien; --" });
      const sameTime = makeJob({ org_id: org, created_at: at(4), source: 'api' });
      for (const job of [kunder, emailed, discarded, api, sameTime]) await store().createJob(job);
      await store().purgeJob(discarded.id, at(5));
      const ids = async (filter: Parameters<JobStore['listRecentJobs']>[2], limit = 10) =>
        (await store().listRecentJobs({ org_id: org, mode: 'live' }, limit, filter)).map((j) => j.id);
      const byTime = [api, sameTime].map((j) => j.id).sort().reverse();
      expect(await ids({})).toEqual([...byTime, discarded.id, emailed.id, kunder.id]);
      expect(await ids({ hide_discarded_drafts: true })).toEqual([...byTime, emailed.id, kunder.id]);
      expect(await ids({ source: 'upload' })).toEqual([discarded.id, kunder.id]);
      expect(await ids({ status: 'done' })).toEqual([kunder.id]);
      expect(await ids({ created_from: at(2), created_before: at(4) })).toEqual([discarded.id, emailed.id]);
      expect(await ids({ search: 'KUNDER' })).toEqual([discarded.id, emailed.id, kunder.id]);
      expect(await ids({ search: 'kampagne-7' })).toEqual([emailed.id]);
      expect(await ids({ search: "o'brien; --" })).toEqual([api.id]);
      expect(await ids({ search: 'nothing like it' })).toEqual([]);
      // Paging: after the last job of a page, the next ones (the same created_at split by id).
      const first = await store().listRecentJobs({ org_id: org, mode: 'live' }, 1);
      expect(await ids({ after: { created_at: first[0].created_at, id: first[0].id } }, 2)).toEqual([byTime[1], discarded.id]);
    });

    it('lists jobs due for deletion, oldest first, never deleted ones', async () => {
      const org = randomUUID();
      // Far-past dates keep jobs of other tests (delete_after 2026) out of this window.
      const due1 = makeJob({ org_id: org, delete_after: '2001-01-02T00:00:00.000Z' });
      const due2 = makeJob({ org_id: org, delete_after: '2001-01-01T12:00:00.000Z' });
      const notYet = makeJob({ org_id: org, delete_after: '2001-01-03T00:00:00.000Z' });
      const gone = makeJob({ org_id: org, delete_after: '2001-01-01T00:00:00.000Z' });
      for (const job of [due1, due2, notYet, gone]) await store().createJob(job);
      await store().purgeJob(gone.id, '2001-01-01T00:00:00.000Z');
      const due = await store().listJobsDueForDeletion('2001-01-02T00:00:00.000Z', 10);
      expect(due.map((j) => j.id)).toEqual([due2.id, due1.id]);
      expect((await store().listJobsDueForDeletion('2001-01-02T00:00:00.000Z', 1)).map((j) => j.id)).toEqual([due2.id]);
    });

    it('lists jobs whose callback delivery is pending, and only those', async () => {
      const pending = (state: 'pending' | 'delivered' | 'failed') => ({
        delivery_id: randomUUID(), event: 'check_job.completed', state, attempts: 1, last_status: 500,
        last_attempt_at: '2026-02-01T10:00:00.000Z',
      });
      const waiting = makeJob({ status: 'done', callback: pending('pending') });
      const delivered = makeJob({ status: 'done', callback: pending('delivered') });
      const failed = makeJob({ status: 'failed', callback: pending('failed') });
      const none = makeJob({ status: 'done', callback: null });
      const later = makeJob({ status: 'running' });
      for (const job of [waiting, delivered, failed, none, later]) await store().createJob(job);
      await store().updateJob(later.id, { status: 'failed', callback: pending('pending') });
      await store().updateJob(waiting.id, { processed_count: 3 });
      const ids = (await store().listPendingCallbacks(10_000)).map((j) => j.id);
      expect(ids).toEqual(expect.arrayContaining([waiting.id, later.id]));
      for (const id of [delivered.id, failed.id, none.id]) expect(ids).not.toContain(id);
      await store().updateJob(waiting.id, { callback: pending('delivered') });
      expect((await store().listPendingCallbacks(10_000)).map((j) => j.id)).not.toContain(waiting.id);
      // A job deleted with its delivery still pending is no longer listed; the limit holds.
      const purged = makeJob({ status: 'done', callback: pending('pending') });
      await store().createJob(purged);
      expect((await store().listPendingCallbacks(10_000)).map((j) => j.id)).toContain(purged.id);
      await store().purgeJob(purged.id, '2026-02-02T00:00:00.000Z');
      expect((await store().listPendingCallbacks(10_000)).map((j) => j.id)).not.toContain(purged.id);
      expect(await store().listPendingCallbacks(1)).toHaveLength(1);
      await expect(store().listPendingCallbacks(0)).rejects.toBeInstanceOf(RangeError);
    });

    it('lists queued and running jobs whose intake stopped giving signs of life, and only those', async () => {
      // 2003 keeps the open intakes of other tests' jobs (created 2026) out of this window.
      const at = (minute: number) => new Date(Date.UTC(2003, 0, 1, 0, minute)).toISOString();
      const stalled = makeJob({ created_at: at(0) });
      const running = makeJob({ created_at: at(1) });
      const touched = makeJob({ created_at: at(0) });
      const closed = makeJob({ created_at: at(0) });
      const finished = makeJob({ created_at: at(0) });
      const purged = makeJob({ created_at: at(0) });
      const draft = makeJob({ created_at: at(0), status: 'draft' });
      const edge = makeJob({ created_at: at(10) });
      const all = [stalled, running, touched, closed, finished, purged, draft, edge];
      for (const job of all) await store().createJob(job);
      await store().updateJob(running.id, { status: 'running', processed_count: 2 });
      await store().touchIntake(touched.id, { at: at(20), closed: false });
      await store().touchIntake(touched.id, { at: at(5), closed: false }); // older: changes nothing
      await store().touchIntake(closed.id, { at: at(2), closed: true });
      await store().touchIntake(closed.id, { at: at(30), closed: false }); // closed stays closed
      await store().updateJob(finished.id, { status: 'failed', error: 'intake_failed' });
      await store().purgeJob(purged.id, at(3));

      const listed = async (minute: number, limit = 10_000) => {
        const ids = new Set(all.map((j) => j.id));
        return (await store().listStalledIntakes(at(minute), limit)).filter((j) => ids.has(j.id));
      };
      const found = await listed(10); // exclusive: `edge`, last seen at minute 10, is not before it
      expect(found.map((j) => j.id).sort()).toEqual([stalled.id, running.id].sort());
      expect(found.find((j) => j.id === running.id)).toMatchObject({ status: 'running', processed_count: 2 });
      expect((await listed(11)).map((j) => j.id).sort()).toEqual([stalled.id, running.id, edge.id].sort());
      expect((await listed(21)).map((j) => j.id)).toContain(touched.id);
      expect(await listed(0)).toEqual([]);
      expect(await store().listStalledIntakes(at(10), 1)).toHaveLength(1);
      await expect(store().listStalledIntakes(at(10), 0)).rejects.toBeInstanceOf(RangeError);

      await store().touchIntake(stalled.id, { at: at(40), closed: true });
      expect((await listed(60)).map((j) => j.id).sort()).toEqual([running.id, touched.id, edge.id].sort());
    });

    it('reads one job\'s intake: last sign of life, closed for good; null when it has none', async () => {
      const at = (minute: number) => new Date(Date.UTC(2004, 0, 1, 0, minute)).toISOString();
      const job = makeJob({ created_at: at(0) });
      const draft = makeJob({ created_at: at(0), status: 'draft' });
      await store().createJob(job);
      await store().createJob(draft);
      expect(await store().getIntake(job.id)).toEqual({ last_seen_at: at(0), closed: false });
      await store().touchIntake(job.id, { at: at(7), closed: false });
      await store().touchIntake(job.id, { at: at(3), closed: false }); // older: changes nothing
      expect(await store().getIntake(job.id)).toEqual({ last_seen_at: at(7), closed: false });
      await store().touchIntake(job.id, { at: at(9), closed: true });
      await store().touchIntake(job.id, { at: at(12), closed: false }); // closed stays closed
      expect(await store().getIntake(job.id)).toEqual({ last_seen_at: at(12), closed: true });
      expect(await store().getIntake(draft.id)).toBeNull();
      expect(await store().getIntake(randomUUID())).toBeNull();
    });

    it('drops results of jobs due before a day, keeping job records and later jobs', async () => {
      const early = makeJob({ delete_after: '2002-01-01T08:00:00.000Z', processed_count: 3 });
      const late = makeJob({ delete_after: '2002-03-01T08:00:00.000Z' });
      await store().createJob(early);
      await store().createJob(late);
      await store().putResults(early.id, early.delete_after, rows(0, 3));
      await store().putResults(late.id, late.delete_after, rows(0, 4));
      await store().dropResultsDueBefore('2002-01-01'); // the day itself is not before
      expect((await store().countResults(early.id)).processed).toBe(3);
      await store().dropResultsDueBefore('2002-02-01');
      expect((await store().countResults(early.id)).processed).toBe(0);
      expect((await store().countResults(late.id)).processed).toBe(4);
      expect(await store().getJobById(early.id)).toEqual(early);
    });

    it('keeps a file job\'s fields (draft → queued): format, columns, mapping, CSV dialect, preview cells; results with cells', async () => {
      const draft = makeJob({
        status: 'draft', source: 'upload', filename: 'kunder.csv', file_format: 'csv', columns: ['Kundenr.', 'Navn', ''],
        column_mapping: { header_row: 0, external_id: 'Kundenr.', name: 1 }, csv_dialect: { encoding: 'windows-1252', delimiter: ';' },
        preview: [{ cells: ['K-1', 'Åse Ørsted', null], result: result(0, 'allowed', 0) }], list_version: null,
      });
      await store().createJob(draft);
      expect(await store().getJobById(draft.id)).toEqual(draft);
      // A draft has no open intake: the stalled-intake sweep never lists it.
      // (Other tests of this suite leave stalled intakes in the same store: look for this job only.)
      const stalled = await store().listStalledIntakes('9999-01-01T00:00:00.000Z', 10_000);
      expect(stalled.map((job) => job.id)).not.toContain(draft.id);
      const queued = await store().updateJob(draft.id, { status: 'queued', column_mapping: { header_row: -1, name: 2 }, preview: [] });
      expect(queued).toMatchObject({ status: 'queued', csv_dialect: { encoding: 'windows-1252', delimiter: ';' }, column_mapping: { header_row: -1, name: 2 } });
      expect(await store().getJobById(draft.id)).toEqual(queued);
      const fileRows: ResultRow[] = [0, 1, 2].map((i) => ({ row: i, result: result(i, 'allowed', 0), cells: [`K-${i}`, '=1+2', null, 'æøå'] }));
      await store().putResults(draft.id, draft.delete_after, fileRows);
      expect((await store().readResults(draft.id, { limit: 10 })).rows).toEqual(fileRows);
    });

    it('stores each result record with the format it was written in', async () => {
      const job = makeJob();
      await store().createJob(job);
      await store().putResults(job.id, job.delete_after, rows(0, 10));
      await store().putResults(job.id, job.delete_after, rows(995, 1005)); // cut at row 1000
      const written = harness().writesFormat ?? RESULT_RECORD_FORMAT;
      expect(await harness().records.formats(job.id)).toEqual([
        { first_row: 0, record_format: written },
        { first_row: 995, record_format: written },
        { first_row: 1000, record_format: written },
      ]);
    });

    it('reads each record as its own format says, and refuses a format it does not know instead of misreading it', async () => {
      const job = makeJob();
      await store().createJob(job);
      await store().putResults(job.id, job.delete_after, rows(0, 10));
      // Rows 10..19 stored by another writer of today's format, rows 20..29 by a later version.
      const [beside] = resultRecords(rows(10, 20), () => false);
      await harness().records.write(job.id, job.delete_after, beside);
      const [later] = resultRecords(rows(20, 30), () => false);
      const unknownFormat = RESULT_RECORD_FORMAT + 98;
      await harness().records.write(job.id, job.delete_after, { ...later, record_format: unknownFormat, results: 'a layout of its own' });
      // A result file refuses it too, though its verdict columns look readable.
      const verdictPage = await store().readResultVerdicts(job.id, { limit: 20 });
      expect(verdictPage.ids).toHaveLength(20);
      await expect(store().readResultVerdicts(job.id, { cursor: verdictPage.next_cursor, limit: 20 })).rejects.toThrow(UnknownRecordFormatError);

      const first = await store().readResults(job.id, { limit: 20 });
      expect(first.rows).toEqual(rows(0, 20));
      expect(first.next_cursor).not.toBeNull();
      const json = await store().readResultsJson(job.id, { limit: 20 });
      expect(json.results.map((r) => JSON.parse(r) as CheckResult)).toEqual(rows(0, 20).map((r) => r.result));
      // Counts sit beside the records in a form of their own, whatever the format.
      expect(await store().countResults(job.id)).toEqual(expectedCounts(0, 30));
      await expect(store().readResults(job.id, { cursor: first.next_cursor, limit: 20 })).rejects.toThrow(UnknownRecordFormatError);
      await expect(store().readResultsJson(job.id, { cursor: json.next_cursor, limit: 20 })).rejects.toThrow(`format ${unknownFormat}`);
      const bytes = await store().readResultsBytes(job.id, { limit: 20 });
      expect(Buffer.concat(bytes.pieces).toString('utf8')).toBe(json.results.join(','));
      await expect(store().readResultsBytes(job.id, { cursor: bytes.next_cursor, limit: 20 })).rejects.toThrow(UnknownRecordFormatError);
    });

    it('round-trips hostile text in results and records unchanged', async () => {
      const hostile = "O'Brien \\ \u0000 '; DROP TABLE check_jobs; -- Søren 😀";
      const job = makeJob({ filename: hostile, external_ref: hostile, error: hostile });
      await store().createJob(job);
      expect(await store().getJobById(job.id)).toEqual(job);
      const row: ResultRow = { row: 0, result: { ...result(0, 'allowed', 0), id: hostile }, cells: [hostile, null] };
      await store().putResults(job.id, job.delete_after, [row]);
      expect((await store().readResults(job.id, { limit: 1 })).rows).toEqual([row]);
    });
  });
}

const STATUSES: Status[] = ['allowed', 'blocked', 'manual'];

/** Row i: status cycles through STATUSES, level i % 7 (6 stands for null). */
export function rows(from: number, to: number): ResultRow[] {
  return range(from, to).map((i) => {
    const level = i % 7 === 6 ? null : i % 7;
    return { row: i, result: result(i, STATUSES[i % 3], level), cells: i % 2 ? [`cell ${i}`, null] : null };
  });
}

function expectedCounts(from: number, to: number) {
  const counts = { processed: 0, allowed: 0, blocked: 0, manual: 0, level_counts: emptyLevelCounts() };
  for (const r of rows(from, to)) {
    counts.processed += 1;
    counts[r.result.status] += 1;
    const level = r.result.match.level;
    counts.level_counts[level === null ? 'unread' : (String(level) as '0')] += 1;
  }
  return counts;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

function result(i: number, status: Status, level: number | null): CheckResult {
  return {
    id: `ref-${i}`,
    status,
    reasons: level === null ? ['address_unreadable'] : [],
    level: level === null ? null : 'none',
    match: { level, code: level === null ? null : 'none', label: null, on: [], previous_address: false, approximate: false },
    stop_level: 1,
    address: null,
    phone_lookup: null,
  };
}

export function makeJob(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: randomUUID(),
    org_id: randomUUID(),
    mode: 'live',
    source: 'api',
    status: 'queued',
    filename: null,
    file_format: null,
    row_count: 6,
    processed_count: 0,
    allowed_count: 0,
    blocked_count: 0,
    manual_count: 0,
    level_counts: emptyLevelCounts(),
    columns: [],
    column_mapping: null,
    options: { policy: 'standard', stop_level: 2 },
    preview: [],
    price: { product: 'list_small', amount_cents: 49_500, currency: 'DKK' },
    list_version: { id: randomUUID(), source: 'cpr', published_on: '2026-01-01', activated_at: '2026-01-02T00:00:00.000Z' },
    certificate_token: null,
    error: null,
    delete_after: '2026-03-03T09:00:00.000Z',
    created_at: '2026-02-01T09:00:00.000Z',
    finished_at: null,
    callback_url: 'https://example.com/hook',
    callback: null,
    external_ref: null,
    key_hash: 'a'.repeat(64),
    input_sha256: 'b'.repeat(64),
    updated_at: '2026-02-01T09:00:00.000Z',
    ...overrides,
  };
}
