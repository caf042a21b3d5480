/**
 * The read-ahead's check on ClickHouse (JobStore donePageStored; docs/architecture.md
 * "Read-ahead"): a page read ahead may be served only while the job is `done` in the caller's
 * organisation and mode and the record holding the page's first row is still stored. Each case
 * below leaves the other half true, so each half of the statement is needed on its own.
 */
import { describe, expect, it } from 'vitest';
import { createClickHouseJobStore } from '../../services/platform/store/clickhouse/jobs.ts';
import { encodeCursor } from '../../services/platform/store/job-results.ts';
import type { JobRecord } from '../../services/platform/store/jobs-port.ts';
import { makeJob, rows } from '../contract/jobs-store.contract.ts';
import { openTestClickHouse } from '../support/clickhouse.ts';

describe('ClickHouse donePageStored: the read-ahead\'s one small statement', () => {
  it('is true only for a done job in scope whose page\'s first record is stored', async () => {
    const { conn, drop } = await openTestClickHouse('done_page_stored');
    try {
      const store = createClickHouseJobStore(conn);
      const scopeOf = (job: JobRecord) => ({ org_id: job.org_id, mode: job.mode });
      // Each job's results in a day partition of its own (delete_after), so retention's drop can take
      // one: `dropped`'s is the earliest.
      const [dropped, done, running, markedDeleted, purged] = ['done', 'done', 'running', 'done', 'done'].map((status, i) =>
        makeJob({ status: status as JobRecord['status'], delete_after: `2026-03-0${i + 2}T09:00:00.000Z` }));
      for (const job of [dropped, done, running, markedDeleted, purged]) {
        await store.createJob(job);
        await store.putResults(job.id, job.delete_after, rows(0, 2500));
      }
      const at = (job: JobRecord, row: number, limit = 300) => store.donePageStored!(scopeOf(job), job.id, { cursor: encodeCursor(job.id, row), limit });

      // Pages inside the job, at record bounds and across them.
      for (const row of [0, 299, 998, 999, 1000, 2498]) expect(await at(done, row), `after row ${row}`).toBe(true);
      // After the last row there is no page to serve.
      expect(await at(done, 2499)).toBe(false);
      // Another organisation or mode: no job.
      expect(await store.donePageStored!({ ...scopeOf(done), org_id: running.org_id }, done.id, { cursor: encodeCursor(done.id, 299), limit: 300 })).toBe(false);
      expect(await store.donePageStored!({ ...scopeOf(done), mode: 'test' }, done.id, { cursor: encodeCursor(done.id, 299), limit: 300 })).toBe(false);
      // Not done (its records are stored).
      expect(await at(running, 299)).toBe(false);
      // Deleted but not yet purged (a purge marks the job first): the status alone refuses.
      await store.updateJob(markedDeleted.id, { status: 'deleted' });
      expect(await at(markedDeleted, 299)).toBe(false);
      // Purged: deleted and its records gone.
      expect(await at(purged, 299)).toBe(true);
      await store.purgeJob(purged.id, new Date().toISOString());
      expect(await at(purged, 299)).toBe(false);
      // Retention's drop of its day (2026-03-02): still `done`, its records gone; the other days' stay.
      expect(await at(dropped, 299)).toBe(true);
      await store.dropResultsDueBefore('2026-03-03');
      expect((await store.getJobById(dropped.id))?.status).toBe('done');
      expect(await at(dropped, 299)).toBe(false);
      expect(await at(done, 299)).toBe(true);
    } finally {
      await drop();
    }
  });
});
