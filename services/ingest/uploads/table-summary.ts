/**
 * One read of an opened table (services/ingest/files openTable), in two steps: `head()` reads the
 * first rows and decides the mapping (the caller's, else a saved one for the header row, else
 * guessed from the first 50 rows) and the 20-row preview; `dataBatches()` then hands on every data
 * row, those head() read first. A job that starts at once checks its mapping and warnings after
 * the head and spools (and publishes) the rows as they are read, so its file is read once
 * (docs/uploads.md "Flow"); a draft reads every row to count them (summariseTable). Nothing but
 * the head and one batch of rows is held in memory.
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

/** What head() knows: the summary of the rows read so far, and whether that was the whole table. */
export interface TableHead extends TableSummary {
  ended: boolean;
}

export interface TablePass {
  /** Reads until the mapping is decided and the preview is full, or the table ended. */
  head(): Promise<TableHead>;
  /** Every data row after the header, in the reader's batches; call once, after head(). */
  dataBatches(): AsyncGenerator<Cells[]>;
  /** The summary of every row read so far: complete once dataBatches() has ended. */
  summary(): TableSummary;
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
 * `saved`: the organisation's saved mapping for the first rows, if any (docs/inbound.md "Saved
 * column mappings on every channel"); asked only when no mapping is given, before guessing.
 */
export function startTablePass(table: TableSource, given: ColumnMapping | null, saved?: (firstRows: Cells[]) => ColumnMapping | null): TablePass {
  const batches = table.batches()[Symbol.asyncIterator]();
  /** Rows head() read (header included), handed on first by dataBatches(). */
  const held: Cells[] = [];
  /** Index (among the rows the reader gives) of held[0]. */
  let heldFrom = 0;
  let ended = false;
  let mapping = given;
  let headerRow = 0;
  let header: Cells | null = null;
  let columnCount = 0;
  let rowCount = 0;
  const preview: Cells[] = [];

  async function nextBatch(): Promise<Cells[] | null> {
    const next = await batches.next();
    if (next.done) {
      ended = true;
      return null;
    }
    for (const cells of next.value) if (cells.length > columnCount) columnCount = cells.length;
    return next.value;
  }

  function summary(): TableSummary {
    const columns = header
      ? Array.from({ length: columnCount }, (_, i) => (header as Cells)[i] ?? '')
      : Array.from({ length: columnCount }, (_, i) => String(i + 1));
    return { header, columns, mapping, headerRow, rowCount, columnCount, preview: [...preview] };
  }

  async function head(): Promise<TableHead> {
    while (!ended && held.length < GUESS_ROWS) {
      const batch = await nextBatch();
      if (batch) for (const cells of batch) held.push(cells);
    }
    mapping ??= saved?.(held.slice(0, GUESS_ROWS)) ?? guessColumnMapping(held.slice(0, GUESS_ROWS));
    headerRow = headerRowOf(mapping);
    // A header row further down than the guess looked: the rows before it are not data and are
    // not kept (only counted), so a large header_row holds no more than the head in memory.
    while (!ended && heldFrom + held.length < headerRow + 1 + PREVIEW_ROWS) {
      const batch = await nextBatch();
      if (!batch) break;
      for (const cells of batch) {
        if (heldFrom + held.length < headerRow && held.length >= GUESS_ROWS) {
          held.shift();
          heldFrom += 1;
        }
        held.push(cells);
      }
    }
    const at = headerRow - heldFrom;
    header = headerRow >= 0 && at >= 0 && at < held.length ? held[at] : null;
    for (let i = Math.max(0, at + 1); i < held.length && preview.length < PREVIEW_ROWS; i++) preview.push(held[i]);
    // While the table has not ended, the data rows past the head are not counted yet.
    rowCount = Math.max(0, heldFrom + held.length - (headerRow + 1));
    return { ...summary(), ended };
  }

  async function* dataBatches(): AsyncGenerator<Cells[]> {
    rowCount = 0;
    let index = heldFrom;
    const dataOf = (batch: Cells[]): Cells[] => {
      const first = Math.max(0, headerRow + 1 - index);
      index += batch.length;
      const rows = first === 0 ? batch : batch.slice(first);
      rowCount += rows.length;
      return rows;
    };
    const fromHead = dataOf(held.splice(0));
    if (fromHead.length > 0) yield fromHead;
    for (let batch = await nextBatch(); batch; batch = await nextBatch()) {
      const rows = dataOf(batch);
      if (rows.length > 0) yield rows;
    }
  }

  return { head, dataBatches, summary };
}

/**
 * One pass over a table before a job exists: the header, the mapping, the number of data rows
 * and the first 20 of them for the preview. Reading every row here means a truncated, corrupt or
 * over-long file is refused before anything is created (the readers throw FileRefusedError
 * mid-way).
 */
export async function summariseTable(table: TableSource, given: ColumnMapping | null, saved?: (firstRows: Cells[]) => ColumnMapping | null): Promise<TableSummary> {
  const pass = startTablePass(table, given, saved);
  await pass.head();
  for await (const _rows of pass.dataBatches()) {
    // Counted by the pass.
  }
  return pass.summary();
}
