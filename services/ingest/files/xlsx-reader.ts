import ExcelJS from 'exceljs';
import { cellText } from './cell-text.ts';
import { FileRefusedError } from './refusal.ts';

/**
 * Rows of the first worksheet that holds data, with exceljs's streaming WorkbookReader (the sheet
 * XML is parsed as it is inflated; rows are never all in memory). The zip was checked by
 * inspectXlsxZip first (bombs, macros, encryption, CRCs), so an error from exceljs here means XML
 * it cannot read: refused as corrupt. Wholly empty rows are no rows.
 */
const BATCH = 1000;

export async function* readXlsxBatches(path: string): AsyncGenerator<Array<Array<string | null>>> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(path, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache', // dates come as Date, not as day numbers
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let found = false;
  let batch: Array<Array<string | null>> = [];
  const sheets = reader[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (let next = await sheets.next(); !next.done; next = await sheets.next()) {
      // Sheets after the one with data are passed over unread (see the finally below).
      if (found) continue;
      for await (const row of next.value as AsyncIterable<ExcelJS.Row>) {
        const values = row.values as unknown[];
        const cells: Array<string | null> = [];
        let blank = true;
        for (let i = 1; i < values.length; i++) {
          const text = cellText(values[i]);
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
    throw new FileRefusedError('file_corrupt', 'workbook XML unreadable');
  } finally {
    // exceljs copies a sheet that comes before the shared strings into a temp file and deletes it
    // only when its iteration moves on; stopped early (a refusal, a consumer that breaks off),
    // that copy of personal data would stay until the process exits. Moving on deletes it.
    if (!finished) {
      try {
        while (!(await sheets.next()).done);
      } catch {
        // the file is being refused anyway; the temp copy is all we came for
      }
    }
  }
  if (batch.length > 0) yield batch;
}
