import ExcelJS from 'exceljs';
import type { CheckResult } from '../../domain/types.ts';
import type { CsvDialect } from './csv-reader.ts';
import { byteOrderMark, encodeText } from './text-encoding.ts';

/**
 * Result files (DECISIONS §14): the input's own columns, then `status`, `match_level`,
 * `match_code`, `reasons`, `list_version`, with localised headers. Streamed: rows are written as
 * they come (CSV in ~64 KiB pieces, waiting for the stream to drain; xlsx through exceljs's
 * WorkbookWriter, which commits each row), so 1,000,000 rows are never in memory.
 *
 * Formula injection (OWASP "CSV injection"): in CSV a cell starting with `=`, `+`, `-`, `@`, tab or
 * CR gets a leading `'`, which spreadsheets show as text; in xlsx every cell is written as a text
 * cell (exceljs writes a formula only when given a { formula } value), so it stays as it was.
 *
 * A file read without a header row gets one anyway ("Kolonne 1" / "Column 1" …), so that the
 * appended columns are named. The verdict columns follow the header's width; a row longer than
 * the header keeps its extra cells after the verdict columns, so no input cell is lost and no
 * verdict moves.
 */
export interface ResultFileSpec {
  format: 'csv' | 'xlsx';
  /** For CSV: the input's encoding and delimiter (JSON jobs: UTF-8 and `,`). */
  csv?: CsvDialect;
  header: Array<string | null> | null;
  /** Input columns when there is no header row (else the header's length). */
  columnCount?: number;
  locale: 'da' | 'en';
  /**
   * Jobs with company or phone checks (DECISIONS §17) get their outcome in more columns after
   * `list_version`: the company's status, register name and form; the phone lookup's outcome and
   * the name and address the directory gave (empty for unlisted and not found numbers).
   */
  checks?: { companies: boolean; phones: boolean };
}

export interface ResultFileRow {
  cells: Array<string | null>;
  result: CheckResult;
  list_version_id: string;
}

export const VERDICT_HEADERS = {
  da: ['Status', 'Matchniveau', 'Matchkode', 'Årsager', 'Listeversion'],
  en: ['status', 'match_level', 'match_code', 'reasons', 'list_version'],
} as const;
const COMPANY_HEADERS = {
  da: ['Virksomhedsstatus', 'Virksomhedsnavn', 'Virksomhedsform'],
  en: ['company_status', 'company_name', 'company_form'],
} as const;
const PHONE_HEADERS = {
  da: ['Telefonopslag', 'Navn fra telefonbog', 'Adresse fra telefonbog'],
  en: ['phone_lookup', 'phone_name', 'phone_address'],
} as const;
const COLUMN_WORD = { da: 'Kolonne', en: 'Column' } as const;
const SHEET_NAME = { da: 'Resultater', en: 'Results' } as const;
const FORMULA_START = /^[=+\-@\t\r]/;
const CSV_PIECE_CHARS = 64 * 1024;
const BACKPRESSURE_EVERY_ROWS = 200;

/**
 * exceljs's WorkbookWriter takes no backpressure: a committed row goes into the sheet's StreamBuf,
 * which writes on into the zip's compressor whatever that answers, so a fast row source piles the
 * whole sheet up in memory (measured: 850 MB for 1,000,000 rows). Every few hundred rows we wait
 * until the zip's input (the StreamBuf's pipe, a readable-stream PassThrough: internals of
 * exceljs 4.4 read through `_writableState`, which readable-stream and Node share) and the output
 * stream have drained. Without that pipe (another exceljs version) we still wait for the output.
 */
async function zipCaughtUp(sheet: ExcelJS.Worksheet, out: NodeJS.WritableStream): Promise<void> {
  type Pipe = NodeJS.WritableStream & { _writableState?: { needDrain?: boolean } };
  const internal = sheet as unknown as { stream?: { pipes?: Pipe[] } };
  const compressor = internal.stream?.pipes?.[0];
  if (compressor?._writableState?.needDrain) await new Promise<void>((resolve) => compressor.once('drain', () => resolve()));
  const output = out as NodeJS.WritableStream & { writableNeedDrain?: boolean };
  if (output.writableNeedDrain) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
}

export function verdictHeaders(locale: 'da' | 'en'): readonly string[] {
  return VERDICT_HEADERS[locale];
}

