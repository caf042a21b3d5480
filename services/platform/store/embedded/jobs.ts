import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { CheckResult } from '../../../domain/types.ts';
import { MAX_VERDICT_PAGE, type JobRecord, type JobStore, type ResultBytesPage, type ResultCounts, type ResultRow, type ResultVerdictPage } from '../jobs-port.ts';
import { flushDeleted, inTransaction } from './database.ts';
import {
  applyJobPatch, checkPageLimit, checkRowNumber, COMMA_RECORD_FORMAT, coveredBy, decodeCursor, encodeCursor, JobExistsError,
  pageOfRecords, RESULT_RECORD_ROWS, recordParts, resultRuns, storedResultRow, sumCounts, timestampMs, utcDay, verdictPageOfRecords,
  type StoredRecord, type VerdictRecord,
} from '../job-results.ts';
import { pageBytesOfRecords, type ByteRecord } from '../result-page-bytes.ts';
import { verdictColumnsOf } from '../result-verdicts.ts';
import { createCommaRecordWriter, type CommaRecordWriter } from './comma-record-bytes.ts';

/**
 * JobStore on the embedded database (see jobs-port.ts for the promises). A job is one row: the
 * columns the store filters on, plus the whole record as JSON. Results are records of contiguous
 * rows with their counts (job-results.ts resultRecords); rows already stored are left out of new
 * records, so a redelivered row is a no-op.
 *
 * Results live in `resultsDb` (DATA_DIR/results.sqlite in the embedded default; the same handle
 * when not given), so the projection's bulk inserts never hold the lock the API's job writes need
 * (docs/embedded-and-admin.md "Three database files"). A late result and a purge can still not
 * cross: putResults checks the job inside its results transaction, and purgeJob deletes results
 * only after the job is marked deleted, in a results transaction of its own.
 */
/**
 * listPendingCallbacks' query; its condition repeats the WHERE of the partial index
 * check_jobs_pending_callbacks word for word, which is what lets SQLite use that index.
 */
export const PENDING_CALLBACKS_SQL = `SELECT doc FROM check_jobs
    WHERE status IN ('done', 'failed') AND json_extract(doc, '$.callback.state') = 'pending' LIMIT ?`;

/**
 * The format this store writes its result records in (job-results.ts COMMA_RECORD_FORMAT): stored
 * as a page serves them; records of format 1 written before are read beside them as they are
 * (docs/embedded-and-admin.md "Result record formats").
 */
export const EMBEDDED_RECORD_FORMAT = COMMA_RECORD_FORMAT;

