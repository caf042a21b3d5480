/**
 * A done job's results as a file (docs/decisions.md §14): the input's own columns and format with the
 * verdict columns appended (writeResultFile of services/ingest/files), read from the job store a
 * page at a time, so a 1,000,000-row job is never in memory.
 *
 * `rows` picks the rows of one status (blocked only, allowed only, manual only); the default is all.
 *
 * Formats: xlsx → xlsx, xls → xlsx, csv → csv in the input's encoding and delimiter; JSON jobs →
 * csv UTF-8 with one input column, the person's `id` (the only input a JSON job's result keeps;
 * a customer's own reference). `format` overrides the kind; a csv override of a spreadsheet job is
 * UTF-8 with `;` (what Danish Excel opens), of a csv job the input's dialect.
 */
import type { JobRecord, JobStore } from '../../platform/store/jobs-port.ts';
import type { Locale, Status } from '../../domain/types.ts';
import { writeResultFile, type CsvDialect, type ResultFileRow } from '../files/index.ts';
import { headerRowOf } from './table-summary.ts';
import { createResultFileVerdicts } from './result-file-lines.ts';

export type ResultFileFormat = 'csv' | 'xlsx';
/** Which rows a result file holds: all, or those of one status (docs/files.md "Result files"). */
export type ResultFileRows = 'all' | Status;
/** A monitor re-check's change report: only the rows with a change, or with one kind (docs/monitors.md "Change reports"). */
export type ResultFileChange = 'any' | 'newly_blocked' | 'released' | 'changed_level';

export interface ResultFileSpec {
  format: ResultFileFormat;
  csv?: CsvDialect;
  contentType: string;
  /** Suggested download name: the input's base name + `.result.<ext>`. */
  filename: string;
}

/** Rows a store read gives the file: a tenth of the round trips of API pages (jobs-port.ts MAX_VERDICT_PAGE). */
const PAGE_ROWS = 50_000;

export function resultFileSpec(job: JobRecord, format?: ResultFileFormat, rows: ResultFileRows = 'all', change?: ResultFileChange): ResultFileSpec {
  const kind: ResultFileFormat = format ?? (job.file_format === 'xlsx' || job.file_format === 'xls' ? 'xlsx' : 'csv');
  // A file of some rows is named for them, so it is never mistaken for the whole result.
  const base = (job.filename ?? `check-job-${job.id}`).replace(/\.[A-Za-z0-9]{1,5}$/, '') + (rows === 'all' ? '' : `.${rows}`)
    + (change === undefined ? '' : change === 'any' ? '.changes' : `.${change}`);
  if (kind === 'xlsx') {
    return { format: 'xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', filename: `${base}.result.xlsx` };
  }
  const csv: CsvDialect = job.csv_dialect ?? (job.file_format === null ? { encoding: 'utf-8', delimiter: ',' } : { encoding: 'utf-8', delimiter: ';' });
  const charset = csv.encoding.startsWith('utf-16') ? 'utf-16' : csv.encoding === 'windows-1252' ? 'windows-1252' : 'utf-8';
  return { format: 'csv', csv, contentType: `text/csv; charset=${charset}`, filename: `${base}.result.csv` };
}

/** The header of the input as the result file repeats it: null when the file had none. */
function inputHeader(job: JobRecord): Array<string | null> | null {
  if (job.file_format === null) return ['id'];
  return headerRowOf(job.column_mapping) >= 0 && job.columns.length > 0 ? job.columns : null;
}

/** A row's stored cells (JSON text): its input cells, none for a row stored without. */
function cellsOf(stored: string): Array<string | null> {
  return stored === 'null' ? [] : ((JSON.parse(stored) as Array<string | null> | null) ?? []);
}

/** How the result file's list-version column names an organisation's own (private) list. */
export const OWN_LIST = { da: 'egen liste', en: 'own list' } as const;

/** Writes the result file of a done job to `out` (the caller checks the job is done). */
export async function streamResultFile(
  jobs: Pick<JobStore, 'readResultVerdicts'>,
  job: JobRecord,
  options: { format?: ResultFileFormat; locale: Locale; rows?: ResultFileRows; change?: ResultFileChange },
  out: NodeJS.WritableStream,
): Promise<void> {
  const only = options.rows ?? 'all';
  const change = options.change;
  const spec = resultFileSpec(job, options.format, only, change);
  // People read the list version by its publication date; the id stays in the API and certificate.
  const listVersion = job.list_version?.published_on ?? '';
  const json = job.file_format === null;
  // The stored verdicts, each parsed once (docs/architecture.md "Result files").
  const read = createResultFileVerdicts();
  // A page of rows at a time: one await per page (docs/architecture.md "Result files").
  async function* rows(): AsyncIterable<ResultFileRow[]> {
    let cursor: string | null = null;
    do {
      const page = await jobs.readResultVerdicts(job.id, { cursor, limit: PAGE_ROWS });
      const batch: ResultFileRow[] = [];
      for (let i = 0; i < page.verdicts.length; i++) {
        const result = read.verdict(page.verdicts[i]);
        if (only !== 'all' && result.status !== only) continue;
        if (change !== undefined && (change === 'any' ? result.change == null : result.change !== change)) continue;
        // A person found on the organisation's own list names that list (docs/matching.md "Private lists").
        const own = result.list_version;
        const cells = json ? [read.id(page.ids[i])] : cellsOf(page.cells[i]);
        batch.push({ cells, result, list_version: own ? `${OWN_LIST[options.locale]} ${own.published_on}` : listVersion });
      }
      yield batch;
      cursor = page.next_cursor;
    } while (cursor !== null);
  }
  await writeResultFile(
    out,
    {
      format: spec.format, ...(spec.csv ? { csv: spec.csv } : {}), header: inputHeader(job), columnCount: json ? 1 : job.columns.length,
      locale: options.locale, changes: job.source === 'monitor', checks: { companies: job.options.check_companies === true, phones: job.options.check_phones === true },
      summary: {
        filename: job.filename, checkedAt: job.finished_at, listPublishedOn: job.list_version?.published_on ?? null, rows: only, ...(change ? { change } : {}),
        counts: { rows: job.row_count, blocked: job.blocked_count, allowed: job.allowed_count, manual: job.manual_count },
      },
    },
    rows(),
  );
}
