/**
 * Runs in a child process (xls-reader.ts): parses an xls (BIFF8/BIFF5 in an OLE2 compound file)
 * with SheetJS (`@e965/xlsx` 0.20.3, the build with the 2023/2024 CVE fixes) and posts the rows of
 * the first sheet that holds data back in batches. A crafted file that makes the parser loop or
 * balloon only costs this process: the parent kills it at the time limit, and V8 aborts it at its
 * heap limit (--max-old-space-size), which the parent turns into a refusal.
 */
import { readFileSync } from 'node:fs';
import * as XLSX from '@e965/xlsx';

export type XlsWorkerMessage =
  | { type: 'rows'; rows: Array<Array<string | null>> }
  | { type: 'done' }
  | { type: 'refused'; code: 'file_encrypted' | 'file_macro_enabled' | 'file_corrupt' | 'file_format_mismatch'; detail: string };

const BATCH = 2000;
const post = (message: XlsWorkerMessage): void => {
  process.send!(message);
};

function run(path: string): void {
  const bytes = readFileSync(path);
  let paths: string[];
  try {
    paths = (XLSX.CFB.read(bytes, { type: 'buffer' }).FullPaths as string[]).map((p) => p.toLowerCase());
  } catch {
    return post({ type: 'refused', code: 'file_corrupt', detail: 'compound file unreadable' });
  }
  if (paths.some((p) => p.endsWith('/encryptioninfo') || p.endsWith('/encryptedpackage'))) {
    return post({ type: 'refused', code: 'file_encrypted', detail: 'an encrypted workbook' });
  }
  if (paths.some((p) => p.includes('/_vba_project_cur/') || p.includes('/macros/') || p.endsWith('/vba/'))) {
    return post({ type: 'refused', code: 'file_macro_enabled', detail: 'a VBA project' });
  }
  if (!paths.some((p) => p.endsWith('/workbook') || p.endsWith('/book'))) {
    return post({ type: 'refused', code: 'file_format_mismatch', detail: 'a compound file that is no workbook' });
  }
  let workbook: XLSX.WorkBook;
  try {
    workbook = XLSX.read(bytes, { type: 'buffer', dense: true, cellDates: true, cellHTML: false, bookVBA: false });
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (/password|encrypt/i.test(message)) return post({ type: 'refused', code: 'file_encrypted', detail: 'password-protected' });
    return post({ type: 'refused', code: 'file_corrupt', detail: 'BIFF records unreadable' });
  }
  for (const name of workbook.SheetNames) {
    const sheet = workbook.Sheets[name];
    // raw: false gives each cell's formatted text, as the sheet shows it.
    const rows = XLSX.utils.sheet_to_json<Array<string | null>>(sheet, { header: 1, raw: false, defval: null, blankrows: false });
    const cleaned = rows
      .map((row) => row.map((cell) => (cell === null || cell === undefined || cell === '' ? null : String(cell))))
      .filter((row) => row.some((cell) => cell !== null && cell.trim() !== ''));
    if (cleaned.length === 0) continue;
    for (let i = 0; i < cleaned.length; i += BATCH) post({ type: 'rows', rows: cleaned.slice(i, i + BATCH) });
    break;
  }
  post({ type: 'done' });
}

// The process ends when its sends are written (pending writes keep it alive; the channel does not).
run(process.argv[2]);
