import ExcelJS from 'exceljs';
import type { CheckResult, Status } from '../../domain/types.ts';
import type { Change } from './verdict-words.ts';
import type { CsvDialect } from './csv-reader.ts';
import { byteOrderMark, encodeText } from './text-encoding.ts';
import { approximateWord, changeLegend, changeWord, matchWords, phoneOutcomeWord, reasonLegend, reasonWords, statusLegend, statusWord } from './verdict-words.ts';
import { matchLabel } from '../../domain/status.ts';

/**
 * Result files (docs/decisions.md §14, docs/files.md "Result files"): the input's own columns, then the
 * verdict in the customer's language and in words: status (Blokeret / Tilladt / Manuel
 * vurdering), match level (a number), match (its label), reason (in words) and the list version
 * as its publication date, and whether the names agreed only approximately (a slip or an initial,
 * docs/matching.md "Names"). Streamed: rows are written as they come (CSV in ~64 KiB pieces,
 * waiting for the stream to drain; xlsx through exceljs's WorkbookWriter, which commits each
 * row), so 1,000,000 rows are never in memory.
 *
 * xlsx is made to be read: a bold, filled, frozen header row with filters, column widths, the
 * status cells coloured, and a second sheet (Forklaring / Legend) with the job's counts and what
 * every column, status, level and reason means.
 *
 * Formula injection (OWASP "CSV injection"): in CSV a cell a spreadsheet would run and that could
 * call something gets a leading `'`; plain numbers and phone numbers ("+45 12 34 56 78") stay as
 * they were (neutraliseFormula). In xlsx every cell is a text cell (exceljs writes a formula only
 * when given a { formula } value), so it stays as it was.
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
   * Jobs with company or phone checks (docs/decisions.md §17) get their outcome in more columns after
   * `list_version`: the company's status, register name and form; the phone lookup's outcome and
   * the name and address the directory gave (empty for unlisted and not found numbers).
   */
  checks?: { companies: boolean; phones: boolean };
  /** For the xlsx legend sheet: what the file holds (absent: the legend has no counts). */
  summary?: ResultFileSummary;
  /**
   * A monitor's re-check (docs/monitors.md "Change reports"): one more column, "Ændring" /
   * "Change", after the verdict: what changed for the contact since the monitor's last check.
   */
  changes?: boolean;
}

export interface ResultFileSummary {
  filename: string | null;
  /** When the check finished (ISO date-time), shown as a date and time in UTC. */
  checkedAt: string | null;
  /** The list version's publication date (YYYY-MM-DD). */
  listPublishedOn: string | null;
  /** The job's counts (all rows), whatever rows this file holds. */
  counts: { rows: number; blocked: number; allowed: number; manual: number };
  /** Which rows this file holds. */
  rows: 'all' | Status;
  /** A change report holds only the rows with a change (any change, or one kind). */
  change?: 'any' | Change;
}

export interface ResultFileRow {
  cells: Array<string | null>;
  result: CheckResult;
  /** The list version as shown: its publication date. */
  list_version: string;
}

export const VERDICT_HEADERS = {
  da: ['Status', 'Matchniveau', 'Match', 'Årsag', 'Listeversion (udgivet)', 'Navn tilnærmet'],
  en: ['Status', 'Match level', 'Match', 'Reason', 'List version (published)', 'Approximate name'],
} as const;
export const CHANGE_HEADER = { da: 'Ændring', en: 'Change' } as const;
export const COMPANY_HEADERS = {
  da: ['Virksomhedsstatus', 'Virksomhedsnavn', 'Virksomhedsform'],
  en: ['Company status', 'Company name', 'Company form'],
} as const;
export const PHONE_HEADERS = {
  da: ['Telefonopslag', 'Navn fra telefonbog', 'Adresse fra telefonbog'],
  en: ['Phone lookup', 'Name in phone directory', 'Address in phone directory'],
} as const;
export const COLUMN_WORD = { da: 'Kolonne', en: 'Column' } as const;
export const SHEET_NAME = { da: 'Resultater', en: 'Results' } as const;
export const LEGEND_NAME = { da: 'Forklaring', en: 'Legend' } as const;
const FORMULA_START = /^[=+\-@\t\r]/;
/**
 * A cell that starts like a formula but holds only a sign, digits, spaces and number or phone
 * punctuation: it can name no function, cell or other program, so it cannot run anything.
 */