export function createEmbeddedJobStore(db: DatabaseSync, resultsDb: DatabaseSync = db): JobStore {
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
    -- listPendingCallbacks (every projection, once a minute): a partial index holding only the
    -- jobs whose callback is pending, so the query reads those and not every finished job
    -- (docs/architecture.md "Pending callbacks"). Created at open: existing databases get it too.
    CREATE INDEX IF NOT EXISTS check_jobs_pending_callbacks ON check_jobs (status)
      WHERE json_extract(doc, '$.callback.state') = 'pending';
    -- The intake's progress per job (jobs-port.ts touchIntake), apart from the record.
    CREATE TABLE IF NOT EXISTS check_job_intakes (
      job_id TEXT PRIMARY KEY,
      last_seen_ms INTEGER NOT NULL,
      closed INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS check_job_intakes_open ON check_job_intakes (closed, last_seen_ms);
  `);
  resultsDb.exec(`
    -- Result records (job-results.ts resultRecords): contiguous rows, one JSON line per row;
    -- record_format says how results and cells are laid out (job-results.ts RESULT_RECORD_FORMAT),
    -- line_ends where format 2's rows end in results;
    -- ids, verdicts and verdict_rows are what a result file reads (result-verdicts.ts).
    -- A rowid table, not WITHOUT ROWID: a record is ~230 KB, far past the row size WITHOUT ROWID
    -- is made for, and storing one cost about twice the CPU (docs/embedded-and-admin.md "Three
    -- database files"). Tables created earlier WITHOUT ROWID keep it; the statements are the same.
    -- results last: a column after it is reached by following its overflow pages, so the small
    -- columns a result file reads come first (tables created earlier have the verdict columns
    -- added at the end: read all the same, at the cost of those pages).
    CREATE TABLE IF NOT EXISTS check_result_records (
      job_id TEXT NOT NULL,
      first_row INTEGER NOT NULL,
      last_row INTEGER NOT NULL,
      delete_on TEXT NOT NULL,
      counts TEXT NOT NULL,
      record_format INTEGER NOT NULL DEFAULT 1,
      ids TEXT,
      verdicts TEXT,
      verdict_rows TEXT,
      cells TEXT,
      line_ends BLOB,
      results TEXT NOT NULL,
      PRIMARY KEY (job_id, first_row)
    );
    CREATE INDEX IF NOT EXISTS check_result_records_delete_on ON check_result_records (delete_on);
  `);
  addRecordColumns(resultsDb);
  convertRowResults(resultsDb);

  const insertJob = db.prepare(`INSERT OR IGNORE INTO check_jobs
    (id, org_id, mode, status, delete_after_ms, doc) VALUES (?, ?, ?, ?, ?, ?)`);
  const selectJob = db.prepare('SELECT doc FROM check_jobs WHERE id = ?');
  const selectScoped = db.prepare('SELECT doc FROM check_jobs WHERE id = ? AND org_id = ? AND mode = ?');
  // Each filter is "? IS NULL OR …", so one statement serves every combination (docs/web.md "History").
  const selectRecent = db.prepare(`SELECT doc FROM check_jobs WHERE org_id = $org AND mode = $mode
    AND ($source IS NULL OR json_extract(doc, '$.source') = $source)
    AND ($status IS NULL OR status = $status)
    AND ($from IS NULL OR json_extract(doc, '$.created_at') >= $from)
    AND ($before IS NULL OR json_extract(doc, '$.created_at') < $before)
    AND ($search IS NULL OR instr(lower(coalesce(json_extract(doc, '$.filename'), '') || char(10) || coalesce(json_extract(doc, '$.external_ref'), '')), lower($search)) > 0)
    AND ($hide = 0 OR NOT (status = 'deleted' AND json_extract(doc, '$.list_version') IS NULL))
    AND ($afterAt IS NULL OR json_extract(doc, '$.created_at') < $afterAt OR (json_extract(doc, '$.created_at') = $afterAt AND id < $afterId))
    ORDER BY json_extract(doc, '$.created_at') DESC, id DESC LIMIT $limit`);
  const writeJob = db.prepare('UPDATE check_jobs SET status = ?, doc = ? WHERE id = ?');
  const selectDue = db.prepare(`SELECT doc FROM check_jobs WHERE status != 'deleted'
    AND delete_after_ms <= ? ORDER BY delete_after_ms, id LIMIT ?`);
  const selectPendingCallbacks = db.prepare(PENDING_CALLBACKS_SQL);
  const touchIntakeRow = db.prepare(`INSERT INTO check_job_intakes (job_id, last_seen_ms, closed)
    VALUES (?, ?, ?) ON CONFLICT (job_id) DO UPDATE SET
    last_seen_ms = max(last_seen_ms, excluded.last_seen_ms), closed = max(closed, excluded.closed)`);
  const selectStalledIntakes = db.prepare(`SELECT j.doc FROM check_job_intakes i
    JOIN check_jobs j ON j.id = i.job_id
    WHERE i.closed = 0 AND i.last_seen_ms < ? AND j.status IN ('queued', 'running')
    ORDER BY i.last_seen_ms, i.job_id LIMIT ?`);
  const selectIntake = db.prepare('SELECT last_seen_ms, closed FROM check_job_intakes WHERE job_id = ?');
  const insertRecord = resultsDb.prepare(INSERT_RECORD_SQL);
  const commaBytes = createCommaRecordWriter();
  // Records are at most RESULT_RECORD_ROWS long, so one starting that far before `from` is the
  // earliest that can reach it: the primary key serves the range.
  const selectRanges = resultsDb.prepare(`SELECT first_row, last_row FROM check_result_records
    WHERE job_id = ? AND first_row > ? AND first_row <= ?`);
  const selectRecordsIn = resultsDb.prepare(`SELECT first_row, record_format, results, cells, line_ends FROM check_result_records
    WHERE job_id = ? AND first_row > ? AND last_row > ? AND first_row <= ? ORDER BY first_row LIMIT ?`);
  // The same records for a served page: results only, as a BLOB, so they come back as the stored
  // UTF-8 bytes and are never decoded into a string (docs/architecture.md "Results pages").
  const selectBytesIn = resultsDb.prepare(`SELECT first_row, last_row, record_format, line_ends, CAST(results AS BLOB) AS results FROM check_result_records
    WHERE job_id = ? AND first_row > ? AND last_row > ? AND first_row <= ? ORDER BY first_row LIMIT ?`);
  const selectAnyAfter = resultsDb.prepare('SELECT 1 FROM check_result_records WHERE job_id = ? AND first_row > ? LIMIT 1');
  const selectCounts = resultsDb.prepare('SELECT counts FROM check_result_records WHERE job_id = ?');
  const deleteResults = resultsDb.prepare('DELETE FROM check_result_records WHERE job_id = ?');
  const deleteResultsBefore = resultsDb.prepare('DELETE FROM check_result_records WHERE delete_on < ?');

  // The same records for a result file: the verdict columns and cells, and the lines only of a
  // record stored without those columns (docs/architecture.md "Result files"); SQLite reads a
  // CASE's column only when the CASE needs it.
  const selectVerdictsIn = resultsDb.prepare(`SELECT first_row, record_format, ids, verdicts, verdict_rows, cells,
    CASE WHEN verdicts IS NULL OR ids IS NULL OR verdict_rows IS NULL THEN line_ends END AS line_ends,
    CASE WHEN verdicts IS NULL OR ids IS NULL OR verdict_rows IS NULL THEN results ELSE '' END AS results FROM check_result_records
    WHERE job_id = ? AND first_row > ? AND last_row > ? AND first_row <= ? ORDER BY first_row LIMIT ?`);

  /**
   * The records of the page after `after`, cut by `cutOf` (`countOf`: the rows it holds). Rows are
   * 0..n-1 in records of at most RESULT_RECORD_ROWS, so the page lies in the window up to
   * after + limit (about limit / RESULT_RECORD_ROWS records); a job with gaps reads on past it.
   * `last_row > after`: every record read holds a row of the page, so limit records suffice.
   * Whether a row follows a full page is asked by key (selectAnyAfter), not by reading the next
   * record: that read was a tenth of a 10,000-row page's bytes, copied for one boolean. All rows
   * read at once (not a lazy iterator): a statement left open would hold a read snapshot of the
   * file and keep a purge's checkpoint from emptying the WAL.
   */
  function cutRecordWindow<R, C extends { more: boolean }>(
    select: StatementSync, jobId: string, after: number, limit: number, cutOf: (records: R[]) => C, countOf: (cut: C) => number,
  ): C {
    const read = (from: number, to: number, records: number) => select.all(jobId, from, after, to, records) as R[];
    const windowEnd = after + limit;
    const found = read(after - RESULT_RECORD_ROWS, windowEnd, limit);
    const cut = cutOf(found);
    if (cut.more) return cut;
    if (selectAnyAfter.get(jobId, windowEnd) === undefined) return cut;
    if (countOf(cut) === limit) return { ...cut, more: true };
    // Past a gap: one record more than the page can take tells whether a row follows it.
    return cutOf([...found, ...read(windowEnd, 0xffffffff, limit + 1)]);
  }

  function pageOf(jobId: string, page: { cursor?: string | null; limit: number }) {
    checkPageLimit(page.limit);
    const after = decodeCursor(jobId, page.cursor);
    const { rows, more } = cutRecordWindow(selectRecordsIn, jobId, after, page.limit, (found: StoredRecord[]) => pageOfRecords(found, after, page.limit), (cut) => cut.rows.length);
    const last = rows.at(-1);
    return { rows, next_cursor: more && last ? encodeCursor(jobId, last.row) : null };
  }

  /** pageOf's page as verdicts (job-results.ts verdictPageOfRecords), read the same way. */
  function verdictPageOf(jobId: string, page: { cursor?: string | null; limit: number }): ResultVerdictPage {
    checkPageLimit(page.limit, MAX_VERDICT_PAGE);
    const after = decodeCursor(jobId, page.cursor);
    const cut = cutRecordWindow(selectVerdictsIn, jobId, after, page.limit, (found: VerdictRecord[]) => verdictPageOfRecords(found, after, page.limit), (cut) => cut.ids.length);
    return { ids: cut.ids, verdicts: cut.verdicts, cells: cut.cells, next_cursor: cut.more && cut.last_row >= 0 ? encodeCursor(jobId, cut.last_row) : null };
  }

  /** pageOf's page as bytes (result-page-bytes.ts), read the same way. */
  function bytesPageOf(jobId: string, page: { cursor?: string | null; limit: number }): ResultBytesPage {
    checkPageLimit(page.limit);
    const after = decodeCursor(jobId, page.cursor);
    const cut = cutRecordWindow(selectBytesIn, jobId, after, page.limit, (found: ByteRecord[]) => pageBytesOfRecords(found, after, page.limit), (cut) => cut.count);
    return { pieces: cut.pieces(), count: cut.count, next_cursor: cut.more && cut.count > 0 ? encodeCursor(jobId, cut.last_row) : null };
  }

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

    async listRecentJobs(scope, limit, filter = {}) {
      checkPageLimit(limit);
      const rows = selectRecent.all({
        org: scope.org_id, mode: scope.mode, source: filter.source ?? null, status: filter.status ?? null,
        from: filter.created_from ?? null, before: filter.created_before ?? null, search: filter.search ?? null,
        hide: filter.hide_discarded_drafts ? 1 : 0, afterAt: filter.after?.created_at ?? null, afterId: filter.after?.id ?? null, limit,
      }) as Array<{ doc: string }>;
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
      if (rows.length === 0) return;
      const deleteOn = utcDay(deleteAfter);
      let min = Infinity;
      let max = -1;
      for (const row of rows) {
        checkRowNumber(row.row);
        min = Math.min(min, row.row);
        max = Math.max(max, row.row);
      }
      inTransaction(resultsDb, () => {
        // A chunk redelivered after the job was deleted must not bring its personal data back.
        // Checked while this transaction holds the results' write lock: a purge marks the job
        // deleted before it takes that lock to delete, so either it sees these rows or they see
        // the mark.
        if (read(jobId)?.status === 'deleted') return;
        const stored = selectRanges.all(jobId, min - RESULT_RECORD_ROWS, max) as Array<{ first_row: number; last_row: number }>;
        insertRecords(insertRecord, commaBytes, jobId, deleteOn, resultRuns(rows, coveredBy(stored)));
      });
    },

    async readResults(jobId, page) {
      const { rows, next_cursor } = pageOf(jobId, page);
      return {
        rows: rows.map((r) => ({ row: r.row, result: JSON.parse(r.result) as CheckResult, cells: JSON.parse(r.cells) as ResultRow['cells'] })),
        next_cursor,
      };
    },

    async readResultsJson(jobId, page) {
      const { rows, next_cursor } = pageOf(jobId, page);
      return { results: rows.map((r) => r.result), cells: rows.map((r) => r.cells), next_cursor };
    },

    async readResultVerdicts(jobId, page) {
      return verdictPageOf(jobId, page);
    },

    async readResultsBytes(jobId, page) {
      return bytesPageOf(jobId, page);
    },

    async readDoneResultsBytes(scope, id, page) {
      // In process there is no round trip to save: the two reads one after the other.
      const row = selectScoped.get(id, scope.org_id, scope.mode) as { doc: string } | undefined;
      const job = row ? (JSON.parse(row.doc) as JobRecord) : null;
      return { job, page: job?.status === 'done' ? bytesPageOf(id, page) : null };
    },

    async countResults(jobId) {
      const records = selectCounts.all(jobId) as Array<{ counts: string }>;
      return sumCounts(records.map((r) => JSON.parse(r.counts) as ResultCounts));
    },

    async purgeJob(id, at) {
      const purged = inTransaction(db, () => {
        const current = read(id);
        if (!current) return null;
        const next = applyJobPatch(current, { status: 'deleted', preview: [], updated_at: at }, at);
        write(next);
        return next;
      });
      if (!purged) return null;
      // After the mark is committed (see putResults). A crash in the instant between the two
      // commits leaves rows of a deleted job that nothing serves; dropResultsDueBefore removes
      // them on their delete_after day at the latest, and another purgeJob of the job at once.
      inTransaction(resultsDb, () => deleteResults.run(id));
      flushDeleted(db);
      if (resultsDb !== db) flushDeleted(resultsDb);
      return purged;
    },

    async dropResultsDueBefore(day) {
      utcDay(`${day}T00:00:00Z`);
      if (Number(deleteResultsBefore.run(day).changes) > 0) flushDeleted(resultsDb);
    },
  };
}

/**
 * Columns result records gained after the table was first shipped, added at open where missing, at
 * the end of the table (SQLite adds a column only there), without rewriting stored rows:
 * - record_format: records written before it are format 1 (job-results.ts RESULT_RECORD_FORMAT),
 *   the default SQLite applies to the stored rows;
 * - ids, verdicts, verdict_rows (result-verdicts.ts): NULL in older records, whose lines a result
 *   file reads instead;
 * - line_ends: format 2's row ends (job-results.ts COMMA_RECORD_FORMAT), NULL in format-1 records,
 *   which keep their format and are read as it says (docs/embedded-and-admin.md "Result record
 *   formats").
 */
const ADDED_RECORD_COLUMNS: ReadonlyArray<readonly [name: string, type: string]> = [
  ['record_format', 'INTEGER NOT NULL DEFAULT 1'], ['ids', 'TEXT'], ['verdicts', 'TEXT'], ['verdict_rows', 'TEXT'], ['line_ends', 'BLOB'],
];

function addRecordColumns(resultsDb: DatabaseSync): void {
  const columns = new Set(resultsDb.prepare('PRAGMA table_info(check_result_records)').all().map((c) => String(c.name)));
  for (const [name, type] of ADDED_RECORD_COLUMNS) {
    if (!columns.has(name)) resultsDb.exec(`ALTER TABLE check_result_records ADD COLUMN ${name} ${type}`);
  }
}

/** `results` is bound as format 2's UTF-8 bytes and stored as the TEXT they are (comma-record-bytes.ts). */
export const INSERT_RECORD_SQL = `INSERT OR IGNORE INTO check_result_records
  (job_id, first_row, last_row, delete_on, counts, results, cells, record_format, ids, verdicts, verdict_rows, line_ends)
  VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?)`;

/**
 * Stores a record of each run (job-results.ts resultRuns) in EMBEDDED_RECORD_FORMAT, its bytes
 * written by `commaBytes` and bound before the next record is written over them.
 */
function insertRecords(insert: StatementSync, commaBytes: CommaRecordWriter, jobId: string, deleteOn: string, runs: ReadonlyArray<readonly ResultRow[]>): void {
  for (const run of runs) {
    const parts = recordParts(run);
    const bytes = commaBytes(parts.results);
    // What a result file reads instead of the lines (result-verdicts.ts).
    const verdicts = verdictColumnsOf(parts.results);
    insert.run(
      jobId, parts.first_row, parts.last_row, deleteOn, JSON.stringify(parts.counts), bytes.results, parts.cells, EMBEDDED_RECORD_FORMAT,
      verdicts.ids, verdicts.verdicts, verdicts.verdict_rows, bytes.line_ends,
    );
  }
}

/**
 * Databases written before result records kept one row per result (`check_results`): converted
 * to records once, in one transaction, then the old table is dropped (its personal data zeroed by
 * secure_delete and flushed out of the WAL).
 */
function convertRowResults(resultsDb: DatabaseSync): void {
  const old = resultsDb.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'check_results'").get();
  if (!old) return;
  const insert = resultsDb.prepare(INSERT_RECORD_SQL);
  const commaBytes = createCommaRecordWriter();
  inTransaction(resultsDb, () => {
    let jobId: string | null = null;
    let deleteOn = '';
    let rows: ResultRow[] = [];
    const flush = () => {
      if (jobId === null) return;
      insertRecords(insert, commaBytes, jobId, deleteOn, resultRuns(rows, () => false));
      rows = [];
    };
    const all = resultsDb.prepare('SELECT job_id, row, delete_on, record FROM check_results ORDER BY job_id, row')
      .iterate() as Iterable<{ job_id: string; row: number; delete_on: string; record: string }>;
    for (const r of all) {
      // A job's rows in blocks, so a 1,000,000-row job is never held whole.
      if (r.job_id !== jobId || (rows.length >= RESULT_RECORD_ROWS && r.row % RESULT_RECORD_ROWS === 0)) {
        flush();
        jobId = r.job_id;
        deleteOn = r.delete_on;
      }
      // As every reader of old rows: a result from before match.approximate gets it (false).
      rows.push(storedResultRow(r.row, r.record));
    }
    flush();
    resultsDb.exec('DROP TABLE check_results');
  });
  flushDeleted(resultsDb);
}
