/**
 * Every refusal of docs/files.md on a real malformed file: made by LibreOffice, exceljs, zip(1),
 * officecrypto-tool, or a real file damaged the way transfers damage files (cut short, bytes
 * flipped). Each must give its own FileRefusedError code and nothing else.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as XLSX from '@e965/xlsx';
import ExcelJS from 'exceljs';
import officeCrypto from 'officecrypto-tool';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FILE_REFUSAL_CODES,
  type FileRefusalCode,
  FileRefusedError,
  fileRefusalMessage,
  openTable,
  type OpenTableOptions,
} from '../../../services/ingest/files/index.ts';
import { makeSpreadsheets, type Rows, saveXlsWithPassword, scratchDir } from '../../support/files/spreadsheets.ts';

const run = promisify(execFile);

const ROWS: Rows = [
  ['Navn', 'Adresse', 'Postnr.'],
  ['Søren Ærø', 'Åvej 1', '0800'],
  ['Anne Berg', 'Gade 2', '2100'],
  ['Jens Hansen', 'Vej 3', '8000'],
];

let dir: string;
const f: Record<string, string> = {};
const at = (name: string) => path.join(dir, name);

/** Opens and reads the whole table; the code it was refused with. */
async function refusal(file: string, options: OpenTableOptions = {}): Promise<FileRefusalCode> {
  try {
    const table = await openTable(file, options);
    for await (const _ of table.rows());
  } catch (error) {
    if (error instanceof FileRefusedError) return error.code;
    throw error;
  }
  throw new Error(`${path.basename(file)} was not refused`);
}

/** Re-zips an unpacked workbook with zip(1), after `change` edited its folder. */
async function rezip(source: string, target: string, change: (folder: string) => Promise<void>): Promise<string> {
  const folder = at(`unpacked-${path.basename(target)}`);
  await mkdir(folder, { recursive: true });
  await run('unzip', ['-q', '-o', source, '-d', folder]);
  await change(folder);
  await run('zip', ['-q', '-r', '-X', target, '.'], { cwd: folder });
  return target;
}

