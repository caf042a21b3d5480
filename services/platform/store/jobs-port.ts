import type {
  CallbackOutcome, CheckJobOptions, ColumnMapping, FileFormat, JobPrice, JobSource, JobStatus,
  LevelCounts, PreviewRow,
} from '../../domain/check-job.ts';
import type { MonitorChangeCounts } from '../../domain/monitor-change.ts';
import type { CheckResult, ListVersionRef } from '../../domain/types.ts';

/**
 * The result store of the asynchronous pipeline: check jobs and their per-row results
 * (docs/contract.md CheckJob, CheckResult, LevelCounts; docs/decisions.md §6, §7, §9, §10).
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - A write is durable and visible to every later read (of any process) once its promise resolves.
 * - `getJob` finds a job only within its organisation and mode: another organisation's job, or a
 *   test job asked for with a live key, is `null` (the API answers 404).
 * - Results are idempotent on (job_id, row): writing a row again (a redelivered chunk) never adds
 *   a second row and never changes a count. `countResults` is exact (it counts distinct rows).
 * - `readResults` pages in row order; the cursor is opaque, belongs to one job, and a cursor from
 *   another job or a forged one throws InvalidCursorError (the API answers 422). 1 ≤ limit ≤ 10,000.
 * - `purgeJob` makes the job `deleted` and removes every piece of personal data of it (its result
 *   rows and the preview) before it resolves; counts, level_counts, list version, certificate,
 *   callback outcome and the rest of the job record stay.
 * - A deleted job stays deleted: `updateJob` cannot move it to another state or give it a preview,
 *   and `putResults` for it stores nothing (a late redelivery cannot bring personal data back).
 *
 * - The intake's progress (`touchIntake`) is kept apart from the job record, so the intake (API
 *   process) and the projection never write the same record at once: a job created `queued` has
 *   an open intake whose last sign of life is its `created_at`; `listStalledIntakes` finds the
 *   queued/running jobs whose intake stopped giving signs of life (a process killed mid-publish);
 *   `getIntake` reads one job's (whose publisher is known to have died).
 *
 * - `updateJob` is an atomic read-modify-write, also between processes: patches written to one job
 *   at once (the API sealing an overlapped intake while the projection fails the job) all hold;
 *   none is silently undone by a write based on an older record.
 *   Writers still serialise their own writes to a job where order matters (the projection owns a
 *   job's partition; the API only creates, seals, starts and deletes).
 */
export interface JobRecord {
  id: string;
  org_id: string;
  mode: 'live' | 'test';
  source: JobSource;
  status: JobStatus;
  filename: string | null;
  file_format: FileFormat | null;
  row_count: number;
  processed_count: number;
  allowed_count: number;
  blocked_count: number;
  manual_count: number;
  level_counts: LevelCounts;
  columns: string[];
  column_mapping: ColumnMapping | null;
  options: CheckJobOptions;
  /** Personal data: removed by purgeJob. */
  preview: PreviewRow[];
  price: JobPrice | null;
  list_version: ListVersionRef | null;
  certificate_token: string | null;
  error: string | null;
  delete_after: string;
  created_at: string;
  finished_at: string | null;
  callback_url: string | null;
  callback: CallbackOutcome | null;
  external_ref: string | null;
  /** SHA-256 (hex) of the API key that created the job: the callback signing secret (docs/contract.md Events). */
  key_hash: string;
  /** SHA-256 (hex) of the submitted input, for the certificate (docs/decisions.md §10). */
  input_sha256: string | null;
  /**
   * CSV input: its encoding and delimiter, so the result file is written the same way (docs/decisions.md
   * §14). Internal (never rendered); absent on records of jobs created before files.
   */
  csv_dialect?: CsvDialectRecord | null;
  /** A monitor's re-check (`source: monitor`): which contacts it checks and, once done, what changed. */
  monitor?: JobMonitorRef | null;
  /**
   * The organisation's private list version pinned when the job was queued with
   * `use_private_list` (docs/decisions.md §16; docs/matching.md "Private lists"). Internal (never
   * rendered); absent/null: the national list only.
   */
  private_list_version_id?: string | null;
  updated_at: string;
}

export interface JobMonitorRef {
  id: string;
  /** The contact generation checked: row i is contact i of it. */
  generation: number;
  /** The monitor's last completed check, whose verdicts this one compares against; null: the first. */
  previous_job_id: string | null;
  /** Set by the completing write: contacts per change since the previous check. */
  changes: MonitorChangeCounts | null;
}

export interface CsvDialectRecord {
  encoding: 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'windows-1252';
  delimiter: ';' | ',' | '\t' | '|';
}

