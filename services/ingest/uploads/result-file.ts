/**
 * A done job's results as a file (DECISIONS §14): the input's own columns and format with the
 * verdict columns appended (writeResultFile of services/ingest/files), read from the job store a
 * page at a time, so a 1,000,000-row job is never in memory.
 *
 * Formats: xlsx → xlsx, xls → xlsx, csv → csv in the input's encoding and delimiter; JSON jobs →
 * csv UTF-8 with one input column, the person's `id` (the only input a JSON job's result keeps;
 * a customer's own reference). `format` overrides the kind; a csv override of a spreadsheet job is
 * UTF-8 with `;` (what Danish Excel opens), of a csv job the input's dialect.
 */
import type { JobRecord, JobStore } from '../../platform/store/jobs-port.ts';
import type { Locale } from '../../domain/types.ts';
import { writeResultFile, type CsvDialect } from '../files/index.ts';
import { headerRowOf } from './table-summary.ts';

export type ResultFileFormat = 'csv' | 'xlsx';

export interface ResultFileSpec {
  format: ResultFileFormat;
  csv?: CsvDialect;
  contentType: string;
  /** Suggested download name: the input's base name + `.result.<ext>`. */
  filename: string;
}

const PAGE_ROWS = 10_000;

export function resultFileSpec(job: JobRecord, format?: ResultFileFormat): ResultFileSpec {
  const kind: ResultFileFormat = format ?? (job.file_format === 'xlsx' || job.file_format === 'xls' ? 'xlsx' : 'csv');
  const base = (job.filename ?? `check-job-${job.id}`).replace(/\.[A-Za-z0-9]{1,5}$/, '');
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

/** Writes the result file of a done job to `out` (the caller checks the job is done). */
export async function streamResultFile(
  jobs: Pick<JobStore, 'readResults'>,
  job: JobRecord,
  options: { format?: ResultFileFormat; locale: Locale },
  out: NodeJS.WritableStream,
): Promise<void> {
  const spec = resultFileSpec(job, options.format);
  const listVersionId = job.list_version?.id ?? '';
  const json = job.file_format === null;
  async function* rows() {
    let cursor: string | null = null;
    do {
      const page = await jobs.readResults(job.id, { cursor, limit: PAGE_ROWS });
      for (const row of page.rows) {
        yield { cells: json ? [row.result.id] : (row.cells ?? []), result: row.result, list_version_id: listVersionId };
      }
      cursor = page.next_cursor;
    } while (cursor !== null);
  }
  await writeResultFile(
    out,
    {
      format: spec.format, ...(spec.csv ? { csv: spec.csv } : {}), header: inputHeader(job), columnCount: json ? 1 : job.columns.length,
      locale: options.locale, checks: { companies: job.options.check_companies === true, phones: job.options.check_phones === true },
    },
    rows(),
  );
}
