/**
 * RowsChunk v7's `person_cells` (docs/architecture.md "Pipeline events"): a file row's person is
 * made of its own cells (each mapped cell trimmed, left out when empty:
 * services/ingest/uploads/file-rows.ts), so a chunk that carried both wrote every mapped value
 * twice, the larger part of encoding, sealing and appending an upload's rows (docs/performance.md
 * "Measurements"). The writer finds, per person field, the cell every row of the chunk takes it
 * from, checks it on every row and writes those fields null; the reader fills them in again from
 * the cells. Nothing here knows the mapping: a field whose values are not one cell's in every row
 * (JSON input, a cell cut or changed) stays in the person, so what is read is always what was
 * written.
 */
import type { AvroPerson, InputRow } from './events.ts';

/** PersonInput's fields in the schema's order: `person_cells[i]` is about `PERSON_FIELDS[i]`. */
export const PERSON_FIELDS = [
  'id', 'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door', 'postal_code', 'city',
  'kvhx', 'phone', 'cvr', 'company_name',
] as const satisfies ReadonlyArray<keyof AvroPerson>;

/** Rows a field's cell is looked for in (docs/performance.md "Measurements"). */
const CANDIDATE_ROWS = 16;

/** A person field's value as the file's row reader makes it of a cell: trimmed, null when empty or absent. */
function valueOfCell(cell: string | null | undefined): string | null {
  if (cell === null || cell === undefined) return null;
  const value = cell.trim();
  return value === '' ? null : value;
}

/** The first cell of `cells` whose value is `value`, or -1. */
function cellOf(cells: ReadonlyArray<string | null>, value: string): number {
  for (let i = 0; i < cells.length; i++) if (valueOfCell(cells[i]) === value) return i;
  return -1;
}

/**
 * The chunk's `person_cells` for these rows, with the fields it names set to null in each row's
 * person (the rows are the writer's own, about to be encoded); null, rows untouched, when no
 * field is one cell's in every row.
 */
export function takePersonCells(rows: InputRow[]): number[] | null {
  if (rows.length === 0) return null;
  for (const row of rows) if (row.cells === null) return null;
  // The candidate cell of each field: where the first row with a value has it, among the first
  // few (a field empty in all of them stays in the person: looking further cost more than it saved).
  const columns: number[] = [];
  const first = rows.slice(0, CANDIDATE_ROWS);
  for (const field of PERSON_FIELDS) {
    let column = -1;
    for (const row of first) {
      const value = row.person[field];
      if (value !== null) {
        column = cellOf(row.cells!, value);
        break;
      }
    }
    columns.push(column);
  }
  if (columns.every((c) => c < 0)) return null;
  // Usually every row agrees (one file, one mapping): one compiled pass checks and clears them.
  if (compiledFor(columns).take(rows)) return columns;
  // Else field by field, keeping only the fields every row agrees on (rare: the generic path).
  for (let f = 0; f < PERSON_FIELDS.length; f++) {
    const column = columns[f];
    if (column < 0) continue;
    for (const row of rows) {
      if (valueOfCell(row.cells![column]) !== row.person[PERSON_FIELDS[f]]) {
        columns[f] = -1;
        break;
      }
    }
  }
  if (columns.every((c) => c < 0)) return null;
  if (!compiledFor(columns).take(rows)) throw new Error('person cells checked twice disagree');
  return columns;
}

/** The reader's side: each row's person fields named by `person_cells` filled in from its cells. */
export function restorePersonCells(rows: InputRow[], personCells: readonly number[]): void {
  const columns = PERSON_FIELDS.map((_, f) => (f < personCells.length && Number.isInteger(personCells[f]) && personCells[f] >= 0 ? personCells[f] : -1));
  compiledFor(columns).restore(rows);
}

interface PersonCellsCode {
  /** Every row's named fields are their cells: clears them and returns true; else false, nothing changed. */
  take(rows: InputRow[]): boolean;
  restore(rows: InputRow[]): void;
}

const compiled = new Map<string, PersonCellsCode>();
const MAX_COMPILED = 64;

/**
 * The two passes for one `person_cells`, generated once per distinct list (a job has one, a
 * process a handful): named loads and stores on the person, where keyed ones over 15 field names
 * cost more than the bytes they saved (docs/performance.md "Measurements"). Generated from
 * PERSON_FIELDS (the schema's names) and integer column indexes, never from row data.
 */
function compiledFor(columns: readonly number[]): PersonCellsCode {
  const key = columns.join(',');
  let code = compiled.get(key);
  if (!code) {
    const named = PERSON_FIELDS.flatMap((field, f) => (columns[f] >= 0 ? [{ field: JSON.stringify(field), column: columns[f] }] : []));
    for (const { column } of named) if (!Number.isInteger(column)) throw new Error('person cell is not an index');
    const checks = named.map(({ field, column }) => `v = c[${column}]; if (v === p[${field}] ? v !== null && value(v) !== v : value(v) !== p[${field}]) return false;`).join('\n        ');
    const clears = named.map(({ field }) => `p[${field}] = null;`).join(' ');
    const fills = named.map(({ field, column }) => `p[${field}] = c === null ? null : value(c[${column}]);`).join('\n        ');
    const source = `return {
      take(rows) {
        let v;
        for (let i = 0; i < rows.length; i++) {
          const p = rows[i].person, c = rows[i].cells;
          // What restore makes of the cell (trimmed, null when empty) must be the person's value,
          // also when the two are the same text: a person's value with spaces around it stays.
          ${checks}
        }
        for (let i = 0; i < rows.length; i++) {
          const p = rows[i].person;
          ${clears}
        }
        return true;
      },
      restore(rows) {
        for (let i = 0; i < rows.length; i++) {
          const p = rows[i].person, c = rows[i].cells;
          ${fills}
        }
      },
    };`;
    // oxlint-disable-next-line typescript/no-implied-eval -- generated once per column list from the schema's own field names and integer indexes, never from row data (as the compiled codec, docs/architecture.md "Pipeline events")
    code = new Function('value', source)(valueOfCell) as PersonCellsCode;
    // Lists come from the log: a bound keeps odd chunks from growing the cache without end.
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, code);
  }
  return code;
}