/** What may change after creation; identity, owner and timestamps of creation never do. */
export type JobPatch = Partial<Omit<JobRecord, 'id' | 'org_id' | 'mode' | 'created_at' | 'delete_after'>>;

/** One checked row of a job. `row` is the 0-based position in the job's input. */
export interface ResultRow {
  row: number;
  result: CheckResult;
  /** The input row as submitted (file cells), for result files; null when the input was JSON. */
  cells: Array<string | null> | null;
  /** The result's stored line when it was made with the result (ResultLine); absent: the store writes it. */
  line?: ResultLine;
}

/**
 * A result's stored line (`JSON.stringify` of it) made where the result was made: the embedded
 * matcher writes it right after the check, while the result is still in the processor's cache,
 * and the store takes it instead of writing the line itself (docs/architecture.md "Matcher").
 * It stands for `of` only: a row whose result was replaced since (a monitor's `change`) is written
 * again by the store.
 */
export interface ResultLine {
  text: string;
  of: CheckResult;
}

export interface ResultCounts {
  processed: number;
  allowed: number;
  blocked: number;
  manual: number;
  level_counts: LevelCounts;
}

export interface ResultPage {
  rows: ResultRow[];
  /** Null when no row follows this page. */
  next_cursor: string | null;
}

/**
 * A page of results as the store keeps them: each CheckResult as its JSON text, in row order. The
 * API joins them into the response as they are (docs/platform-clickhouse-registry.md "Result
 * records"); what the store keeps was a CheckResult the response schema accepts, which the tests
 * check on every page they read.
 */
export interface ResultJsonPage {
  results: string[];
  /**
   * Each row's input cells as their stored JSON text (an array, or `null` for a row without
   * cells, e.g. a JSON job's), beside `results`: for result files (docs/architecture.md
   * "Result files").
   */
  cells: string[];
  /** Null when no row follows this page. */
  next_cursor: string | null;
}

/**
 * A page as a result file reads it (readResultVerdicts; docs/architecture.md "Result files"): per
 * row the result's `id` as JSON text (`"…"` or `null`; a result without one reads as `null`), its
 * verdict as JSON text (the result without `id` and `address`: one object; rows of a record
 * with the same verdict share one string), and its cells as in readResultsJson.
 */
export interface ResultVerdictPage {
  ids: string[];
  verdicts: string[];
  cells: string[];
  /** Null when no row follows this page. */
  next_cursor: string | null;
}

/**
 * A page as a results response carries it (readResultsBytes): the results' stored JSON, UTF-8,
 * separated by commas, the inside of the response's `results` array (docs/architecture.md
 * "Results pages").
 */
export interface ResultBytesPage {
  /** The bytes in pieces, to be written one after the other (no copy made to join them). */
  pieces: Buffer[];
  /** How many results the pieces hold. */
  count: number;
  /** Null when no row follows this page. */
  next_cursor: string | null;
}

export const MAX_RESULTS_PAGE = 10_000;
/**
 * The largest page of readResultVerdicts: a result file reads a few bytes a row there (ids and
 * verdict numbers), so it takes pages ten times an API page and makes a tenth of the round trips
 * (docs/architecture.md "Result files").
 */
export const MAX_VERDICT_PAGE = 100_000;

/** An intake's progress (JobStore.touchIntake). */
export interface IntakeState {
  last_seen_at: string;
  closed: boolean;
}

