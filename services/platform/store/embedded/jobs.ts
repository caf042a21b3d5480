import type { DatabaseSync } from 'node:sqlite';
import type { Status } from '../../../domain/types.ts';
import type { JobRecord, JobStore, ResultRow } from '../jobs-port.ts';
import { flushDeleted, inTransaction } from './database.ts';
import {
  applyJobPatch, checkPageLimit, checkRowNumber, countsFromGroups, decodeCursor, encodeCursor,
  JobExistsError, storedLevel, timestampMs, utcDay,
} from '../job-results.ts';

/**
 * JobStore on the embedded database (see jobs-port.ts for the promises). A job is one row: the
 * columns the store filters on, plus the whole record as JSON. Results are one row per
 * (job_id, row); INSERT OR IGNORE makes a redelivered row a no-op.
 */
export function createEmbeddedJobStore(db: DatabaseSync): JobStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS check_jobs (
      id TEXT PRIMARY KEY,
      org_id TEXT NOT NULL,
      mode TEXT NOT NULL,
      status TEXT NOT NULL,
      delete_after_ms INTEGER NOT NULL,
      doc TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS check_jobs_due ON check_jobs (status, delete_after_ms);
    -- listRecentJobs: an expression index, so existing databases need no new column.
    CREATE INDEX IF NOT EXISTS check_jobs_recent ON check_jobs (org_id, mode, json_extract(doc, '$.created_at'));
    CREATE TABLE IF NOT EXISTS check_results (
      job_id TEXT NOT NULL,
      row INTEGER NOT NULL,
      delete_on TEXT NOT NULL,
      status TEXT NOT NULL,
      level INTEGER NOT NULL,
      record TEXT NOT NULL,
      PRIMARY KEY (job_id, row)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS check_results_delete_on ON check_results (delete_on);
    -- The intake's progress per job (jobs-port.ts touchIntake), apart from the record.
    CREATE TABLE IF NOT EXISTS check_job_intakes (
      job_id TEXT PRIMARY KEY,
      last_seen_ms INTEGER NOT NULL,
      closed INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS check_job_intakes_open ON check_job_intakes (closed, last_seen_ms);
  `);

  const insertJob = db.prepare(`INSERT OR IGNORE INTO check_jobs
    (id, org_id, mode, status, delete_after_ms, doc) VALUES (?, ?, ?, ?, ?, ?)`);
  const selectJob = db.prepare('SELECT doc FROM check_jobs WHERE id = ?');
  const selectScoped = db.prepare('SELECT doc FROM check_jobs WHERE id = ? AND org_id = ? AND mode = ?');
  const selectRecent = db.prepare(`SELECT doc FROM check_jobs WHERE org_id = ? AND mode = ?
    ORDER BY json_extract(doc, '$.created_at') DESC, id DESC LIMIT ?`);
  const writeJob = db.prepare('UPDATE check_jobs SET status = ?, doc = ? WHERE id = ?');
  const selectDue = db.prepare(`SELECT doc FROM check_jobs WHERE status != 'deleted'
    AND delete_after_ms <= ? ORDER BY delete_after_ms, id LIMIT ?`);
  const selectPendingCallbacks = db.prepare(`SELECT doc FROM check_jobs
    WHERE status IN ('done', 'failed') AND json_extract(doc, '$.callback.state') = 'pending' LIMIT ?`);
  const touchIntakeRow = db.prepare(`INSERT INTO check_job_intakes (job_id, last_seen_ms, closed)
    VALUES (?, ?, ?) ON CONFLICT (job_id) DO UPDATE SET
    last_seen_ms = max(last_seen_ms, excluded.last_seen_ms), closed = max(closed, excluded.closed)`);
  const selectStalledIntakes = db.prepare(`SELECT j.doc FROM check_job_intakes i
    JOIN check_jobs j ON j.id = i.job_id
    WHERE i.closed = 0 AND i.last_seen_ms < ? AND j.status IN ('queued', 'running')
    ORDER BY i.last_seen_ms, i.job_id LIMIT ?`);
  const selectIntake = db.prepare('SELECT last_seen_ms, closed FROM check_job_intakes WHERE job_id = ?');
  const insertResult = db.prepare(`INSERT OR IGNORE INTO check_results
    (job_id, row, delete_on, status, level, record) VALUES (?, ?, ?, ?, ?, ?)`);
  const selectPage = db.prepare(`SELECT row, record FROM check_results
    WHERE job_id = ? AND row > ? ORDER BY row LIMIT ?`);
  const selectGroups = db.prepare(`SELECT status, level, COUNT(*) AS count FROM check_results
    WHERE job_id = ? GROUP BY status, level`);
  const deleteResults = db.prepare('DELETE FROM check_results WHERE job_id = ?');
  const deleteResultsBefore = db.prepare('DELETE FROM check_results WHERE delete_on < ?');

  function read(id: string): JobRecord | null {
    const row = selectJob.get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as JobRecord) : null;
  }

  function write(job: JobRecord): void {
    writeJob.run(job.status, JSON.stringify(job), job.id);
  }

  return {
    async createJob(job) {
      inTransaction(db, () => {
        const inserted = insertJob.run(
          job.id, job.org_id, job.mode, job.status, timestampMs(job.delete_after), JSON.stringify(job),
        );
        if (Number(inserted.changes) === 0) throw new JobExistsError(job.id);
        if (job.status === 'queued') touchIntakeRow.run(job.id, timestampMs(job.created_at), 0);
      });
    },

    async getJob(scope, id) {
      const row = selectScoped.get(id, scope.org_id, scope.mode) as { doc: string } | undefined;
      return row ? (JSON.parse(row.doc) as JobRecord) : null;
    },

    async getJobById(id) {
      return read(id);
    },

    async listRecentJobs(scope, limit) {
      checkPageLimit(limit);
      const rows = selectRecent.all(scope.org_id, scope.mode, limit) as Array<{ doc: string }>;
      return rows.map((row) => JSON.parse(row.doc) as JobRecord);
    },

    async updateJob(id, patch, when) {
      return inTransaction(db, () => {
        const current = read(id);
        if (!current || (when && !when(current))) return current;
        const next = applyJobPatch(current, patch, new Date().toISOString());
        write(next);
        return next;
      });
    },

    async listJobsDueForDeletion(now, limit) {
      checkPageLimit(limit);
      const rows = selectDue.all(timestampMs(now), limit) as Array<{ doc: string }>;
      return rows.map((row) => JSON.parse(row.doc) as JobRecord);
    },

    async listPendingCallbacks(limit) {
      checkPageLimit(limit);
      const rows = selectPendingCallbacks.all(limit) as Array<{ doc: string }>;
      return rows.map((row) => JSON.parse(row.doc) as JobRecord);
    },

    async touchIntake(jobId, mark) {
      touchIntakeRow.run(jobId, timestampMs(mark.at), mark.closed ? 1 : 0);
    },

    async listStalledIntakes(lastSeenBefore, limit) {
      checkPageLimit(limit);
      const rows = selectStalledIntakes.all(timestampMs(lastSeenBefore), limit) as Array<{ doc: string }>;
      return rows.map((row) => JSON.parse(row.doc) as JobRecord);
    },

    async getIntake(jobId) {
      const row = selectIntake.get(jobId) as { last_seen_ms: number; closed: number } | undefined;
      return row ? { last_seen_at: new Date(row.last_seen_ms).toISOString(), closed: row.closed === 1 } : null;
    },

    async putResults(jobId, deleteAfter, rows) {
      const deleteOn = utcDay(deleteAfter);
      for (const row of rows) checkRowNumber(row.row);
      inTransaction(db, () => {
        // A chunk redelivered after the job was deleted must not bring its personal data back.
        if (read(jobId)?.status === 'deleted') return;
        for (const row of rows) {
          insertResult.run(
            jobId, row.row, deleteOn, row.result.status, storedLevel(row.result.match.level),
            JSON.stringify({ result: row.result, cells: row.cells }),
          );
        }
      });
    },

    async readResults(jobId, page) {
      checkPageLimit(page.limit);
      const after = decodeCursor(jobId, page.cursor);
      const found = selectPage.all(jobId, after, page.limit + 1) as Array<{ row: number; record: string }>;
      const rows: ResultRow[] = found.slice(0, page.limit).map((r) => ({ row: r.row, ...JSON.parse(r.record) }));
      const last = rows.at(-1);
      return { rows, next_cursor: found.length > page.limit && last ? encodeCursor(jobId, last.row) : null };
    },

    async countResults(jobId) {
      const groups = selectGroups.all(jobId) as Array<{ status: Status; level: number; count: number }>;
      return countsFromGroups(groups);
    },

    async purgeJob(id, at) {
      const purged = inTransaction(db, () => {
        const current = read(id);
        if (!current) return null;
        const next = applyJobPatch(current, { status: 'deleted', preview: [], updated_at: at }, at);
        write(next);
        deleteResults.run(id);
        return next;
      });
      if (purged) flushDeleted(db);
      return purged;
    },

    async dropResultsDueBefore(day) {
      utcDay(`${day}T00:00:00Z`);
      if (Number(deleteResultsBefore.run(day).changes) > 0) flushDeleted(db);
    },
  };
}
