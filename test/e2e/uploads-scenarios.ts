/**
 * Spreadsheet and CSV uploads end to end (docs/decisions.md §14), written once against a running
 * deployment over real HTTP and run by uploads.embedded.test.ts and uploads.distributed.test.ts:
 * files made by real programs (LibreOffice headless, exceljs, CSV bytes as Excel writes them) go
 * through upload → draft → start → done → GET /file, and the file that comes back is read with
 * exceljs or an RFC 4180 parser and compared row by row with the input and with the results API.
 */
import ExcelJS from 'exceljs';
import { expect } from 'vitest';
import { makeSpreadsheets, type CsvFlavour, type Rows } from '../support/files/spreadsheets.ts';
import { approximateInWords, VERDICT_HEADER, verdictInWords } from '../support/verdict-words.ts';
import { multipartBody, type FormPart } from '../support/multipart.ts';
import { allResults, isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';

type Json = Record<string, any>;

/** Rows whose level against the deployments' list (test/support/pipeline.ts LIST_ENTRIES) is known. */
const KINDS: Array<{ name: string | null; address: string; level: number | null }> = [
  { name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense', level: 5 },
  { name: 'Anne Hansen', address: 'Nørregade 7, 1. th, 5000 Odense', level: 4 },
  { name: 'Anne Jensen', address: 'Nørregade 7, 2. th, 5000 Odense', level: 3 },
  { name: 'Peter Hansen', address: 'Nørregade 7, 2. th, 5000 Odense', level: 2 },
  { name: 'Peter Jensen', address: 'Nørregade 7, 2. th, 5000 Odense', level: 1 },
  { name: 'Åse Østergård', address: 'Vestergade 3, 5000 Odense', level: 0 },
  { name: 'Anne Hansen', address: '?', level: null },
  { name: null, address: 'Nørregade 7, 2. th, 5000 Odense', level: null },
];

export const UPLOAD_HEADER = ['Kundenr.', 'Navn', 'Adresse', 'Bemærkning'];

/** `count` data rows (header first): customer number, name, address and a note column the service does not read. */
export function uploadRows(count: number): { rows: Rows; levels: Array<number | null> } {
  const rows: Rows = [UPLOAD_HEADER];
  const levels: Array<number | null> = [];
  for (let i = 0; i < count; i++) {
    const kind = KINDS[i % KINDS.length];
    // Notes a spreadsheet would run as formulas must come back as text (OWASP CSV injection).
    const note = i % 17 === 3 ? '=HYPERLINK("http://x")' : i % 17 === 5 ? '+45 12 34' : `ring efter kl. ${i % 12}`;
    rows.push([`K-${1000 + i}`, kind.name, kind.address, note]);
    levels.push(kind.level);
  }
  return { rows, levels };
}

export interface UploadFixture {
  label: string;
  name: string;
  via: 'libreoffice' | 'exceljs' | CsvFlavour;
  /** The format the job reports and the result file comes back as. */
  format: 'xlsx' | 'xls' | 'csv';
  result: 'xlsx' | { encoding: 'windows-1252' | 'utf-8' | 'utf-16le'; bom: boolean; delimiter: string };
}

export const FIXTURES: UploadFixture[] = [
  { label: 'xlsx written by LibreOffice', name: 'lo.xlsx', via: 'libreoffice', format: 'xlsx', result: 'xlsx' },
  { label: 'xls written by LibreOffice', name: 'lo.xls', via: 'libreoffice', format: 'xls', result: 'xlsx' },
  { label: 'xlsx written by exceljs', name: 'exceljs.xlsx', via: 'exceljs', format: 'xlsx', result: 'xlsx' },
  { label: 'CSV as Excel writes it: Windows-1252 with ;', name: 'excel-1252.csv', via: 'excel-1252-semicolon', format: 'csv', result: { encoding: 'windows-1252', bom: false, delimiter: ';' } },
  { label: 'CSV as Excel writes it: UTF-8 with BOM', name: 'excel-utf8.csv', via: 'excel-utf8-bom', format: 'csv', result: { encoding: 'utf-8', bom: true, delimiter: ';' } },
  { label: 'UTF-16 text as Excel writes it (tab)', name: 'excel-utf16.txt', via: 'excel-utf16', format: 'csv', result: { encoding: 'utf-16le', bom: true, delimiter: '\t' } },
];

/** Makes every fixture file in `dir` (one soffice run per target format). */
export async function makeUploadFixtures(dir: string, rows: Rows): Promise<Map<string, string>> {
  const paths = await makeSpreadsheets(dir, FIXTURES.map((f) => ({ name: f.name, rows, via: f.via })));
  return new Map(FIXTURES.map((f, i) => [f.name, paths[i]]));
}

export async function upload(d: Deployment, file: { bytes: Uint8Array; filename: string }, fields: FormPart[] = [], key = d.liveKey) {
  const { body, contentType } = await multipartBody([{ name: 'file', value: file }, ...fields]);
  const response = await fetch(new URL('/v2/check-jobs', d.baseUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType, 'Accept-Language': 'en' }, body,
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : {}) as Json };
}

/** RFC 4180 records of decoded CSV text (quotes, doubled quotes, CRLF). */
export function parseCsv(text: string, delimiter: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delimiter) { record.push(field); field = ''; }
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}

