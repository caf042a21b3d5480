/**
 * The xlsx reader (services/ingest/files/xlsx-reader.ts) reads every part from the zip by offset
 * (docs/files.md "Reading an xlsx"): the first sheet in tab order that holds data, inline strings
 * as exceljs's streaming writer writes them (no shared-strings table) with letters split between
 * inflate chunks, dates by their style. That nothing is copied to disk: test/integration/api/spool-full.test.ts.
 */
import { rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readXlsxBatches } from '../../../services/ingest/files/xlsx-reader.ts';
import { scratchDir } from '../../support/files/spreadsheets.ts';

interface Zip {
  file(name: string): { async(type: 'string'): Promise<string> } | null;
  file(name: string, content: string): Zip;
  remove(name: string): Zip;
  generateAsync(options: { type: 'nodebuffer'; compression: 'DEFLATE' }): Promise<Buffer>;
}
// The zip library exceljs writes with.
const JSZip = createRequire(createRequire(import.meta.url).resolve('exceljs'))('jszip') as { loadAsync(bytes: Buffer): Promise<Zip> };

let dir: string;

beforeAll(async () => {
  dir = await scratchDir('xlsx-reader');
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function readAll(path: string): Promise<Array<Array<string | null>>> {
  const rows: Array<Array<string | null>> = [];
  for await (const batch of readXlsxBatches(path)) rows.push(...batch);
  return rows;
}

describe('reading an xlsx from the zip by offset', () => {
  it('the first tab that holds data, not the first sheet part: a moved tab is read where the workbook shows it', async () => {
    const workbook = new ExcelJS.Workbook();
    const other = workbook.addWorksheet('Noter'); // sheet1.xml
    other.addRow(['Ikke kunder']);
    const data = workbook.addWorksheet('Kunder'); // sheet2.xml
    data.addRow(['Navn', 'Dato']);
    data.addRow(['Åse Østergård', new Date(Date.UTC(2026, 10, 27))]);
    (data as unknown as { orderNo: number }).orderNo = -1; // the tab moved to the front: workbook.xml lists it first
    // exceljs also writes the parts in tab order; put sheet2.xml last in the zip, as a workbook
    // whose tabs were moved after its sheets were numbered has it.
    const zip = await JSZip.loadAsync(Buffer.from(await workbook.xlsx.writeBuffer()));
    const moved = await zip.file('xl/worksheets/sheet2.xml')!.async('string');
    zip.remove('xl/worksheets/sheet2.xml');
    zip.file('xl/worksheets/sheet2.xml', moved);
    const path = join(dir, 'moved-tab.xlsx');
    await writeFile(path, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
    expect(await readAll(path)).toEqual([['Navn', 'Dato'], ['Åse Østergård', '2026-11-27']]);
  });

  it('inline strings (no shared-strings table) far beyond one inflate chunk keep every letter', async () => {
    const path = join(dir, 'inline.xlsx');
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false });
    const sheet = writer.addWorksheet('Ark1');
    const rows = [['Navn', 'Adresse'], ...Array.from({ length: 20_000 }, (_, i) => [`Æblegård Øster ${i} å`, `Åbrinken ${i}, 9000 Aalborg`])];
    for (const row of rows) sheet.addRow(row).commit();
    sheet.commit();
    await writer.commit();
    expect(await readAll(path)).toEqual(rows);
  });
});
