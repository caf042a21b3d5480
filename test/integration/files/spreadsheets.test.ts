/**
 * xlsx and xls made by real programs (LibreOffice headless, exceljs), read by openTable, written
 * back as result files and read again by programs other than ours (exceljs's non-streaming reader,
 * Python's csv module), compared row by row.
 */
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../services/domain/types.ts';
import {
  type CsvDialect,
  guessColumnMapping,
  neutraliseFormula,
  openTable,
  type ResultFileRow,
  type TableSource,
  verdictHeaders,
  writeResultFile,
} from '../../../services/ingest/files/index.ts';
import { type CsvFlavour, makeSpreadsheets, readSheetsWithLibreOffice, type Rows, scratchDir } from '../../support/files/spreadsheets.ts';

const run = promisify(execFile);

const ROWS: Rows = [
  ['Kundenr.', 'Navn', 'Adresse', 'Postnr.', 'By', 'Telefon'],
  ['K-1', 'Søren Ærø', 'Åvej 1, 2. tv', '0800', 'Høje Taastrup', '+45 12 34 56 78'],
  ['K-2', 'Anne "A" Berg', 'Gade 2', '2100', 'København Ø', null],
  ['K-3', '=HYPERLINK("http://x")', '-Vej 3', '8000', '@Aarhus C', '+4587654321'],
  ['K-4', 'Jens; Hansen', 'Nørregade 12', '1165', 'København K', '12345678'],
];

/** As read: trailing empty cells are left off. */
const READ = ROWS.map((r) => (r.at(-1) === null ? r.slice(0, -1) : r));

let dir: string;
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = await scratchDir('sheets');
  const made = await makeSpreadsheets(dir, [
    { name: 'people-lo.xlsx', rows: ROWS, via: 'libreoffice' },
    { name: 'people-lo.xls', rows: ROWS, via: 'libreoffice' },
    { name: 'people-exceljs.xlsx', rows: ROWS, via: 'exceljs' },
  ]);
  [files.loXlsx, files.loXls, files.exceljsXlsx] = made;
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(table: TableSource): Promise<Rows> {
  const rows: Rows = [];
  for await (const row of table.rows()) rows.push(row);
  return rows;
}

function resultOf(i: number): CheckResult {
  const blocked = i % 2 === 0;
  return {
    id: `K-${i + 1}`,
    status: blocked ? 'blocked' : 'allowed',
    reasons: blocked ? ['name_and_address', 'previous_address'] : [],
    level: blocked ? 'unit' : 'none',
    match: { level: blocked ? 5 : null, code: blocked ? 'name_address' : null, label: null, on: [], previous_address: blocked, approximate: false },
    stop_level: 3,
    address: null,
    phone_lookup: null,
  };
}

/** The list version as the file shows it: its publication date. */
const LIST_VERSION = '2026-01-01';
/** The verdict of resultOf in words, written out here (not taken from the code under test). */
const WORDS = {
  da: { blocked: ['Blokeret', '5', 'Samme navn og adresse (tidligere adresse)', 'Samme navn på adressen på listen; Fundet på en tidligere adresse'], allowed: ['Tilladt', '', '', ''] },
  en: { blocked: ['Blocked', '5', 'Same name and address (previous address)', 'Same name at the address on the list; Found at a previous address'], allowed: ['Allowed', '', '', ''] },
} as const;

async function* resultRows(data: Rows): AsyncGenerator<ResultFileRow> {
  for (const [i, cells] of data.entries()) yield { cells, result: resultOf(i), list_version: LIST_VERSION };
}

/** What the result file must hold, cell by cell ('' for empty). */
function expectedRows(header: Rows[number], data: Rows, locale: 'da' | 'en', neutralise: boolean): string[][] {
  const text = (c: string | null) => (c === null ? '' : neutralise ? neutraliseFormula(c) : c);
  return [
    [...header.map(text), ...verdictHeaders(locale)],
    ...data.map((cells, i) => {
      const r = resultOf(i);
      const padded = header.map((_, c) => cells[c] ?? null);
      return [...padded.map(text), ...WORDS[locale][r.status as 'blocked' | 'allowed'], LIST_VERSION, locale === 'da' ? 'Nej' : 'No'];
    }),
  ];
}

async function writeResult(name: string, spec: Parameters<typeof writeResultFile>[1], data: Rows): Promise<string> {
  const file = path.join(dir, name);
  const out = createWriteStream(file);
  await writeResultFile(out, spec, resultRows(data));
  out.end();
  await finished(out);
  return file;
}