const PLAIN_NUMBER = /^[+-]?[\d\s.,()/-]*\d[\d\s.,()/-]*$/;
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

/**
 * A cell a spreadsheet would run as a formula and that could call something, made text with a
 * leading `'` (OWASP). A phone number or a signed number ("+45 12 34 56 78", "-12,5") stays as it
 * was: the customer's own value, and nothing in it can run (docs/files.md "Result files").
 */
export function neutraliseFormula(cell: string): string {
  if (!FORMULA_START.test(cell)) return cell;
  return PLAIN_NUMBER.test(cell) ? cell : `'${cell}`;
}

function verdictCells(row: ResultFileRow, spec: ResultFileSpec): string[] {
  const { result } = row;
  const locale = spec.locale;
  const cells = [
    statusWord(result.status, locale),
    result.match.level === null ? '' : String(result.match.level),
    matchWords(result, locale),
    reasonWords(result.reasons, locale),
    row.list_version,
    // Results stored before the field existed have none: they were never approximate.
    approximateWord(result.match.approximate === true, locale),
  ];
  if (spec.changes) cells.push(changeWord(result.change, locale));
  if (spec.checks?.companies) {
    const company = result.company;
    cells.push(company ? statusWord(company.status, locale) : '', company?.name ?? '', company?.company_form ?? '');
  }
  if (spec.checks?.phones) {
    const lookup = result.phone_lookup;
    cells.push(lookup ? phoneOutcomeWord(lookup.outcome, locale) : '', lookup?.name ?? '', lookup?.address ?? '');
  }
  return cells;
}

