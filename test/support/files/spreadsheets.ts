/**
 * Spreadsheet and CSV fixtures made in test setup by real programs: LibreOffice headless
 * (`soffice --convert-to`, Debian's libreoffice-calc-nogui) and exceljs for xlsx/xls, and CSV
 * bytes the way Excel writes them (see csvAsExcelWrites). Used by the file-reader tests and by the
 * upload end-to-end tests.
 *
 *   const [xlsx, xls] = await makeSpreadsheets(dir, [
 *     { name: 'people.xlsx', rows, via: 'libreoffice' },
 *     { name: 'people.xls', rows, via: 'libreoffice' },
 *   ]);
 *
 * LibreOffice takes seconds to start: every file of one call is converted by one soffice run per
 * target format, with its own profile directory (-env:UserInstallation) so parallel test files do
 * not clash. Cells are imported as text (column format 2), so `0800` stays `0800`.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';

const run = promisify(execFile);

export type Rows = Array<Array<string | null>>;
export type CsvFlavour =
  /** Excel "CSV (semikolonsepareret)" on Danish Windows: Windows-1252, `;`, CRLF. */
  | 'excel-1252-semicolon'
  /** Excel "CSV UTF-8": BOM, then `;` on Danish Windows. */
  | 'excel-utf8-bom'
  /** Excel "Unicode-tekst": UTF-16 LE with BOM, tab-separated. */
  | 'excel-utf16'
  /** UTF-16 BE with BOM, `,` (other tools). */
  | 'utf16be-comma'
  /** Plain UTF-8, `,`, LF (scripts, Google Sheets). */
  | 'utf8-comma';

export interface SpreadsheetSpec {
  /** File name; its extension is the format: .xlsx, .xls or .csv. */
  name: string;
  rows: Rows;
  via: 'libreoffice' | 'exceljs' | CsvFlavour;
}

/** Makes each file in `dir`; returns their paths in order. */
export async function makeSpreadsheets(dir: string, specs: SpreadsheetSpec[]): Promise<string[]> {
  const paths = specs.map((s) => path.join(dir, s.name));
  const viaOffice = new Map<string, SpreadsheetSpec[]>();
  for (const [i, spec] of specs.entries()) {
    if (spec.via === 'exceljs') await writeWithExceljs(paths[i], spec.rows);
    else if (spec.via === 'libreoffice') {
      const ext = path.extname(spec.name).slice(1);
      viaOffice.set(ext, [...(viaOffice.get(ext) ?? []), spec]);
    } else await writeFile(paths[i], csvAsExcelWrites(spec.rows, spec.via));
  }
  for (const [ext, group] of viaOffice) await convertWithLibreOffice(dir, ext, group);
  return paths;
}

export async function makeSpreadsheet(dir: string, spec: SpreadsheetSpec): Promise<string> {
  return (await makeSpreadsheets(dir, [spec]))[0];
}

async function writeWithExceljs(file: string, rows: Rows): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Ark1');
  for (const row of rows) sheet.addRow(row.map((c) => c ?? undefined));
  // writeBuffer + writeFile, not exceljs's writeFile: that one can resolve before the file is
  // written whole, and a busy machine then reads a truncated xlsx (seen once in CI beside a burner).
  await writeFile(file, Buffer.from(await workbook.xlsx.writeBuffer()));
}

const FILTERS: Record<string, string> = {
  xlsx: 'xlsx:Calc MS Excel 2007 XML',
  xls: 'xls:MS Excel 97',
  // Excel's macro-enabled workbook type (content type ...macroEnabled...), as Excel would save it.
  xlsm: 'xlsm:Calc MS Excel 2007 VBA XML',
};

/** One soffice run for the group: UTF-8 CSV sources in a scratch dir, converted into `dir`. */
async function convertWithLibreOffice(dir: string, ext: string, specs: SpreadsheetSpec[]): Promise<void> {
  const filter = FILTERS[ext];
  if (!filter) throw new Error(`LibreOffice fixtures are xlsx or xls, not ${ext}`);
  const scratch = await mkdtemp(path.join(tmpdir(), 'lo-src-'));
  const profile = await mkdtemp(path.join(tmpdir(), 'lo-profile-'));
  try {
    const sources: string[] = [];
    let width = 1;
    for (const spec of specs) {
      const source = path.join(scratch, `${path.basename(spec.name, path.extname(spec.name))}.csv`);
      await writeFile(source, csvAsExcelWrites(spec.rows, 'utf8-comma'));
      sources.push(source);
      width = Math.max(width, ...spec.rows.map((r) => r.length));
    }
    // CSV import options: `,` `"` UTF-8 (76), from line 1, every column as text (format 2).
    const columnFormats = Array.from({ length: width }, (_, i) => `${i + 1}/2`).join('/');
    const outDir = path.join(scratch, 'out');
    await run(
      'soffice',
      [`-env:UserInstallation=file://${profile}`, '--headless', '--norestore', `--infilter=CSV:44,34,76,1,${columnFormats}`, '--convert-to', filter, '--outdir', outDir, ...sources],
      { timeout: 180_000 },
    );
    for (const spec of specs) {
      const target = path.join(dir, spec.name);
      await rename(path.join(outDir, `${path.basename(spec.name, path.extname(spec.name))}.${ext}`), target);
      if (ext === 'xlsx') await expectRowsWritten(target, spec.rows);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  }
}

/**
 * The fixture holds every row, read back with exceljs's whole-workbook loader (not the service's
 * streaming reader): a file LibreOffice wrote wrong fails here, in the setup, under its own name,
 * instead of looking like a refusal by the service.
 */
async function expectRowsWritten(file: string, rows: Rows): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  let written = 0;
  workbook.worksheets[0]?.eachRow({ includeEmpty: false }, () => { written++; });
  const expected = rows.filter((r) => r.some((c) => c !== null && c !== '')).length;
  if (written !== expected) throw new Error(`LibreOffice wrote ${written} of ${expected} rows into ${path.basename(file)}`);
}

