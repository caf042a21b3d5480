import ExcelJS from 'exceljs';
import { cellText } from './cell-text.ts';
import { FileRefusedError } from './refusal.ts';

/**
 * Rows of the first worksheet that holds data, with exceljs's streaming WorkbookReader (the sheet
 * XML is parsed as it is inflated; rows are never all in memory). The zip was checked by
 * inspectXlsxZip first (bombs, macros, encryption, CRCs), so an error from exceljs here means XML
 * it cannot read: refused as corrupt. Wholly empty rows are no rows.
 */
export async function* readXlsxRows(path: string): AsyncGenerator<Array<string | null>> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(path, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache', // dates come as Date, not as day numbers
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let found = false;
  try {
    for await (const worksheet of reader) {
      for await (const row of worksheet as AsyncIterable<ExcelJS.Row>) {
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
        yield cells;
      }
      if (found) return;
    }
  } catch (error) {
    if (error instanceof FileRefusedError) throw error;
    throw new FileRefusedError('file_corrupt', 'workbook XML unreadable');
  }
}