/** The appended column names of a result file, in the locale. */
export function verdictHeadersOf(spec: Pick<ResultFileSpec, 'locale' | 'checks' | 'changes'>): string[] {
  return [
    ...VERDICT_HEADERS[spec.locale],
    ...(spec.changes ? [CHANGE_HEADER[spec.locale]] : []),
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
export function outputCells(row: ResultFileRow, width: number, spec: ResultFileSpec): string[] {
  const own: string[] = [];
  for (let i = 0; i < width; i++) own.push(row.cells[i] ?? '');
  const extra = row.cells.slice(width).map((c) => c ?? '');
  return [...own, ...verdictCells(row, spec), ...extra];
}

/**
 * Rows one at a time or in batches (a page of the store at once: one await per page, not per row,
 * docs/architecture.md "Result files"); either way in file order.
 */
export type ResultFileRowSource = AsyncIterable<ResultFileRow | readonly ResultFileRow[]>;

export async function writeResultFile(out: NodeJS.WritableStream, spec: ResultFileSpec, rows: ResultFileRowSource): Promise<void> {
  const width = spec.header?.length ?? spec.columnCount ?? 0;
  if (spec.format === 'xlsx') return writeXlsx(out, spec, width, rows);
  return writeCsv(out, spec, width, rows);
}

async function writeCsv(out: NodeJS.WritableStream, spec: ResultFileSpec, width: number, rows: ResultFileRowSource): Promise<void> {
  const { delimiter, encoding } = spec.csv ?? { encoding: 'utf-8', delimiter: ',' };
  const header = headerCells(spec, width);
  const needsQuotes = new RegExp(`["\\r\\n${delimiter === '\t' ? '\\t' : delimiter === '|' ? '\\|' : delimiter}]`);
  const field = (value: string) => {
    const safe = neutraliseFormula(value);
    return needsQuotes.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const line = (cells: string[]) => cells.map(field).join(delimiter) + '\r\n';
  // The verdict cells of a row follow from its result and list version alone, and rows read from
  // the store share one result object per verdict (uploads/result-file-lines.ts), so each
  // verdict is put in words and quoted once (docs/architecture.md "Result files").
  const verdicts = new WeakMap<CheckResult, { listVersion: string; text: string }>();
  const verdictText = (row: ResultFileRow) => {
    const known = verdicts.get(row.result);
    if (known !== undefined && known.listVersion === row.list_version) return known.text;
    const text = verdictCells(row, spec).map(field).join(delimiter);
    verdicts.set(row.result, { listVersion: row.list_version, text });
    return text;
  };
  // outputCells' cells, each through `field`, joined: the verdict is never empty, so the
  // delimiters fall where the join put them.
  const rowLine = (row: ResultFileRow) => {
    let text = '';
    for (let i = 0; i < width; i++) text += field(row.cells[i] ?? '') + delimiter;
    text += verdictText(row);
    for (let i = width; i < row.cells.length; i++) text += delimiter + field(row.cells[i] ?? '');
    return text + '\r\n';
  };
  const write = async (bytes: Uint8Array) => {
    if (!out.write(bytes)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  await write(byteOrderMark(encoding));
  let piece = line(header);
  for await (const item of rows) {
    for (const row of batchOf(item)) {
      piece += rowLine(row);
      if (piece.length >= CSV_PIECE_CHARS) {
        await write(encodeText(piece, encoding));
        piece = '';
      }
    }
  }
  if (piece.length > 0) await write(encodeText(piece, encoding));
}

function batchOf(item: ResultFileRow | readonly ResultFileRow[]): readonly ResultFileRow[] {
  return Array.isArray(item) ? item : [item as ResultFileRow];
}

/** Fills of the status cells: the colours people read a list by. ARGB. */
const STATUS_FILL: Record<Status, string> = { blocked: 'FFF4C7C3', manual: 'FFFCE8B2', allowed: 'FFD9EAD3' };
const HEADER_FILL = 'FFDCE3EC';
const STATUS_OF_WORD = new Map<string, Status>(
  (['blocked', 'allowed', 'manual'] as const).flatMap((s) => [[statusWord(s, 'da'), s], [statusWord(s, 'en'), s]] as Array<[string, Status]>),
);

async function writeXlsx(out: NodeJS.WritableStream, spec: ResultFileSpec, width: number, rows: ResultFileRowSource): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out as unknown as import('node:stream').Stream, useSharedStrings: false, useStyles: true });
  const header = headerCells(spec, width);
  const sheet = workbook.addWorksheet(SHEET_NAME[spec.locale], { views: [{ state: 'frozen', ySplit: 1 }] });
  // Widths from the header (the rows stream by and are not measured): wide enough to read it.
  sheet.columns = header.map((h, i) => ({ width: Math.min(45, Math.max(12, h.length + 4, i === width + 2 || i === width + 3 ? 30 : 0)) }));
  const headerRow = sheet.addRow(header);
  headerRow.font = { bold: true };
  headerRow.eachCell((cell) => {
    cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: HEADER_FILL } };
    cell.border = { bottom: { style: 'thin' } };
  });
  headerRow.commit();
  const statusColumn = width + 1;
  let written = 1;
  let sinceCheck = 0;
  for await (const item of rows) for (const row of batchOf(item)) {
    if (++sinceCheck === BACKPRESSURE_EVERY_ROWS) {
      sinceCheck = 0;
      await zipCaughtUp(sheet, out);
    }
    // Strings stay text cells; the verdict's level is a number so that it sorts as one.
    const cells: Array<string | number | null> = outputCells(row, width, spec).map((c) => (c === '' ? null : c));
    const levelAt = width + 1;
    if (row.result.match.level !== null) cells[levelAt] = row.result.match.level;
    const added = sheet.addRow(cells);
    const status = STATUS_OF_WORD.get(String(cells[width] ?? ''));
    if (status) added.getCell(statusColumn).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: STATUS_FILL[status] } };
    added.commit();
    written += 1;
  }
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: written, column: header.length } };
  sheet.commit();
  writeLegend(workbook, spec);
  await workbook.commit();
}

