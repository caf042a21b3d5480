import { emptyLevelCounts, levelKey } from '../../domain/check-job.ts';
import type { Status } from '../../domain/types.ts';
import { MAX_RESULTS_PAGE, type JobPatch, type JobRecord, type ResultCounts, type ResultRow } from './jobs-port.ts';
import { ClassifiedError, PermanentError } from '../errors.ts';
import { verdictColumnsOf, verdictRowsOf, type VerdictColumns } from './result-verdicts.ts';

/**
 * What every JobStore adapter shares: errors, the opaque results cursor, the patch rule for
 * deleted jobs, and turning (status, level, count) groups into ResultCounts.
 */

export class JobExistsError extends PermanentError {
  constructor(id: string) {
    super(`check job ${id} already exists`);
    this.name = 'JobExistsError';
  }
}

/** A cursor that was not made by readResults for this job (docs/decisions.md §7: 422). */
export class InvalidCursorError extends PermanentError {
  constructor() {
    super('cursor is not valid for this job');
    this.name = 'InvalidCursorError';
  }
}

const CURSOR = /^r1\.([0-9A-Za-z-]{1,64})\.(\d{1,10})$/;

/** The cursor after `row` of `jobId`: opaque to callers, base64url text. */
export function encodeCursor(jobId: string, row: number): string {
  return Buffer.from(`r1.${jobId}.${row}`, 'utf8').toString('base64url');
}

/** The last row already returned (-1 for the first page). Throws InvalidCursorError. */
export function decodeCursor(jobId: string, cursor: string | null | undefined): number {
  if (cursor == null || cursor === '') return -1;
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new InvalidCursorError();
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || match[1] !== jobId) throw new InvalidCursorError();
  const row = Number(match[2]);
  if (!Number.isSafeInteger(row) || row > 0xffffffff) throw new InvalidCursorError();
  return row;
}

export function checkPageLimit(limit: number, max = MAX_RESULTS_PAGE): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new RangeError(`limit must be an integer 1..${max}, got ${limit}`);
  }
}

export function checkRowNumber(row: number): void {
  if (!Number.isInteger(row) || row < 0 || row > 0xffffffff) {
    throw new RangeError(`row must be an integer 0..2^32-1, got ${row}`);
  }
}

/** The next record: patch applied, except that a deleted job stays deleted and without preview. */
export function applyJobPatch(current: JobRecord, patch: JobPatch, now: string): JobRecord {
  const next: JobRecord = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined && key in current && !FIXED.has(key)) {
      (next as unknown as Record<string, unknown>)[key] = value;
    }
  }
  if (current.status === 'deleted') {
    next.status = 'deleted';
    next.preview = [];
  }
  next.updated_at = patch.updated_at ?? now;
  return next;
}

const FIXED = new Set(['id', 'org_id', 'mode', 'created_at', 'delete_after']);

/** Stored level: the match level 0..5, or -1 for no level (counted as `unread`). */
export function storedLevel(level: number | null): number {
  return level === null ? -1 : level;
}

export function countsFromGroups(
  groups: Iterable<{ status: Status; level: number; count: number }>,
): ResultCounts {
  const counts: ResultCounts = { processed: 0, allowed: 0, blocked: 0, manual: 0, level_counts: emptyLevelCounts() };
  for (const { status, level, count } of groups) {
    counts.processed += count;
    counts[status] += count;
    counts.level_counts[levelKey(level < 0 ? null : level)] += count;
  }
  return counts;
}

/** UTC day (YYYY-MM-DD) of an ISO timestamp; throws on text that is not a timestamp. */
export function utcDay(timestamp: string): string {
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) throw new RangeError(`not a timestamp: ${JSON.stringify(timestamp)}`);
  return new Date(ms).toISOString().slice(0, 10);
}

export function timestampMs(timestamp: string): number {
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) throw new RangeError(`not a timestamp: ${JSON.stringify(timestamp)}`);
  return ms;
}