/** Reads a result xlsx with exceljs's whole-workbook reader (not the streaming one we read with). */
async function readXlsxBack(file: string): Promise<string[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const sheet = workbook.worksheets[0];
  const rows: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const cells: string[] = [];
    for (let c = 1; c <= sheet.columnCount; c++) {
      const v = row.getCell(c).value;
      cells.push(v === null || v === undefined ? '' : String(v));
    }
    rows.push(cells);
  });
  return rows;
}

/** Reads a result CSV with Python's csv module, an independent RFC 4180 reader. */
async function readCsvBack(file: string, dialect: CsvDialect): Promise<string[][]> {
  const encoding = { 'utf-8': 'utf-8', 'utf-8-bom': 'utf-8-sig', 'utf-16le': 'utf-16', 'utf-16be': 'utf-16', 'windows-1252': 'cp1252' }[dialect.encoding];
  const script = 'import csv,json,sys\nwith open(sys.argv[1], newline="", encoding=sys.argv[2]) as f: print(json.dumps(list(csv.reader(f, delimiter=sys.argv[3]))))';
  const { stdout } = await run('python3', ['-c', script, file, encoding, dialect.delimiter]);
  return JSON.parse(stdout) as string[][];
}

describe('spreadsheets written by real programs', () => {
  for (const [label, key, format] of [
    ['LibreOffice xlsx', 'loXlsx', 'xlsx'],
    ['LibreOffice xls (BIFF8)', 'loXls', 'xls'],
    ['exceljs xlsx', 'exceljsXlsx', 'xlsx'],
  ] as const) {
    it(`reads a ${label} cell for cell, with the mapping guessed from its headers`, async () => {
      const table = await openTable(files[key], { filename: `kunder.${format}` });
      expect(table.format).toBe(format);
      expect(table.csv).toBeNull();
      const rows = await readAll(table);
      expect(rows).toEqual(READ);
      expect(guessColumnMapping(rows)).toEqual({
        header_row: 0,
        external_id: 'Kundenr.',
        name: 'Navn',
        address: 'Adresse',
        postal_code: 'Postnr.',
        city: 'By',
        phone: 'Telefon',
      });
    });

    it(`writes the ${label}'s result as xlsx that exceljs reads back row by row (formulas stay text)`, async () => {
      const rows = await readAll(await openTable(files[key]));
      const file = await writeResult(`result-${key}.xlsx`, { format: 'xlsx', header: rows[0], locale: 'da' }, rows.slice(1));
      expect(await readXlsxBack(file)).toEqual(expectedRows(rows[0], rows.slice(1), 'da', false));
      // No cell became a formula: the workbook's sheet XML has no <f> element.
      const { stdout } = await run('unzip', ['-p', file, 'xl/worksheets/sheet1.xml']);
      expect(stdout).not.toContain('<f>');
      expect(stdout).toContain('=HYPERLINK');
    });
  }
});