/** A cell a spreadsheet would run as a formula, made text. */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

function verdictCells(row: ResultFileRow, spec: ResultFileSpec): string[] {
  const { result } = row;
  const cells = [
    result.status,
    result.match.level === null ? '' : String(result.match.level),
    result.match.code ?? '',
    result.reasons.join(', '),
    row.list_version_id,
  ];
  if (spec.checks?.companies) {
    const company = result.company;
    cells.push(company?.status ?? '', company?.name ?? '', company?.company_form ?? '');
  }
  if (spec.checks?.phones) {
    const lookup = result.phone_lookup;
    cells.push(lookup?.outcome ?? '', lookup?.name ?? '', lookup?.address ?? '');
  }
  return cells;
}

/** The appended column names of a result file, in the locale. */
export function verdictHeadersOf(spec: Pick<ResultFileSpec, 'locale' | 'checks'>): string[] {
  return [
    ...VERDICT_HEADERS[spec.locale],
    ...(spec.checks?.companies ? COMPANY_HEADERS[spec.locale] : []),
    ...(spec.checks?.phones ? PHONE_HEADERS[spec.locale] : []),
  ];
}

function headerCells(spec: ResultFileSpec, width: number): string[] {
  const own: string[] = [];
  for (let i = 0; i < width; i++) {
    const h = spec.header?.[i];
    own.push(spec.header === null ? `${COLUMN_WORD[spec.locale]} ${i + 1}` : (h ?? ''));
  }
  return [...own, ...verdictHeadersOf(spec)];
}

/** Input cells padded to the header's width, the verdict, then any cells beyond the width. */
function outputCells(row: ResultFileRow, width: number, spec: ResultFileSpec): string[] {
  const own: string[] = [];
  for (let i = 0; i < width; i++) own.push(row.cells[i] ?? '');
  const extra = row.cells.slice(width).map((c) => c ?? '');
  return [...own, ...verdictCells(row, spec), ...extra];
}

export async function writeResultFile(out: NodeJS.WritableStream, spec: ResultFileSpec, rows: AsyncIterable<ResultFileRow>): Promise<void> {
  const width = spec.header?.length ?? spec.columnCount ?? 0;
  if (spec.format === 'xlsx') return writeXlsx(out, spec, width, rows);
  return writeCsv(out, spec, width, rows);
}

async function writeCsv(out: NodeJS.WritableStream, spec: ResultFileSpec, width: number, rows: AsyncIterable<ResultFileRow>): Promise<void> {
  const { delimiter, encoding } = spec.csv ?? { encoding: 'utf-8', delimiter: ',' };
  const header = headerCells(spec, width);
  const needsQuotes = new RegExp(`["\\r\\n${delimiter === '\t' ? '\\t' : delimiter === '|' ? '\\|' : delimiter}]`);
  const field = (value: string) => {
    const safe = neutraliseFormula(value);
    return needsQuotes.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const line = (cells: string[]) => cells.map(field).join(delimiter) + '\r\n';
  const write = async (bytes: Uint8Array) => {
    if (!out.write(bytes)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  await write(byteOrderMark(encoding));
  let piece = line(header);
  for await (const row of rows) {
    piece += line(outputCells(row, width, spec));
    if (piece.length >= CSV_PIECE_CHARS) {
      await write(encodeText(piece, encoding));
      piece = '';
    }
  }
  if (piece.length > 0) await write(encodeText(piece, encoding));
}

async function writeXlsx(out: NodeJS.WritableStream, spec: ResultFileSpec, width: number, rows: AsyncIterable<ResultFileRow>): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out as unknown as import('node:stream').Stream, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(SHEET_NAME[spec.locale]);
  sheet.addRow(headerCells(spec, width)).commit();
  let sinceCheck = 0;
  for await (const row of rows) {
    if (++sinceCheck === BACKPRESSURE_EVERY_ROWS) {
      sinceCheck = 0;
      await zipCaughtUp(sheet, out);
    }
    // Strings stay text cells; the verdict's level is a number so that it sorts as one.
    const cells: Array<string | number | null> = outputCells(row, width, spec).map((c) => (c === '' ? null : c));
    const levelAt = width + 1;
    if (row.result.match.level !== null) cells[levelAt] = row.result.match.level;
    sheet.addRow(cells).commit();
  }
  sheet.commit();
  await workbook.commit();
}