/**
 * Results are stored as records of contiguous rows, not one row each (docs/platform-clickhouse-registry.md
 * "Result records"): a record holds rows first_row..last_row, each row's CheckResult as one line
 * of JSON (ready to serve: a page is the lines joined, no parse, validate and stringify per
 * request), their cells likewise, and the record's counts beside it, so a job's counts are a sum
 * over its records (a few hundred per 1,000,000 rows) instead of a GROUP BY over every row.
 *
 * Records never cross a multiple of RESULT_RECORD_ROWS, so the same rows cut the same way
 * whatever batches the projection put them in, and a page of 10,000 rows reads about ten records.
 */
export const RESULT_RECORD_ROWS = 1000;

/**
 * The format every record is written in now; stored beside it (`record_format`), so a later
 * format can be read beside the old ones (docs/platform-clickhouse-registry.md "Record formats"):
 *
 * 1. `results`: one CheckResult JSON per line; `cells`: one JSON array (or `null`) per line, or
 *    null when no row has cells. Records stored before the column existed are format 1.
 * 2. (COMMA_RECORD_FORMAT, the embedded store's since session 14) `results`: the CheckResult
 *    JSONs joined with commas, the inside of a JSON array as a results page serves it; `line_ends`:
 *    where each row's JSON ends in `results`' UTF-8 bytes, a uint32 LE each; `cells` as in 1.
 */
export const RESULT_RECORD_FORMAT = 1;

/**
 * Format 2: a page that takes records whole serves their bytes as stored, without the
 * newline-to-comma pass over them, and one cut inside a record finds its rows by offset instead
 * of searching for line ends (docs/embedded-and-admin.md "Result record formats").
 */
export const COMMA_RECORD_FORMAT = 2;

/** Where row `index` of a format-2 record ends (exclusive) in its bytes: its `line_ends` entry. */
export function commaLineEnd(lineEnds: Uint8Array, index: number): number {
  const at = index * 4;
  return (lineEnds[at] | (lineEnds[at + 1] << 8) | (lineEnds[at + 2] << 16) | (lineEnds[at + 3] << 24)) >>> 0;
}

/** Where row `index` of a format-2 record starts: one byte (the comma) after the row before it. */
export function commaLineStart(lineEnds: Uint8Array, index: number): number {
  return index === 0 ? 0 : commaLineEnd(lineEnds, index - 1) + 1;
}

/** The rows of a format-2 record as text: its `results` cut at `line_ends`. */
function commaLines(record: StoredRecord): string[] {
  // A result file reads '' for a record whose verdict columns hold what it needs (embedded/jobs.ts).
  if (record.results === '') return [];
  const ends = record.line_ends;
  if (!ends || ends.byteLength % 4 !== 0) throw new Error(`result record ${record.first_row} of format ${COMMA_RECORD_FORMAT} has no line ends`);
  const rows = ends.byteLength / 4;
  const lines: string[] = new Array(rows);
  // Offsets count UTF-8 bytes: as string indexes only when every character is one byte.
  const total = commaLineEnd(ends, rows - 1);
  const bytes = total === record.results.length ? null : Buffer.from(record.results, 'utf8');
  for (let i = 0, start = 0; i < rows; i++) {
    const end = commaLineEnd(ends, i);
    lines[i] = bytes ? bytes.toString('utf8', start, end) : record.results.slice(start, end);
    start = end + 1;
  }
  return lines;
}

/** How each format a reader knows turns a stored record into its rows' lines. */
const RECORD_LINES: Readonly<Record<number, (record: StoredRecord) => { results: string[]; cells: string[] | null }>> = {
  1: (record) => ({ results: record.results.split('\n'), cells: record.cells === null ? null : record.cells.split('\n') }),
  2: (record) => ({ results: commaLines(record), cells: record.cells === null ? null : record.cells.split('\n') }),
};

/**
 * A record in a format this reader does not know: written by a later version of the service.
 * Readers are upgraded before writers (docs/platform-clickhouse-registry.md "Record formats"),
 * so this is a deployment out of order, never a record to guess at.
 */