describe('CSV result files in the input dialect', () => {
  const flavours: Array<[CsvFlavour, CsvDialect]> = [
    ['excel-1252-semicolon', { encoding: 'windows-1252', delimiter: ';' }],
    ['excel-utf8-bom', { encoding: 'utf-8-bom', delimiter: ';' }],
    ['excel-utf16', { encoding: 'utf-16le', delimiter: '\t' }],
    ['utf16be-comma', { encoding: 'utf-16be', delimiter: ',' }],
  ];
  for (const [flavour, dialect] of flavours) {
    it(`${flavour}: read, written back in ${dialect.encoding} with ${JSON.stringify(dialect.delimiter)}, read by Python's csv`, async () => {
      const [input] = await makeSpreadsheets(dir, [{ name: `in-${flavour}.csv`, rows: ROWS, via: flavour }]);
      const table = await openTable(input);
      const rows = await readAll(table);
      expect(rows).toEqual(READ);
      expect(table.csv).toEqual(dialect);
      const file = await writeResult(`result-${flavour}.csv`, { format: 'csv', csv: table.csv!, header: rows[0], locale: 'en' }, rows.slice(1));
      expect(await readCsvBack(file, dialect)).toEqual(expectedRows(rows[0], rows.slice(1), 'en', true));
      // And our own reader sees the same dialect again.
      expect((await openTable(file)).csv).toEqual(dialect);
    });
  }

  it('names the columns of a header-less input, neutralises every formula that could run, keeps phone numbers as they were', async () => {
    const data: Rows = [[
      '=1+1', '-2+3', '+cmd|\' /C calc\'!A0', '@x', '\tt', '\rr', '-A1', 'ok',
      '+45 12 34 56 78', '+4587654321', '-3', '-12,5', '+45 (0) 12-34-56-78',
    ]];
    const file = await writeResult('headerless.csv', { format: 'csv', header: null, columnCount: 13, locale: 'da' }, data);
    const back = await readCsvBack(file, { encoding: 'utf-8', delimiter: ',' });
    expect(back[0].slice(0, 2)).toEqual(['Kolonne 1', 'Kolonne 2']);
    expect(back[1].slice(0, 8)).toEqual(["'=1+1", "'-2+3", "'+cmd|' /C calc'!A0", "'@x", "'\tt", "'\rr", "'-A1", 'ok']);
    expect(back[1].slice(8, 13)).toEqual(['+45 12 34 56 78', '+4587654321', '-3', '-12,5', '+45 (0) 12-34-56-78']);
  });

  it("a monitor re-check's xlsx: the column Ændring after the verdict, in words, and its meaning on the legend", async () => {
    const header = ['id'];
    const changes = ['newly_blocked', 'released', 'changed_level', null] as const;
    const file = path.join(dir, 'changes.xlsx');
    const out = createWriteStream(file);
    async function* rows(): AsyncGenerator<ResultFileRow> {
      for (const [i, change] of changes.entries()) yield { cells: [`K-${i + 1}`], result: { ...resultOf(i), change }, list_version: LIST_VERSION };
    }
    await writeResultFile(out, { format: 'xlsx', header, locale: 'da', changes: true }, rows());
    out.end();
    await finished(out);
    const back = await readXlsxBack(file);
    expect(back[0]).toEqual(['id', ...verdictHeaders('da'), 'Ændring']);
    expect(back.slice(1).map((r) => [r[0], r.at(-1)])).toEqual([['K-1', 'Ny blokeret'], ['K-2', 'Frigivet'], ['K-3', 'Andet matchniveau'], ['K-4', 'Uændret']]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    const legend: string[] = [];
    workbook.getWorksheet('Forklaring')!.eachRow((row) => legend.push((row.values as unknown[]).filter((v) => typeof v === 'string').join(' | ')));
    expect(legend.some((line) => line.startsWith('Ændring | '))).toBe(true);
    expect(legend.some((line) => line.startsWith('Frigivet | Blokeret ved sidste tjek'))).toBe(true);
  });

  it('a result xlsx opens in LibreOffice: the verdict in Danish words on Resultater, the counts and meanings on Forklaring', async () => {
    const header = ['Kundenr', 'Navn', 'Telefon'];
    const data: Rows = [['K-1', 'Anne', '+45 12 34 56 78'], ['K-2', 'Bo', null]];
    const file = await writeResult('for-people.xlsx', {
      format: 'xlsx', header, locale: 'da',
      summary: { filename: 'kunder.xlsx', checkedAt: '2026-03-02T10:15:00.000Z', listPublishedOn: LIST_VERSION, counts: { rows: 2, blocked: 1, allowed: 1, manual: 0 }, rows: 'all' },
    }, data);
    const sheets = await readSheetsWithLibreOffice(file, ['Resultater', 'Forklaring']);
    expect(sheets.Resultater[0]).toEqual([...header, 'Status', 'Matchniveau', 'Match', 'Årsag', 'Listeversion (udgivet)', 'Navn tilnærmet']);
    expect(sheets.Resultater[1]).toEqual(['K-1', 'Anne', '+45 12 34 56 78', ...WORDS.da.blocked, LIST_VERSION, 'Nej']);
    expect(sheets.Resultater[2]).toEqual(['K-2', 'Bo', '', ...WORDS.da.allowed, LIST_VERSION, 'Nej']);
    const legend = sheets.Forklaring.map((r) => r.filter((c) => c !== '').join(' | '));
    for (const line of ['Fil | kunder.xlsx', 'Tjekket | 2026-03-02 10:15 UTC', 'Listeversion (udgivet) | 2026-01-01', 'Rækker i jobbet | 2', 'Blokeret | 1', 'Tilladt | 1', 'Manuel vurdering | 0']) {
      expect(legend).toContain(line);
    }
    expect(legend.some((l) => l.startsWith('Blokeret | Må ikke kontaktes.'))).toBe(true);
  }, 120_000);
});