beforeAll(async () => {
  dir = await scratchDir('refusals');
  const many: Rows = [ROWS[0]];
  for (let i = 0; i < 20_000; i++) many.push([`Person ${i} Hansen`, `Vej ${i}`, String(1000 + (i % 8000))]);
  [f.xlsx, f.xls, f.xlsm, f.emptyXlsx, f.emptyXls, f.manyXls] = await makeSpreadsheets(dir, [
    { name: 'people.xlsx', rows: ROWS, via: 'libreoffice' },
    { name: 'people.xls', rows: ROWS, via: 'libreoffice' },
    { name: 'people.xlsm', rows: ROWS, via: 'libreoffice' },
    { name: 'empty.xlsx', rows: [], via: 'libreoffice' },
    { name: 'empty.xls', rows: [], via: 'libreoffice' },
    { name: 'many.xls', rows: many, via: 'libreoffice' },
  ]);
  // exceljs: a workbook of two sheets, both empty.
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('Ark1');
  workbook.addWorksheet('Ark2');
  f.emptyExceljs = at('empty-exceljs.xlsx');
  await workbook.xlsx.writeFile(f.emptyExceljs);
  f.protectedXls = at('protected.xls');
  await saveXlsWithPassword(f.xlsx, f.protectedXls, 'hemmelig');
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('refused files', () => {
  it('empty: a file of 0 bytes, whatever its name', async () => {
    await writeFile(at('zero.xlsx'), '');
    expect(await refusal(at('zero.xlsx'), { filename: 'kunder.xlsx' })).toBe('file_empty');
  });

  it('empty sheets: LibreOffice xlsx and xls of an empty sheet, exceljs with two empty sheets', async () => {
    expect(await refusal(f.emptyXlsx, { filename: 'tom.xlsx' })).toBe('file_no_data');
    expect(await refusal(f.emptyXls, { filename: 'tom.xls' })).toBe('file_no_data');
    expect(await refusal(f.emptyExceljs)).toBe('file_no_data');
  });

  it('truncated: an xlsx and an xls cut short in transfer', async () => {
    for (const [source, name] of [[f.xlsx, 'cut.xlsx'], [f.xls, 'cut.xls']] as const) {
      const bytes = await readFile(source);
      await writeFile(at(name), bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      expect(await refusal(at(name), { filename: name })).toBe('file_corrupt');
    }
  });

  it('corrupt: an xlsx with bytes flipped inside its compressed sheet (CRC-32 mismatch)', async () => {
    const bytes = Buffer.from(await readFile(f.xlsx));
    const sheet = bytes.indexOf('xl/worksheets/sheet1.xml'); // the local header's name; data follows
    for (let i = sheet + 60; i < sheet + 80; i++) bytes[i] ^= 0x5a;
    await writeFile(at('flipped.xlsx'), bytes);
    expect(await refusal(at('flipped.xlsx'))).toBe('file_corrupt');
  });

  it('unreadable sheet XML: file_corrupt, and the reader error behind it kept for the log as its name only', async () => {
    // The zip is whole (zip(1) writes correct CRCs); the sheet's XML stops inside a cell that
    // holds a name, so only the XML parser can refuse it, and its message would quote the cell.
    const file = await rezip(f.xlsx, at('broken-xml.xlsx'), async (folder) => {
      const sheet = path.join(folder, 'xl/worksheets/sheet1.xml');
      const xml = await readFile(sheet, 'utf8');
      await writeFile(sheet, `${xml.slice(0, xml.indexOf('<sheetData>'))}<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Søren Ærø</t></is></c><c r="B1" t="inlineStr"><is><t>Åvej 1</is></row></sheetData></worksheet>`);
    });
    let refused: unknown;
    try {
      for await (const _ of (await openTable(file)).rows());
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(FileRefusedError);
    const error = refused as FileRefusedError;
    expect(error.code).toBe('file_corrupt');
    expect(error.underlying).toEqual({ name: expect.stringMatching(/Error$/) });
    expect(JSON.stringify(error.underlying) + error.message).not.toMatch(/Søren|Åvej/);
  });

  it('shared-strings bomb: strings no cell uses, under the zip cap, are refused past the table cap; a real file passes', async () => {
    // exceljs writes the workbook: 20 used rows, then 4,000 distinct 200-character strings no
    // cell shows (written into cells of a second sheet exceljs keeps in the one shared table).
    const workbook = new ExcelJS.Workbook();
    const used = workbook.addWorksheet('Kunder');
    used.addRow(['Navn', 'Adresse']);
    for (let i = 0; i < 20; i++) used.addRow([`Åse Jensen ${i}`, `Østergade ${i + 1}, 8000 Aarhus C`]);
    const filler = workbook.addWorksheet('Fyld');
    for (let i = 0; i < 4000; i++) filler.addRow([`${i}`.padStart(8, '0') + 'x'.repeat(192)]);
    const file = at('strings-bomb.xlsx');
    await workbook.xlsx.writeFile(file);
    // ~800 KB of shared strings: over a 256 KiB table cap, far under the zip cap.
    expect(await refusal(file, { maxSharedStringBytes: 256 * 1024 })).toBe('file_too_large_inflated');
    const table = await openTable(file, { maxSharedStringBytes: 2 * 1024 * 1024 });
    let rows = 0;
    for await (const _ of table.rows()) rows += 1;
    expect(rows).toBe(21);
  });

  it('zip bomb: a sheet that unpacks beyond the cap, declared honestly or with lying size fields', async () => {
    const bomb = await rezip(f.xlsx, at('bomb.xlsx'), async (folder) => {
      const sheetFile = path.join(folder, 'xl/worksheets/sheet1.xml');
      const sheet = await readFile(sheetFile, 'utf8');
      // 32 MB of whitespace inside the XML: valid, and it deflates to about 32 KB.
      await writeFile(sheetFile, sheet.replace('<sheetData>', `<sheetData>${' '.repeat(32 * 1024 * 1024)}`));
    });
    const cap = { maxInflatedBytes: 8 * 1024 * 1024 };
    expect((await readFile(bomb)).length).toBeLessThan(200_000);
    expect(await refusal(bomb, cap)).toBe('file_too_large_inflated');
    // The same bomb with its size fields (central directory) set to 1,000 bytes: the real count catches it.
    const bytes = Buffer.from(await readFile(bomb));
    for (let p = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); p !== -1; p = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), p + 4)) {
      if (bytes.toString('utf8', p + 46, p + 46 + bytes.readUInt16LE(p + 28)) === 'xl/worksheets/sheet1.xml') bytes.writeUInt32LE(1000, p + 24);
    }
    await writeFile(at('lying-bomb.xlsx'), bytes);
    expect(await refusal(at('lying-bomb.xlsx'), cap)).toBe('file_too_large_inflated');
  });

  it('encrypted: a password-protected xlsx (ECMA-376 agile, as Excel writes it) and an xls saved with a password by LibreOffice', async () => {
    await writeFile(at('encrypted.xlsx'), officeCrypto.encrypt(await readFile(f.xlsx), { password: 'hemmelig' }));
    expect(await refusal(at('encrypted.xlsx'), { filename: 'kunder.xlsx' })).toBe('file_encrypted');
    expect(await refusal(f.protectedXls, { filename: 'kunder.xls' })).toBe('file_encrypted');
  });

  it('macro-enabled: LibreOffice xlsm, an xlsx carrying vbaProject.bin, an xls with a VBA project storage', async () => {
    expect(await refusal(f.xlsm, { filename: 'kunder.xlsm' })).toBe('file_macro_enabled');
    const withVba = await rezip(f.xlsx, at('vba.xlsx'), async (folder) => {
      await writeFile(path.join(folder, 'xl/vbaProject.bin'), Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
    });
    expect(await refusal(withVba, { filename: 'kunder.xlsx' })).toBe('file_macro_enabled');
    // An Excel 97 workbook with macros keeps them in a _VBA_PROJECT_CUR storage beside Workbook.
    const cfb = XLSX.CFB.read(await readFile(f.xls), { type: 'buffer' });
    XLSX.CFB.utils.cfb_add(cfb, '_VBA_PROJECT_CUR/VBA/dir', Buffer.from('Attribute VB_Name = "Module1"'));
    await writeFile(at('macro.xls'), XLSX.CFB.write(cfb, { type: 'buffer' }) as Buffer);
    expect(await refusal(at('macro.xls'), { filename: 'kunder.xls' })).toBe('file_macro_enabled');
  });

  it('bytes not the format the name claims', async () => {
    expect(await refusal(f.xlsx, { filename: 'kunder.csv' })).toBe('file_format_mismatch');
    expect(await refusal(f.xlsx, { filename: 'kunder.xls' })).toBe('file_format_mismatch');
    expect(await refusal(f.xls, { filename: 'kunder.xlsx' })).toBe('file_format_mismatch');
    // A zip that is no workbook (zip(1) of a text file), named .xlsx.
    await writeFile(at('notes.txt'), 'Navn;Adresse\r\n');
    await run('zip', ['-q', '-j', at('notes.zip'), at('notes.txt')]);
    await copyFile(at('notes.zip'), at('notes.xlsx'));
    expect(await refusal(at('notes.xlsx'), { filename: 'notes.xlsx' })).toBe('file_format_mismatch');
  });

  it('more than 1,000,000 data rows: a CSV of 1,000,001 is refused, one of 1,000,000 is read', async () => {
    const line = 'Jens Hansen;Vej 1;8000\r\n';
    const body = Buffer.from(line.repeat(1_000_000));
    await writeFile(at('million.csv'), Buffer.concat([Buffer.from('Navn;Adresse;Postnr.\r\n'), body]));
    await writeFile(at('million-and-one.csv'), Buffer.concat([Buffer.from('Navn;Adresse;Postnr.\r\n'), body, Buffer.from(line)]));
    expect(await refusal(at('million-and-one.csv'))).toBe('file_too_many_rows');
    let rows = 0;
    for await (const _ of (await openTable(at('million.csv'))).rows()) rows++;
    expect(rows).toBe(1_000_001);
  }, 180_000);

  it('a row limit holds for spreadsheets too (a LibreOffice xlsx and xls of 3 data rows, limit 2)', async () => {
    expect(await refusal(f.xlsx, { maxDataRows: 2 })).toBe('file_too_many_rows');
    expect(await refusal(f.xls, { maxDataRows: 2 })).toBe('file_too_many_rows');
  });

  it('the xls worker stops at its time and memory limits', async () => {
    expect(await refusal(f.xls, { xlsLimits: { timeoutMs: 1, maxMemoryMb: 512 } })).toBe('file_parser_limit');
    // 20,000 rows need more than 16 MB of heap in SheetJS; the default 512 MB reads them.
    expect(await refusal(f.manyXls, { xlsLimits: { timeoutMs: 60_000, maxMemoryMb: 16 } })).toBe('file_parser_limit');
    let rows = 0;
    for await (const _ of (await openTable(f.manyXls)).rows()) rows++;
    expect(rows).toBe(20_001);
  }, 120_000);
});

describe('refusal messages', () => {
  it('has da and en text for every code, different and free of file content', () => {
    for (const code of FILE_REFUSAL_CODES) {
      const da = fileRefusalMessage(code, 'da');
      const en = fileRefusalMessage(code, 'en');
      expect(da.length).toBeGreaterThan(10);
      expect(en.length).toBeGreaterThan(10);
      expect(da).not.toBe(en);
    }
  });
});