export class UnknownRecordFormatError extends ClassifiedError {
  constructor(format: number) {
    super(`result record format ${format} is unknown to this reader (it knows ${Object.keys(RECORD_LINES).join(', ')})`);
    this.name = 'UnknownRecordFormatError';
  }
}

/** What a page is cut from: a record as read back, its format with it (a type: rows of node:sqlite cast to it). */
export type StoredRecord = {
  first_row: number;
  record_format: number;
  results: string;
  cells: string | null;
  /** Format 2's row ends (COMMA_RECORD_FORMAT); absent or null in format 1. */
  line_ends?: Uint8Array | null;
};

/** The rows' lines of a stored record, read as its format says. */
export function linesOfRecord(record: StoredRecord): { results: string[]; cells: string[] | null } {
  const read = RECORD_LINES[record.record_format];
  if (!read) throw new UnknownRecordFormatError(record.record_format);
  return read(record);
}

export interface ResultRecord extends VerdictColumns {
  /** RESULT_RECORD_FORMAT: how `results` and `cells` are laid out. */
  record_format: number;
  first_row: number;
  last_row: number;
  counts: ResultCounts;
  /**
   * Format 1: one CheckResult JSON per line, rows first_row..last_row (JSON.stringify never
   * writes a raw newline); format 2: joined with commas.
   */
  results: string;
  /** Format 2: each row's end in `results`' UTF-8 bytes, uint32 LE; null in format 1. */
  line_ends: Uint8Array | null;
  /** One JSON array (or `null`) per line; null when no row has cells (JSON input). */
  cells: string | null;
}

/**
 * The records to store for `rows`: rows already stored (`covered`, from the job's existing
 * records) and repeats within `rows` left out, the rest cut into contiguous runs that stay within
 * one RESULT_RECORD_ROWS block. Leaving covered rows out keeps the store idempotent on
 * (job_id, row) for any mix of redelivered and new rows.
 */
export function resultRecords(rows: readonly ResultRow[], covered: (row: number) => boolean, format = RESULT_RECORD_FORMAT): ResultRecord[] {
  return resultRuns(rows, covered).map((run) => recordOf(run, format));
}

/**
 * The runs resultRecords makes records of: `rows` without those `covered` and without repeats,
 * cut into contiguous runs that stay within one RESULT_RECORD_ROWS block. A writer that lays a
 * record out itself (embedded/comma-record-bytes.ts) takes the runs and recordParts of each.
 */
