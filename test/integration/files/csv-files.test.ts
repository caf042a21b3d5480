import { writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileRefusedError, type FileRefusalCode, openTable, type TableSource } from '../../../services/ingest/files/index.ts';
import { csvAsExcelWrites, scratchDir } from '../../support/files/spreadsheets.ts';

let dir: string;
beforeAll(async () => {
  dir = await scratchDir('csv');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ROWS = [
  ['Navn', 'Adresse', 'Postnr.', 'By'],
  ['Søren Ærø', 'Åvej 1, 2. tv', '0800', 'Høje Taastrup'],
  ['Anne "A" Berg', 'Gade 2\r\nbagved', '2100', 'København Ø'],
  ['Jens Hansen', null, '8000', 'Aarhus C'],
];

async function fileOf(name: string, bytes: Uint8Array | string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  return file;
}

async function readAll(table: TableSource): Promise<Array<Array<string | null>>> {
  const rows: Array<Array<string | null>> = [];
  for await (const row of table.rows()) rows.push(row);
  return rows;
}

async function refusal(promise: Promise<unknown>): Promise<FileRefusalCode> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FileRefusedError) return error.code;
    throw error;
  }
  throw new Error('not refused');
}

describe('CSV uploads: encodings and delimiters (docs/decisions.md §14)', () => {
  const cases = [
    { flavour: 'excel-1252-semicolon', encoding: 'windows-1252', delimiter: ';' },
    { flavour: 'excel-utf8-bom', encoding: 'utf-8-bom', delimiter: ';' },
    { flavour: 'excel-utf16', encoding: 'utf-16le', delimiter: '\t' },
    { flavour: 'utf16be-comma', encoding: 'utf-16be', delimiter: ',' },
    { flavour: 'utf8-comma', encoding: 'utf-8', delimiter: ',' },
  ] as const;
  for (const c of cases) {
    it(`reads ${c.flavour} as ${c.encoding} with ${JSON.stringify(c.delimiter)}`, async () => {
      const file = await fileOf(`${c.flavour}.csv`, csvAsExcelWrites(ROWS, c.flavour));
      const table = await openTable(file, { filename: 'kunder.csv' });
      expect(table.format).toBe('csv');
      expect(table.csv).toEqual({ encoding: c.encoding, delimiter: c.delimiter });
      expect(await readAll(table)).toEqual(ROWS);
    });
  }

  it('detects | and UTF-16 without a BOM', async () => {
    const text = 'navn|adresse\r\nJens|Vej 1\r\n';
    const piped = await openTable(await fileOf('pipe.txt', text), { filename: 'x.txt' });
    expect(piped.csv).toEqual({ encoding: 'utf-8', delimiter: '|' });
    const noBom = await openTable(await fileOf('nobom.csv', Buffer.from(text, 'utf16le')));
    expect(noBom.csv?.encoding).toBe('utf-16le');
    expect(await readAll(noBom)).toEqual([['navn', 'adresse'], ['Jens', 'Vej 1']]);
  });

  it('turns to Windows-1252 when a byte past the first 64 KiB is not UTF-8, losing nothing', async () => {
    const ascii = 'navn;adresse\r\n' + 'Jens Hansen;Vej 1\r\n'.repeat(5000);
    const file = await fileOf('late-1252.csv', Buffer.concat([Buffer.from(ascii), Buffer.from([0x53, 0xf8, 0x72, 0x65, 0x6e, 0x3b, 0x56, 0x0d, 0x0a])]));
    const table = await openTable(file);
    expect(table.csv?.encoding).toBe('utf-8');
    const rows = await readAll(table);
    expect(rows.at(-1)).toEqual(['Søren', 'V']);
    expect(rows).toHaveLength(5002);
    expect(table.csv?.encoding).toBe('windows-1252');
  });

  it('skips blank lines and keeps a single-column file whole', async () => {
    const table = await openTable(await fileOf('one.csv', 'Navn\r\n\r\nJens Hansen\r\n;;\r\nAnne Berg'));
    expect(await readAll(table)).toEqual([['Navn'], ['Jens Hansen'], ['Anne Berg']]);
  });
});

describe('CSV uploads: refusals', () => {
  it('refuses an empty file and one of blank lines only', async () => {
    expect(await refusal(openTable(await fileOf('empty.csv', '')))).toBe('file_empty');
    expect(await refusal(openTable(await fileOf('blank.csv', '\r\n  \r\n')))).toBe('file_empty');
  });

  it('refuses a quote that is never closed, naming its line', async () => {
    const table = await openTable(await fileOf('quote.csv', 'navn;adresse\r\nJens;"Vej 1\r\nAnne;Gade 2\r\n'));
    const error = await readAll(table).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileRefusedError);
    expect(error).toMatchObject({ code: 'file_corrupt', line: 2 });
    expect((error as Error).message).not.toContain('Vej');
  });

  it('refuses more data rows than the limit, counting the header apart', async () => {
    const text = 'navn;adresse\r\n' + 'Jens;Vej 1\r\n'.repeat(10);
    expect(await readAll(await openTable(await fileOf('ten.csv', text), { maxDataRows: 10 }))).toHaveLength(11);
    expect(await refusal(readAll(await openTable(await fileOf('eleven.csv', text + 'Anne;Gade 2\r\n'), { maxDataRows: 10 })))).toBe('file_too_many_rows');
  });

  it('refuses binary bytes named .csv, and a name of an unsupported type', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
    expect(await refusal(openTable(await fileOf('image.csv', png), { filename: 'image.csv' }))).toBe('file_format_mismatch');
    expect(await refusal(openTable(await fileOf('image.bin', png)))).toBe('file_unsupported_format');
    expect(await refusal(openTable(await fileOf('list.pdf', 'navn;adresse\r\n'), { filename: 'list.pdf' }))).toBe('file_unsupported_format');
  });

  it('refuses CSV text named .xlsx or .xls', async () => {
    const file = await fileOf('text.xlsx', 'navn;adresse\r\nJens;Vej 1\r\n');
    expect(await refusal(openTable(file, { filename: 'kunder.xlsx' }))).toBe('file_format_mismatch');
    expect(await refusal(openTable(file, { filename: 'kunder.xls' }))).toBe('file_format_mismatch');
  });
});