const FLAVOURS: Record<CsvFlavour, { delimiter: string; eol: string; bytes: (text: string) => Buffer }> = {
  'excel-1252-semicolon': { delimiter: ';', eol: '\r\n', bytes: windows1252 },
  'excel-utf8-bom': { delimiter: ';', eol: '\r\n', bytes: (t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t, 'utf8')]) },
  'excel-utf16': { delimiter: '\t', eol: '\r\n', bytes: (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]) },
  'utf16be-comma': { delimiter: ',', eol: '\r\n', bytes: (t) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(t, 'utf16le').swap16()]) },
  'utf8-comma': { delimiter: ',', eol: '\n', bytes: (t) => Buffer.from(t, 'utf8') },
};

/** CSV bytes as Excel writes them: quotes only where needed (delimiter, quote, line break). */
export function csvAsExcelWrites(rows: Rows, flavour: CsvFlavour): Buffer {
  const { delimiter, eol, bytes } = FLAVOURS[flavour];
  const field = (c: string | null) => (c === null ? '' : /["\r\n]/.test(c) || c.includes(delimiter) ? `"${c.replace(/"/g, '""')}"` : c);
  return bytes(rows.map((r) => r.map(field).join(delimiter)).join(eol) + eol);
}

/** Windows-1252 by Node's own latin1 plus the 0x80-0x9F letters Danish text can hold (€, ‘’, “”, –). */
function windows1252(text: string): Buffer {
  const extra: Record<string, number> = { '€': 0x80, '‚': 0x82, '„': 0x84, '…': 0x85, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '–': 0x96, '—': 0x97 };
  const out = Buffer.alloc(text.length);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const code = ch.charCodeAt(0);
    out[i] = extra[ch] ?? (code <= 0xff ? code : 0x3f);
  }
  return out;
}

/** A scratch directory for one test file; remove it in afterAll. */
export async function scratchDir(label: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `files-${label}-${randomUUID().slice(0, 8)}-`));
}

const SAVE_PROTECTED_MACRO = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">
<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1" script:language="StarBasic">
Sub SaveProtected(src As String, dst As String, filterName As String, pw As String)
  Dim args(0) As New com.sun.star.beans.PropertyValue
  args(0).Name = &quot;Hidden&quot;
  args(0).Value = True
  doc = StarDesktop.loadComponentFromURL(ConvertToURL(src), &quot;_blank&quot;, 0, args())
  Dim out(1) As New com.sun.star.beans.PropertyValue
  out(0).Name = &quot;FilterName&quot;
  out(0).Value = filterName
  out(1).Name = &quot;Password&quot;
  out(1).Value = pw
  doc.storeToURL(ConvertToURL(dst), out())
  doc.close(True)
End Sub
</script:module>
`;

/**
 * Saves `source` (any file LibreOffice opens) as a password-protected xls, the way a user does with
 * "Save with password": LibreOffice's own BIFF8 encryption (a FILEPASS record). soffice has no
 * command-line switch for it, so a Basic macro in a throw-away profile does the save.
 */
export async function saveXlsWithPassword(source: string, target: string, password: string): Promise<void> {
  const profile = await mkdtemp(path.join(tmpdir(), 'lo-profile-'));
  try {
    // A first run creates the profile (with the Standard library); then the macro replaces Module1.
    await run('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', '--terminate_after_init'], { timeout: 180_000 });
    await writeFile(path.join(profile, 'user/basic/Standard/Module1.xba'), SAVE_PROTECTED_MACRO);
    const call = `macro:///Standard.Module1.SaveProtected("${source}","${target}","MS Excel 97","${password}")`;
    await run('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', '--norestore', call], { timeout: 180_000 });
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

/**
 * Every sheet of a workbook as LibreOffice reads it: one soffice run exporting each sheet to
 * UTF-8 CSV (export option sheet -1, LibreOffice ≥ 7.2), parsed back. Keyed by sheet name.
 */
export async function readSheetsWithLibreOffice(file: string, sheetNames: string[]): Promise<Record<string, string[][]>> {
  const out = await mkdtemp(path.join(tmpdir(), 'lo-read-'));
  const profile = await mkdtemp(path.join(tmpdir(), 'lo-profile-'));
  try {
    await run(
      'soffice',
      [`-env:UserInstallation=file://${profile}`, '--headless', '--norestore', '--convert-to', 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1', '--outdir', out, file],
      { timeout: 180_000 },
    );
    const { readFile } = await import('node:fs/promises');
    const base = path.basename(file, path.extname(file));
    const sheets: Record<string, string[][]> = {};
    for (const name of sheetNames) sheets[name] = parseCsvText((await readFile(path.join(out, `${base}-${name}.csv`))).toString('utf8'));
    return sheets;
  } finally {
    await rm(out, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  }
}

/** RFC 4180 records of a `,`-separated text. */
function parseCsvText(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { record.push(field); field = ''; }
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