const LEGEND_TEXT = {
  da: {
    title: 'Resultat af tjek mod Robinsonlisten', file: 'Fil', checked: 'Tjekket', list: 'Listeversion (udgivet)',
    rows: 'Rækker i jobbet', shown: 'Rækker i denne fil', all: 'Alle', columns: 'Kolonner', statuses: 'Status', levels: 'Matchniveau',
    reasons: 'Årsager', level: (n: number) => `Niveau ${n}`,
    columnMeanings: [
      'Blokeret, Tilladt eller Manuel vurdering (se nedenfor).',
      'Hvor tæt personen matcher listen: 0 (intet match) til 5 (samme navn og adresse); tom når adressen ikke kan læses eller navnet mangler.',
      'Matchniveauet i ord.',
      'Hvorfor rækken fik sin status.',
      'Datoen listen, der blev tjekket imod, blev udgivet.',
      'Ja, når navnet kun stemte med en stavefejl eller et forbogstav (personen er behandlet som fundet).',
    ],
    changesShown: 'Ændringer i denne fil', anyChange: 'Kun rækker med en ændring',
    changeMeaning: 'Hvad der er ændret for kontakten siden overvågningens sidste tjek:',
    colour: 'Statuscellerne er farvet: rød blokeret, gul manuel vurdering, grøn tilladt. Brug filtrene i overskriftsrækken til at vise f.eks. kun blokerede.',
  },
  en: {
    title: 'Result of the check against the Robinson list', file: 'File', checked: 'Checked', list: 'List version (published)',
    rows: 'Rows in the job', shown: 'Rows in this file', all: 'All', columns: 'Columns', statuses: 'Status', levels: 'Match level',
    reasons: 'Reasons', level: (n: number) => `Level ${n}`,
    columnMeanings: [
      'Blocked, Allowed or Manual review (see below).',
      'How closely the person matches the list: 0 (no match) to 5 (same name and address); empty when the address cannot be read or the name is missing.',
      'The match level in words.',
      'Why the row got its status.',
      'The date the list checked against was published.',
      'Yes when the name agreed only through a slip or an initial (the person is treated as found).',
    ],
    changesShown: 'Changes in this file', anyChange: 'Only rows with a change',
    changeMeaning: "What changed for the contact since the monitor's last check:",
    colour: 'The status cells are coloured: red blocked, yellow manual review, green allowed. Use the filters in the header row to show e.g. blocked only.',
  },
} as const;

/** The second sheet: what the file holds and what every verdict column, status, level and reason means. */
function writeLegend(workbook: ExcelJS.stream.xlsx.WorkbookWriter, spec: ResultFileSpec): void {
  const t = LEGEND_TEXT[spec.locale];
  const sheet = workbook.addWorksheet(LEGEND_NAME[spec.locale]);
  sheet.columns = [{ width: 34 }, { width: 100 }];
  const add = (cells: Array<string | number | null>, bold = false) => {
    const row = sheet.addRow(cells);
    if (bold) row.font = { bold: true };
    row.commit();
  };
  add([t.title], true);
  const summary = spec.summary;
  if (summary) {
    if (summary.filename) add([t.file, summary.filename]);
    if (summary.checkedAt) add([t.checked, `${summary.checkedAt.slice(0, 16).replace('T', ' ')} UTC`]);
    if (summary.listPublishedOn) add([t.list, summary.listPublishedOn]);
    add([t.rows, summary.counts.rows]);
    add([statusWord('blocked', spec.locale), summary.counts.blocked]);
    add([statusWord('allowed', spec.locale), summary.counts.allowed]);
    add([statusWord('manual', spec.locale), summary.counts.manual]);
    add([t.shown, summary.rows === 'all' ? t.all : statusWord(summary.rows, spec.locale)]);
    if (summary.change) add([t.changesShown, summary.change === 'any' ? t.anyChange : changeWord(summary.change, spec.locale)]);
  }
  add([]);
  add([t.columns], true);
  VERDICT_HEADERS[spec.locale].forEach((name, i) => add([name, t.columnMeanings[i]]));
  if (spec.changes) {
    add([CHANGE_HEADER[spec.locale], t.changeMeaning]);
    for (const [word, meaning] of changeLegend(spec.locale)) add([word, meaning]);
  }
  add([]);
  add([t.statuses], true);
  for (const [word, meaning] of statusLegend(spec.locale)) add([word, meaning]);
  add([null, t.colour]);
  add([]);
  add([t.levels], true);
  const codes = ['none', 'household', 'surname', 'given_name', 'name_building', 'name_address'] as const;
  codes.forEach((code, level) => add([t.level(level), matchLabel(code, spec.locale)]));
  add([]);
  add([t.reasons], true);
  for (const reason of reasonLegend(spec.locale)) add([reason]);
  sheet.commit();
}
