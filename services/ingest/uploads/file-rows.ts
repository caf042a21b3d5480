/**
 * A table's data rows as the intake's spool rows: each row's person (by the resolved mapping) and
 * its cells as read, so the result file gives the customer's own columns back. A mapped value
 * over 200 characters (docs/decisions.md §11) refuses the whole file, as a bad person refuses a JSON
 * body: the error names the row and field, never the value.
 */
import type { JobRowInput } from '../../domain/job-row.ts';
import { JobInputError, jobInputIssue } from '../jobs/errors.ts';
import type { SpoolRow } from '../jobs/spool.ts';
import { isUnreadablePerson, type ResolvedColumnMapping, type TableSource } from '../files/index.ts';
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
  return rowReaderOf(mapping)(cells, row, lenient, null);
}

/**
 * Reads one row: its person (as personFromCells then the 200-character rule would give it: each
 * mapped cell trimmed, empty ones left out, `external_id` as `id`, fields in PERSON_FIELDS order
 * so the first over-long field is the one named) and, with `size`, its spool line's length
 * without the newline (`[person,cells]`, what unspooledBatch would count) in the same pass.
 */
type RowReader = (cells: Cells, row: number, lenient: boolean, size: { length: number } | null) => JobRowInput;

/**
 * A mapping's row reader, made once per resolved mapping: a function with one named store per
 * mapped field, so a row costs one object and no look-up of the mapping, where personFromCells
 * and a copy per row were a fifth of an upload's intake on the API thread (docs/performance.md
 * "Measurements"). Generated from PERSON_FIELDS (the service's own names) and column indexes
 * (integers checked here), never from file data.
 */
function rowReaderOf(mapping: ResolvedColumnMapping): RowReader {
  let reader = readers.get(mapping);
  if (!reader) {
    reader = compileRowReader(mapping);
    readers.set(mapping, reader);
  }
  return reader;
}

const readers = new WeakMap<ResolvedColumnMapping, RowReader>();

function compileRowReader(mapping: ResolvedColumnMapping): RowReader {
  const steps: string[] = [];
  for (const field of PERSON_FIELDS) {
    const column = field === 'id' ? mapping.columns.external_id : (mapping.columns as Partial<Record<string, number>>)[field];
    if (column === undefined) continue;
    if (!Number.isInteger(column) || column < 0) throw new Error(`column of ${field} is not an index`);
    const name = JSON.stringify(field);
    // A field's JSON is `"name":"value"` and a comma or the closing brace (jsonTextLength).
    steps.push(`v = cells[${column}];
      if (v !== null && v !== undefined && (v = v.trim()) !== '') {
        if (v.length > ${MAX_FIELD_CHARS}) v = tooLong(row, ${name}, v, lenient);
        p[${name}] = v;
        if (size !== null) size.length += ${field.length + 4} + (state.escaped[${column}] === 1 && ESCAPED.test(v) ? JSON.stringify(v).length : v.length + 2);
      }`);
  }
  // An empty person is `{}` (2), one with fields `{` and per field its text and a comma or `}`.
  const source = `return function readRow(cells, row, lenient, size) {
    const p = {};
    let v;
    if (size !== null) size.length = 4 + cellsLength(cells);
    const before = size === null ? 0 : size.length;
    ${steps.join('\n    ')}
    if (size !== null && size.length === before) size.length += 1;
    return p;
  };`;
  // oxlint-disable-next-line typescript/no-implied-eval -- generated once per mapping from the service's own field names and integer column indexes, never from file data (as the compiled codec, docs/architecture.md "The compiled codec")
  return new Function('tooLong', 'cellsLength', 'state', 'ESCAPED', source)(tooLong, cellsLength, state, ESCAPED_IN_JSON) as RowReader;
}

function tooLong(row: number, field: string, value: string, lenient: boolean): string {
  if (!lenient) throw new JobInputError([jobInputIssue(`rows[${row}].${field}`, 'value_too_long')]);
  return value.slice(0, MAX_FIELD_CHARS);
}

/** A string JSON.stringify writes with an escape (as spool.ts's): a quote, a backslash, a control character or a surrogate. */
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Per column of the row last measured, 1 when its cell needs an escape in JSON: a person's value
 * is its cell trimmed, so only such a cell's value is tested again. Written by cellsLength just
 * before the same row's values read it (one thread, no await in between).
 */
const state = { escaped: new Uint8Array(64) };

/**
 * `JSON.stringify(cells).length` (spool.ts cellsTextLength), noting which cells need an escape.
 * Most rows have none: a scan of their characters is a fraction of a regular expression's test
 * per cell (each call costs more than its scan of a short cell); a row with one is measured
 * cell by cell.
 */
function cellsLength(cells: Cells): number {
  if (state.escaped.length < cells.length) state.escaped = new Uint8Array(cells.length * 2);
  const escaped = state.escaped;
  let length = cells.length === 0 ? 2 : 1 + cells.length;
  let plain = true;
  for (let i = 0; i < cells.length && plain; i++) {
    const cell = cells[i];
    escaped[i] = 0;
    if (typeof cell === 'string') {
      length += cell.length + 2;
      for (let j = 0; j < cell.length; j++) {
        const code = cell.charCodeAt(j);
        if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) {
          plain = false;
          break;
        }
      }
    } else if (cell === null || cell === undefined) length += 4; // null, or a hole JSON writes as null
    else plain = false;
  }
  if (plain) return length;
  escaped.fill(0, 0, cells.length);
  length = cells.length === 0 ? 2 : 1 + cells.length;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (typeof cell !== 'string') {
      length += JSON.stringify(cell ?? null).length;
    } else if (ESCAPED_IN_JSON.test(cell)) {
      length += JSON.stringify(cell).length;
      escaped[i] = 1;
    } else {
      length += cell.length + 2;
    }
  }
  return length;
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
  const read = rowReaderOf(mapping);
  const size = { length: 0 };
  let row = 0;
  for await (const cells of dataBatches) {
    for (let start = 0; start < cells.length; start += BATCH_ROWS) {
      const batch: SpoolRow[] = [];
      for (let i = start; i < Math.min(cells.length, start + BATCH_ROWS); i++) {
        const person = read(cells[i], row++, false, size);
        batch.push({ person, cells: cells[i], size: size.length });
      }
      yield batch;
    }
  }
}
