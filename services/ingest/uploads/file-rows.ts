/**
 * A table's data rows as the intake's spool rows: each row's person (by the resolved mapping) and
 * its cells as read, so the result file gives the customer's own columns back. A mapped value
 * over 200 characters (docs/decisions.md §11) refuses the whole file, as a bad person refuses a JSON
 * body: the error names the row and field, never the value.
 */
import type { JobRowInput } from '../../domain/job-row.ts';
import { JobInputError, jobInputIssue } from '../jobs/errors.ts';
import type { SpoolRow } from '../jobs/spool.ts';
import { isUnreadablePerson, personFromCells, type ResolvedColumnMapping, type TableSource } from '../files/index.ts';
import type { Cells } from './table-summary.ts';

const BATCH_ROWS = 1000;
/** docs/decisions.md §11: every string field at most 200 characters. */
export const MAX_FIELD_CHARS = 200;

/** The fields a job row carries: the person, the phone, and `cvr`/`company_name` for company checks. */
const PERSON_FIELDS = [
  'id', 'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door', 'postal_code', 'city',
  'kvhx', 'phone', 'cvr', 'company_name',
] as const satisfies ReadonlyArray<keyof JobRowInput>;

/**
 * Which of a file's first data rows the check could not read (no name, or no readable address),
 * read as the check would but without a list: what mappingWarnings judges a file that starts at
 * once by (docs/uploads.md "Warnings before a check").
 */
export function unreadableRows(rows: readonly Cells[], mapping: ResolvedColumnMapping): boolean[] {
  return rows.map((cells, i) => isUnreadablePerson(personOfRow(cells, mapping, i, true)));
}

/**
 * The job row (PersonInput + company fields) of one data row (row = 0-based data row, for the error path). `lenient` (the
 * draft's preview) cuts an over-long value instead of refusing: the draft still shows the file,
 * and the start, which reads every row with the final mapping, refuses it.
 */
export function personOfRow(cells: Cells, mapping: ResolvedColumnMapping, row: number, lenient = false): JobRowInput {
  const mapped = personFromCells(cells, mapping) as Record<string, string | undefined>;
  const person: JobRowInput = {};
  for (const field of PERSON_FIELDS) {
    const value = mapped[field];
    if (value === undefined || value === '') continue;
    if (value.length > MAX_FIELD_CHARS && !lenient) throw new JobInputError([jobInputIssue(`rows[${row}].${field}`, 'value_too_long')]);
    person[field] = value.length > MAX_FIELD_CHARS ? value.slice(0, MAX_FIELD_CHARS) : value;
  }
  return person;
}

/** Every data row after `headerRow` (openTable yields no blank rows), in batches for spoolRows. */
export function spoolRowsOf(table: TableSource, mapping: ResolvedColumnMapping, headerRow: number): AsyncGenerator<SpoolRow[]> {
  return spoolBatchesOf(dataBatchesAfter(table, headerRow), mapping);
}

/** A table's data rows (the rows after `headerRow`) in the reader's batches. */
async function* dataBatchesAfter(table: TableSource, headerRow: number): AsyncGenerator<Cells[]> {
  let index = 0;
  for await (const batch of table.batches()) {
    const first = Math.max(0, headerRow + 1 - index);
    index += batch.length;
    if (first < batch.length) yield first === 0 ? batch : batch.slice(first);
  }
}

/**
 * Data rows (in batches, as a TablePass or dataBatchesAfter gives them) as spool rows: each row's
 * person by the mapping, its cells as read; the row number of an error counts from the first.
 */
export async function* spoolBatchesOf(dataBatches: AsyncIterable<Cells[]>, mapping: ResolvedColumnMapping): AsyncGenerator<SpoolRow[]> {
  let row = 0;
  for await (const cells of dataBatches) {
    for (let start = 0; start < cells.length; start += BATCH_ROWS) {
      const batch: SpoolRow[] = [];
      for (const rowCells of cells.slice(start, start + BATCH_ROWS)) batch.push({ person: personOfRow(rowCells, mapping, row++), cells: rowCells });
      yield batch;
    }
  }
}
