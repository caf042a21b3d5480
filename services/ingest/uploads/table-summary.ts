/**
 * One pass over an opened table (services/ingest/files openTable) before a job exists: the header,
 * the column mapping (the caller's, else a saved one for the header row, else guessed), the number of data rows and the first 20 of
 * them for the preview. Reading every row here means a truncated, corrupt or over-long file is
 * refused before anything is created (the readers throw FileRefusedError mid-way); nothing but
 * the header and 20 rows is kept in memory.
 */
import type { ColumnMapping } from '../../domain/check-job.ts';
import { guessColumnMapping, type TableSource } from '../files/index.ts';

export const PREVIEW_ROWS = 20;
/** Rows the mapping guess may look at (header plus content of a header-less file). */
const GUESS_ROWS = 50;

export type Cells = Array<string | null>;

export interface TableSummary {
  /** The header row as read; null when the mapping says the file has none. */
  header: Cells | null;
  /** `columns` of the draft: the header as text ('' for an empty header cell; `1`, `2`… without a header). */
  columns: string[];
  /** The caller's mapping, else the guessed one, else null (the draft asks for one). */
  mapping: ColumnMapping | null;
  /** Index (0-based, among the rows the reader gives) of the header row; -1 when there is none. */
  headerRow: number;
  /** Data rows: every row after the header that is not blank. */
  rowCount: number;
  columnCount: number;
  preview: Cells[];
}

/**
 * Where the header is: `header_row` of the mapping (docs/contract.md ColumnMapping: default 0), counted
 * among the rows openTable yields (blank rows are not yielded); -1 (NO_HEADER_ROW): none.
 */
export function headerRowOf(mapping: ColumnMapping | null): number {
  const row = mapping?.header_row;
  return typeof row === 'number' ? row : 0;
}

/**
 * `saved`: the organisation's saved mapping for these first rows, if any (docs/inbound.md "Saved
 * column mappings on every channel"); asked only when no mapping is given, before guessing.
 */
export async function summariseTable(table: TableSource, given: ColumnMapping | null, saved?: (firstRows: Cells[]) => ColumnMapping | null): Promise<TableSummary> {
  const head: Cells[] = [];
  let mapping = given;
  let headerRow = 0;
  let header: Cells | null = null;
  let rowCount = 0;
  let columnCount = 0;
  const preview: Cells[] = [];
  let index = 0;
  let decided = false;

  const decide = () => {
    if (decided) return;
    decided = true;
    mapping ??= saved?.(head) ?? guessColumnMapping(head);
    headerRow = headerRowOf(mapping);
    header = headerRow >= 0 && headerRow < head.length ? head[headerRow] : null;
    // The rows held for the guess are counted now; later rows as they come.
    for (let i = 0; i < head.length; i++) countRow(head[i], i);
  };
  const countRow = (cells: Cells, at: number) => {
    if (at <= headerRow) return;
    rowCount += 1;
    if (preview.length < PREVIEW_ROWS) preview.push(cells);
  };

  for await (const cells of table.rows()) {
    columnCount = Math.max(columnCount, cells.length);
    if (!decided) {
      head.push(cells);
      if (head.length >= GUESS_ROWS) decide();
    } else {
      countRow(cells, index);
    }
    index += 1;
  }
  decide();
  const finalHeader = header as Cells | null;
  const columns = finalHeader
    ? Array.from({ length: columnCount }, (_, i) => finalHeader[i] ?? '')
    : Array.from({ length: columnCount }, (_, i) => String(i + 1));
  return { header: finalHeader, columns, mapping, headerRow, rowCount, columnCount, preview };
}