export interface JobStore {
  /**
   * Throws JobExistsError when a job with this id exists. A job created `queued` starts with an
   * open intake (see touchIntake) last seen at its `created_at`, in the same write as far as the
   * adapter allows (embedded: one transaction; ClickHouse: the intake row first).
   */
  createJob(job: JobRecord): Promise<void>;
  /** Scoped read for the API: null unless the job belongs to `scope.org_id` in `scope.mode`. */
  getJob(scope: { org_id: string; mode: 'live' | 'test' }, id: string): Promise<JobRecord | null>;
  /** Unscoped read for internal processes (projection, retention). */
  getJobById(id: string): Promise<JobRecord | null>;
  /**
   * The organisation's jobs in `scope.mode`, newest `created_at` first (ties by id), at most
   * `limit` (1..10,000), deleted ones included (they keep their counts). For lists shown to the
   * organisation (the web page); not a page through every job (no cursor).
   */
  listRecentJobs(scope: { org_id: string; mode: 'live' | 'test' }, limit: number, filter?: JobListFilter): Promise<JobRecord[]>;
  /**
   * Applies `patch` (and `updated_at`) to the latest record; null when no such job. With `when`,
   * only if `when(latest)` holds, else the latest record comes back unchanged: the condition is
   * checked on the record the patch would change, also when a concurrent write won the race.
   */
  updateJob(id: string, patch: JobPatch, when?: (current: JobRecord) => boolean): Promise<JobRecord | null>;
  /** Jobs not yet deleted whose delete_after ≤ `now`, oldest delete_after first; limit 1..10,000. */
  listJobsDueForDeletion(now: string, limit: number): Promise<JobRecord[]>;
  /**
   * Jobs whose completion callback is still being delivered (`callback.state` = 'pending'), so
   * the projection resumes them after a restart; any order, limit 1..10,000.
   */
  listPendingCallbacks(limit: number): Promise<JobRecord[]>;
  /**
   * The intake's sign of life for a job whose rows it is publishing: still at work at `at`, or
   * `closed` (every row and RowsComplete are on the log, or the job was failed). Closed is final:
   * a later touch does not reopen it; a later `at` than the last one seen moves it on, an earlier
   * one changes nothing. Written by the intake, and by the stalled-intake sweep once it failed a
   * job; never part of the job record.
   */
  touchIntake(jobId: string, mark: { at: string; closed: boolean }): Promise<void>;
  /**
   * Jobs still `queued` or `running` whose intake is open and gave its last sign of life before
   * `lastSeenBefore` (exclusive): the API died while publishing them. Any order; limit 1..10,000.
   * Jobs created before intakes were recorded have none and are never listed.
   */
  listStalledIntakes(lastSeenBefore: string, limit: number): Promise<JobRecord[]>;
  /**
   * One job's intake as touchIntake left it: its last sign of life and whether it is closed;
   * null when the job has none (never created queued, or created before intakes were recorded).
   */
  getIntake(jobId: string): Promise<IntakeState | null>;

  /**
   * Stores result rows of one job, idempotently on (job_id, row). `deleteAfter` is the job's
   * delete_after (the ClickHouse adapter partitions results by its day).
   */
  putResults(jobId: string, deleteAfter: string, rows: ResultRow[]): Promise<void>;
  /** Rows with row > the cursor's position, in row order, at most `limit`. */
  readResults(jobId: string, page: { cursor?: string | null; limit: number }): Promise<ResultPage>;
  /** The same page as readResults, each result as stored JSON text (no parse): for serving pages. */
  readResultsJson(jobId: string, page: { cursor?: string | null; limit: number }): Promise<ResultJsonPage>;
  /**
   * readResultsJson's page with each result as its id and verdict (ResultVerdictPage): what a
   * result file shows, read from the verdicts stored beside the records, not from their lines.
   * `limit` up to MAX_VERDICT_PAGE.
   */
  readResultVerdicts(jobId: string, page: { cursor?: string | null; limit: number }): Promise<ResultVerdictPage>;
  /**
   * The same page again, as the bytes of readResultsJson's results joined with commas (the same
   * bytes, not a re-serialisation): for serving pages without decoding stored text.
   */
  readResultsBytes(jobId: string, page: { cursor?: string | null; limit: number }): Promise<ResultBytesPage>;
  /**
   * getJob and, when the job is `done`, readResultsBytes of its page, read together: one round
   * trip on ClickHouse where the two calls made two (docs/architecture.md "Results pages"). `page`
   * is null when there is no such job in `scope` or it is not done (the caller answers from `job`);
   * records of a job outside `scope` are not read.
   */
  readDoneResultsBytes(
    scope: { org_id: string; mode: 'live' | 'test' }, id: string, page: { cursor?: string | null; limit: number },
  ): Promise<{ job: JobRecord | null; page: ResultBytesPage | null }>;
  countResults(jobId: string): Promise<ResultCounts>;

  /** Marks the job deleted at `at` and removes its personal data; null when no such job. */
  purgeJob(id: string, at: string): Promise<JobRecord | null>;
  /**
   * Bulk retention: removes the result rows of every job whose delete_after falls on a day before
   * `day` (YYYY-MM-DD, UTC). Job records are untouched; purgeJob them as they fall due.
   */
  dropResultsDueBefore(day: string): Promise<void>;
}

/**
 * What a history list narrows to (docs/web.md "History"): every field optional. `search` is a
 * case-insensitive (ASCII letters) part of the file name or external_ref; `after` pages on from
 * the last job of the previous page (newest first: strictly older by created_at, then id);
 * `hide_discarded_drafts` leaves out drafts deleted without being started (a preview update
 * replaces its draft with a new one): deleted, and no list version ever pinned.
 */
export interface JobListFilter {
  source?: JobSource;
  status?: JobStatus;
  /** created_at ≥ this instant */
  created_from?: string;
  /** created_at < this instant */
  created_before?: string;
  search?: string;
  after?: { created_at: string; id: string };
  hide_discarded_drafts?: boolean;
}