export function resultRuns(rows: readonly ResultRow[], covered: (row: number) => boolean): ResultRow[][] {
  // The projection's rows come in row order without repeats (chunk after chunk): then the copy
  // and sort are skipped, a tenth of storing a 1,000,000-row job (docs/performance.md "Measurements").
  const ordered = strictlyAscending(rows) ? rows : [...rows].sort((a, b) => a.row - b.row);
  const fresh = ordered.filter((r, i, all) => (i === 0 || all[i - 1].row !== r.row) && !covered(r.row));
  const runs: ResultRow[][] = [];
  let run: ResultRow[] = [];
  for (const row of fresh) {
    const previous = run.at(-1);
    if (previous && (row.row !== previous.row + 1 || Math.floor(row.row / RESULT_RECORD_ROWS) !== Math.floor(previous.row / RESULT_RECORD_ROWS))) {
      runs.push(run);
      run = [];
    }
    run.push(row);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function strictlyAscending(rows: readonly ResultRow[]): boolean {
  for (let i = 1; i < rows.length; i++) if (rows[i].row <= rows[i - 1].row) return false;
  return true;
}

/** What every record format is made of: a run's rows as JSON lines, their cells' lines, their counts. */
export interface RecordParts {
  first_row: number;
  last_row: number;
  counts: ResultCounts;
  /** Each row's CheckResult as JSON.stringify writes it. */
  results: string[];
  /** Each row's cells as JSON (`null` for a row without), one per line; null when no row has cells. */
  cells: string | null;
}

/** The parts of a run's record (resultRuns), whatever format lays them out. */
export function recordParts(run: readonly ResultRow[]): RecordParts {
  // Counted by (status, level) in a small table rather than a Map keyed by a string made per row.
  const tally = new Map<Status, number[]>();
  const results: string[] = new Array(run.length);
  let cells: string[] | null = null;
  for (let i = 0; i < run.length; i++) {
    const r = run[i];
    let byLevel = tally.get(r.result.status);
    if (!byLevel) tally.set(r.result.status, (byLevel = []));
    const level = storedLevel(r.result.match.level);
    byLevel[level + 1] = (byLevel[level + 1] ?? 0) + 1;
    const line = r.line;
    results[i] = line !== undefined && line.of === r.result ? line.text : JSON.stringify(r.result);
    if (r.cells !== null && cells === null) cells = new Array<string>(i).fill('null');
    if (cells !== null) cells.push(JSON.stringify(r.cells));
  }
  const groups: Array<{ status: Status; level: number; count: number }> = [];
  for (const [status, byLevel] of tally) {
    byLevel.forEach((count, index) => groups.push({ status, level: index - 1, count }));
  }
  return {
    first_row: run[0].row,
    last_row: run[run.length - 1].row,
    counts: countsFromGroups(groups),
    results,
    cells: cells === null ? null : cells.join('\n'),
  };
}

function recordOf(run: readonly ResultRow[], format: number): ResultRecord {
  if (format !== RESULT_RECORD_FORMAT && format !== COMMA_RECORD_FORMAT) throw new UnknownRecordFormatError(format);
  const { first_row, last_row, counts, results, cells } = recordParts(run);
  const comma = format === COMMA_RECORD_FORMAT;
  return {
    record_format: format,
    first_row,
    last_row,
    counts,
    results: results.join(comma ? ',' : '\n'),
    line_ends: comma ? lineEndsOf(results) : null,
    cells,
    // What a result file reads instead of the lines (result-verdicts.ts).
    ...verdictColumnsOf(results),
  };
}

/** Where each line ends once joined with one byte between them, in UTF-8 bytes (format 2's `line_ends`). */
function lineEndsOf(lines: readonly string[]): Uint8Array {
  const ends = Buffer.allocUnsafe(lines.length * 4);
  let end = -1;
  for (let i = 0; i < lines.length; i++) {
    end += 1 + Buffer.byteLength(lines[i], 'utf8');
    ends.writeUInt32LE(end, i * 4);
  }
  return ends;
}

/** Whether a row lies in one of the stored ranges [first_row, last_row]. */
export function coveredBy(ranges: ReadonlyArray<{ first_row: number; last_row: number }>): (row: number) => boolean {
  const sorted = [...ranges].sort((a, b) => a.first_row - b.first_row);
  return (row) => {
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid].last_row < row) lo = mid + 1;
      else if (sorted[mid].first_row > row) hi = mid - 1;
      else return true;
    }
    return false;
  };
}

/** The sum of records' counts: a job's exact counts (records never overlap). */
export function sumCounts(all: Iterable<ResultCounts>): ResultCounts {
  const total: ResultCounts = { processed: 0, allowed: 0, blocked: 0, manual: 0, level_counts: emptyLevelCounts() };
  for (const c of all) {
    total.processed += c.processed;
    total.allowed += c.allowed;
    total.blocked += c.blocked;
    total.manual += c.manual;
    for (const [level, n] of Object.entries(c.level_counts)) total.level_counts[level as keyof ResultCounts['level_counts']] += n;
  }
  return total;
}

/**
 * The rows of a page cut from records read in row order: rows after `after`, at most `limit`.
 * `rowsOf` reads a record's rows (any array-like of them); `take` is handed each record's rows
 * with the range of them on the page. `records` may be a lazy iterator: it is read only as far
 * as the page needs. Gives whether a row follows the page and the page's last row (-1: none).
 */
