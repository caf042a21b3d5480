import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { cellText } from './cell-text.ts';
import { readXlsxSharedStrings } from './xlsx-shared-strings.ts';
import { FileRefusedError } from './refusal.ts';
import { openZipEntryText } from './zip-entry-text.ts';
import { readZipEntries, type ZipEntry } from './zip-inspect.ts';

/**
 * Rows of the first worksheet (in the workbook's tab order) that holds data, sheet XML parsed as a
 * stream, rows never all in memory (docs/files.md "Reading an xlsx").
 *
 * Every part of the workbook is read from the file at the offset its central-directory record
 * gives, never through exceljs's own streaming unzip: under CPU load that stream now and then
 * handed over a part with none of its data (the shared strings, then the workbook part: a good
 * file refused as `file_no_data` or `file_corrupt`, the CI failures of uploads.embedded and
 * one-check.embedded), and it copied each sheet to a temp file before parsing it. exceljs still
 * parses the XML: its workbook, relationship and style parsers and its worksheet reader (cells,
 * dates by the style's number format), fed our streams. The shared strings are ours
 * (xlsx-shared-strings.ts, kept compact).
 *
 * The zip was checked by inspectXlsxZip first (bombs, macros, encryption, CRCs), so an error here
 * means XML exceljs cannot read: refused as corrupt. Wholly empty rows are no rows.
 */
const BATCH = 1000;
/**
 * The shared-strings table is held whole while the sheet is read, and the zip caps nothing of it
 * but its size unpacked (1 GiB): a 2 MB file of 900 MB of strings no cell uses took the API from
 * 0.9 to 1.8 GB. 1,000,000 rows of distinct names and addresses need about 100 MB; beyond this the
 * file is refused as too large unpacked (docs/files.md "Limits").
 */
export const DEFAULT_MAX_SHARED_STRING_BYTES = 160 * 1024 * 1024;

export async function* readXlsxBatches(path: string, maxSharedStringBytes = DEFAULT_MAX_SHARED_STRING_BYTES): AsyncGenerator<Array<Array<string | null>>> {
  const entries = await readZipEntries(path);
  let workbook: WorkbookParts;
  try {
    workbook = await readWorkbookParts(path, entries);
  } catch (error) {
    throw corrupt(error, 'workbook XML unreadable');
  }
  const strings = await readXlsxSharedStrings(path, entries, maxSharedStringBytes);
  const textOf = (value: unknown): string | null => {
    if (value !== null && typeof value === 'object' && 'sharedString' in value) {
      return emptyToNull(strings.get((value as { sharedString: number }).sharedString));
    }
    return cellText(value);
  };
  let batch: Array<Array<string | null>> = [];
  for (const [index, sheet] of sheetsInTabOrder(entries, workbook).entries()) {
    const xml = openZipEntryText(path, sheet);
    const reader = new WorksheetReader({ workbook, id: index + 1, iterator: xml, options: SHEET_OPTIONS });
    let found = false;
    try {
      for await (const row of reader) {
        const values = row.values as unknown[];
        const cells: Array<string | null> = [];
        let blank = true;
        for (let i = 1; i < values.length; i++) {
          const text = textOf(values[i]);
          cells.push(text);
          if (text !== null && text.trim() !== '') blank = false;
        }
        if (blank) continue;
        found = true;
        batch.push(cells);
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
    } catch (error) {
      throw corrupt(error, 'worksheet XML unreadable');
    } finally {
      xml.destroy();
    }
    if (found) break;
  }
  if (batch.length > 0) yield batch;
}

/** What exceljs's WorksheetReader reads of its workbook: dates by the styles' number formats and the 1904 flag. */
interface WorkbookParts {
  model: { sheets?: Array<{ rId?: string }> } | undefined;
  properties: unknown;
  styles: unknown;
  rels: Array<{ Id?: string; Target?: string }>;
  sharedStrings: undefined; // cells say { sharedString: index }, resolved by textOf
}

async function readWorkbookParts(path: string, entries: ZipEntry[]): Promise<WorkbookParts> {
  const part = (name: string) => entries.find((e) => e.name === name);
  const parse = async <T>(entry: ZipEntry, xform: { parseStream(stream: Readable): Promise<T> }): Promise<T> => {
    const stream = openZipEntryText(path, entry);
    try {
      return await xform.parseStream(stream);
    } finally {
      stream.destroy();
    }
  };
  const book = new WorkbookXform();
  const bookEntry = part('xl/workbook.xml');
  if (bookEntry) await parse(bookEntry, book);
  const relsEntry = part('xl/_rels/workbook.xml.rels');
  const rels = relsEntry ? await parse(relsEntry, new RelationshipsXform()) : [];
  const styles = new StyleManager();
  const stylesEntry = part('xl/styles.xml');
  if (stylesEntry) await parse(stylesEntry, styles);
  else styles.init();
  return { model: book.model, properties: book.map.workbookPr, styles, rels: rels ?? [], sharedStrings: undefined };
}

const SHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

/** The sheets as the workbook lists them (its tabs), then any sheet part it does not list, in zip order. */
function sheetsInTabOrder(entries: ZipEntry[], workbook: WorkbookParts): ZipEntry[] {
  const byName = new Map(entries.filter((e) => SHEET.test(e.name)).map((e) => [e.name, e]));
  const ordered: ZipEntry[] = [];
  for (const sheet of workbook.model?.sheets ?? []) {
    const target = workbook.rels.find((rel) => rel.Id === sheet.rId)?.Target;
    if (!target) continue;
    const entry = byName.get(target.startsWith('/') ? target.slice(1) : `xl/${target}`);
    if (entry && !ordered.includes(entry)) ordered.push(entry);
  }
  for (const entry of byName.values()) if (!ordered.includes(entry)) ordered.push(entry);
  return ordered;
}

function corrupt(error: unknown, detail: string): Error {
  if (error instanceof FileRefusedError) return error;
  return new FileRefusedError('file_corrupt', detail, undefined, { cause: error });
}

function emptyToNull(text: string | null): string | null {
  return text === '' ? null : text;
}

// exceljs's XML parsers for the parts of a workbook, loaded from the exceljs we depend on (they
// are not in its public API; its own streaming reader uses them the same way).
const fromExceljs = createRequire(createRequire(import.meta.url).resolve('exceljs'));
const WorkbookXform = fromExceljs('./lib/xlsx/xform/book/workbook-xform') as new () => {
  parseStream(stream: Readable): Promise<unknown>;
  model: WorkbookParts['model'];
  map: { workbookPr: unknown };
};
const RelationshipsXform = fromExceljs('./lib/xlsx/xform/core/relationships-xform') as new () => {
  parseStream(stream: Readable): Promise<WorkbookParts['rels']>;
};
const StyleManager = fromExceljs('./lib/xlsx/xform/style/styles-xform') as new () => {
  parseStream(stream: Readable): Promise<unknown>;
  init(): void;
};
const WorksheetReader = fromExceljs('./lib/stream/xlsx/worksheet-reader') as new (options: {
  workbook: WorkbookParts;
  id: number;
  iterator: Readable;
  options: typeof SHEET_OPTIONS;
}) => AsyncIterable<ExcelJS.Row>;
/** Rows emitted; hyperlinks not wanted. */
const SHEET_OPTIONS = { worksheets: 'emit', hyperlinks: 'ignore' } as const;
