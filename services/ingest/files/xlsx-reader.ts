import ExcelJS from 'exceljs';
import { cellText } from './cell-text.ts';
import { readXlsxSharedStrings } from './xlsx-shared-strings.ts';
import { FileRefusedError } from './refusal.ts';
import { SpoolFullError, spoolFullIfDiskFull } from '../jobs/errors.ts';
import { inXlsxRead, removeXlsxTempCopies, type XlsxTempCopies } from './xlsx-temp.ts';

/**
 * Rows of the first worksheet that holds data, with exceljs's streaming WorkbookReader: sheet XML
 * parsed as a stream, rows never all in memory. The shared strings are read first, from the zip
 * by offset and kept as compact bytes (xlsx-shared-strings.ts: exceljs's stream of them sometimes
 * comes empty under load). The zip
 * was checked by inspectXlsxZip first (bombs, macros, encryption, CRCs), so an error from exceljs
 * here means XML it cannot read: refused as corrupt; but no room for its sheet copy is
 * SpoolFullError (the server's condition). Wholly empty rows are no rows.
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
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(path, {
    worksheets: 'emit',
    // Neither 'cache' nor 'emit': exceljs skips the table (read by xlsx-shared-strings.ts) and
    // cells say { sharedString: index }. exceljs then parses every sheet after the whole zip, from
    // a temp copy it deletes once the sheet has been iterated past.
    sharedStrings: 'ignore',
    styles: 'cache', // dates come as Date, not as day numbers
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const strings = await readXlsxSharedStrings(path, maxSharedStringBytes);
  const textOf = (value: unknown): string | null => {
    if (value !== null && typeof value === 'object' && 'sharedString' in value) {
      return emptyToNull(strings.get((value as { sharedString: number }).sharedString));
    }
    return cellText(value);
  };
  let found = false;
  let batch: Array<Array<string | null>> = [];
  const parsed = reader.parse() as AsyncIterator<ParseEvent>;
  // Every step runs as this read's, so the sheet copies it makes are known (xlsx-temp.ts).
  const copies: XlsxTempCopies = new Set();
  const events = { next: () => inXlsxRead(copies, () => parsed.next()) };
  let finished = false;
  try {
    for (let next = await events.next(); !next.done; next = await events.next()) {
      const event = next.value;
      if (event.eventType !== 'worksheet') continue;
      if (found) {
        await passOver(event.value);
        continue;
      }
      for await (const row of event.value as AsyncIterable<ExcelJS.Row>) {
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
    }
    finished = true;
  } catch (error) {
    if (error instanceof FileRefusedError) throw error;
    // exceljs writes its sheet copy into the spool: no room there is ours, not a damaged file.
    const full = spoolFullIfDiskFull(error);
    if (full instanceof SpoolFullError) throw full;
    throw new FileRefusedError('file_corrupt', 'workbook XML unreadable', undefined, { cause: error });
  } finally {
    // exceljs copies sheets into temp files and deletes each only when its iteration moves on;
    // stopped early (a refusal, a consumer that breaks off), that copy of personal data would
    // stay until the process exits. Moving on to the end deletes them.
    if (!finished) {
      try {
        for (let next = await events.next(); !next.done; next = await events.next()) {
          if (next.value.eventType === 'worksheet') await passOver(next.value.value);
        }
      } catch {
        // the file is being refused anyway; the temp copies are all we came for
      }
    }
    // A read that failed (exceljs's own error, a full spool) leaves the copy it was at.
    await removeXlsxTempCopies(copies);
  }
  if (batch.length > 0) yield batch;
}

/**
 * A sheet whose rows are not wanted (the data was in an earlier one, or the read is ending).
 * exceljs opens the sheet's temp copy as a stream when it yields the sheet and deletes the file as
 * soon as it is asked for the next one; a stream nobody reads may then fail to open the deleted
 * file, an 'error' with no listener: an uncaught exception that stops the process (3 reads in 600
 * of a two-sheet file beside two busy cores). Reading into it and stopping closes the stream first.
 */
async function passOver(sheet: unknown): Promise<void> {
  try {
    for await (const _ of sheet as AsyncIterable<unknown>) break;
  } catch {
    // a sheet that is not read: its faults are not the file's
  }
}

/** What WorkbookReader.parse() yields: worksheets (and hyperlinks, ignored here). */
type ParseEvent = { eventType?: string; value?: unknown };

function emptyToNull(text: string | null): string | null {
  return text === '' ? null : text;
}