function cutPage<R extends { first_row: number }, T extends { length: number }>(
  records: Iterable<R>, after: number, limit: number, rowsOf: (record: R) => T, take: (rows: T, from: number, to: number, record: R) => void,
): { more: boolean; last_row: number } {
  let count = 0;
  let last = -1;
  for (const record of records) {
    if (count === limit) return { more: true, last_row: last };
    const rows = rowsOf(record);
    const from = Math.max(0, after + 1 - record.first_row);
    const to = Math.min(rows.length, from + limit - count);
    if (to > from) {
      take(rows, from, to, record);
      count += to - from;
      last = record.first_row + to - 1;
    }
    if (to < rows.length) return { more: true, last_row: last };
  }
  return { more: false, last_row: last };
}

/**
 * A page cut from records read in row order: rows after `after`, at most `limit`, each as its
 * stored JSON line; `more` tells whether a row follows. `records` may be a lazy iterator: it is
 * read only as far as the page needs. Each record is read as its own format says, so records of
 * different formats serve one page.
 */
export function pageOfRecords(
  records: Iterable<StoredRecord>, after: number, limit: number,
): { rows: Array<{ row: number; result: string; cells: string }>; more: boolean } {
  const rows: Array<{ row: number; result: string; cells: string }> = [];
  const { more } = cutPage(records, after, limit, (record) => {
    const lines = linesOfRecord(record);
    return { length: lines.results.length, ...lines };
  }, (lines, from, to, record) => {
    for (let i = from; i < to; i++) rows.push({ row: record.first_row + i, result: lines.results[i], cells: lines.cells ? lines.cells[i] : 'null' });
  });
  return { rows, more };
}

/**
 * A stored record as a result file reads it (docs/architecture.md "Result files"): its verdict
 * columns (result-verdicts.ts), NULL in records stored before them; `results`, its lines, read
 * only for those (the adapters read '' where the columns are there).
 */
export type VerdictRecord = StoredRecord & { [K in keyof VerdictColumns]: string | null };

/** A page of verdicts: each row's id and verdict as JSON text, its cells as stored. */
export interface VerdictPage {
  ids: string[];
  verdicts: string[];
  cells: string[];
}

/**
 * pageOfRecords' page as a result file reads it: each row's id, verdict and cells. A record
 * without verdict columns gets them from its lines, as the writer would have made them, so old
 * and new records give the same texts.
 */
export function verdictPageOfRecords(records: Iterable<VerdictRecord>, after: number, limit: number): VerdictPage & { more: boolean; last_row: number } {
  const page: VerdictPage = { ids: [], verdicts: [], cells: [] };
  const cut = cutPage(records, after, limit, (record) => {
    // Read as its format says (an unknown one is refused), whether its verdicts are stored or not.
    const { results, cells } = linesOfRecord(record);
    const stored = record.ids !== null && record.verdicts !== null && record.verdict_rows !== null;
    const rows = verdictRowsOf(stored ? (record as VerdictColumns) : verdictColumnsOf(results));
    return { length: rows.ids.length, ...rows, cells };
  }, (rows, from, to) => {
    for (let i = from; i < to; i++) {
      page.ids.push(rows.ids[i]);
      page.verdicts.push(rows.verdicts[i]);
      page.cells.push(rows.cells ? rows.cells[i] : 'null');
    }
  });
  return { ...page, ...cut };
}

/**
 * A result row as stored (JSON text) in the shape of today's ResultRow: results stored before
 * `match.approximate` existed get `false` (they were found by exact names only, docs/matching.md
 * "Names"), so every reader and the API's response schema see the field.
 */
export function storedResultRow(row: number, record: string): ResultRow {
  const stored = JSON.parse(record) as Omit<ResultRow, 'row'>;
  const match = stored.result?.match as { approximate?: boolean } | undefined;
  if (match && match.approximate === undefined) match.approximate = false;
  return { row, ...stored };
}