/** The result file's rows as text ('' for an empty cell), header first. */
export async function readResultFile(bytes: Buffer, kind: UploadFixture['result']): Promise<string[][]> {
  if (kind === 'xlsx') {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    const rows: string[][] = [];
    // exceljs computes columnCount by walking every row: once, not once per row (20,000 rows took minutes).
    const columns = sheet.columnCount;
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values = (row.values as unknown[]).slice(1);
      rows.push(Array.from({ length: columns }, (_, i) => (values[i] === undefined || values[i] === null ? '' : String(values[i]))));
    });
    return rows;
  }
  const hasBom = kind.encoding === 'utf-8' ? bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf : kind.encoding === 'utf-16le' ? bytes[0] === 0xff && bytes[1] === 0xfe : false;
  expect(hasBom, 'byte order mark as in the input').toBe(kind.bom);
  const text = new TextDecoder(kind.encoding, { ignoreBOM: false }).decode(bytes);
  return parseCsv(text, kind.delimiter);
}

/**
 * CSV cells a spreadsheet would run come back as text (`'` first), except plain numbers and phone
 * numbers, which cannot run anything and come back as they were; xlsx cells are text cells already.
 */
const asWritten = (cell: string | null, csv: boolean) => (cell === null ? ''
  : csv && /^[=+\-@\t\r]/.test(cell) && !/^[+-]?[\d\s]+$/.test(cell) ? `'${cell}` : cell);

/**
 * One fixture through the whole flow: upload → draft (format, columns, mapping, preview with
 * cells and results) → start → done → GET /file; the file read back equals the input row by row
 * plus the verdict of the results API for the same row.
 */
export async function uploadToResultFile(
  d: Deployment, fixture: UploadFixture, path: string, rows: Rows, levels: Array<number | null>, serverLog?: () => string,
): Promise<void> {
  const { readFile } = await import('node:fs/promises');
  const created = await upload(d, { bytes: await readFile(path), filename: fixture.name });
  // A refusal's cause is logged (api.file_refused), not answered: shown when there is one.
  expect(created.status, `${JSON.stringify(created.json)}\n${serverLog?.() ?? ''}`).toBe(202);
  const draft = created.json;
  const data = rows.slice(1);
  expect(draft).toMatchObject({
    status: 'draft', source: 'upload', filename: fixture.name, file_format: fixture.format, row_count: data.length, columns: UPLOAD_HEADER,
    column_mapping: { header_row: 0, external_id: 'Kundenr.', name: 'Navn', address: 'Adresse' },
  });
  expect(draft.preview.map((p: Json) => p.cells)).toEqual(data.slice(0, 20));
  expect(draft.preview.map((p: Json) => p.result.match.level)).toEqual(levels.slice(0, 20));

  const started = await fetch(new URL(`/v2/check-jobs/${draft.id}/start`, d.baseUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' }, body: '{}',
  });
  expect(started.status, await started.clone().text()).toBe(202);
  expect(((await started.json()) as Json).list_version.id).toBe(d.listVersionId);
  const job = await waitForJob(d, draft.id, isFinished);
  expect(job).toMatchObject({ status: 'done', row_count: data.length, processed_count: data.length });
  // A started job's preview keeps the cells (docs/contract.md: preview of done jobs).
  expect(job.preview.map((p: Json) => p.cells)).toEqual(data.slice(0, 20));
  const { results } = await allResults(d, job.id);
  expect(results.map((r) => r.match.level)).toEqual(levels);
  expect(results.map((r) => r.id)).toEqual(data.map((r) => r[0]));

  const response = await fetch(new URL(`/v2/check-jobs/${job.id}/file`, d.baseUrl), { headers: { Authorization: `Bearer ${d.liveKey}`, 'Accept-Language': 'en' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-disposition')).toContain('.result.');
  const back = await readResultFile(Buffer.from(await response.arrayBuffer()), fixture.result);
  expect(back[0]).toEqual([...UPLOAD_HEADER, ...VERDICT_HEADER.en]);
  expect(back).toHaveLength(rows.length);
  for (const [i, input] of data.entries()) {
    const r = results[i];
    expect(back[i + 1], `row ${i}`).toEqual([
      ...input.map((c) => asWritten(c, fixture.result !== 'xlsx')), ...verdictInWords(r, 'en'), job.list_version.published_on, approximateInWords(r, 'en'),
    ]);
  }
}
