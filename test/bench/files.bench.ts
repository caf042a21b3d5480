/**
 * The file readers and result writers at the sizes docs/files.md names: a 1,000,000-row CSV and a
 * 200,000-row xlsx read through openTable, and a result file of 1,000,000 rows written as CSV and
 * as xlsx. Each stage runs in a process of its own (this file forked with `--stage`), so its peak
 * RSS is its own, and each is set beside a floor measured in the same run on the same bytes:
 * - CSV read: fs stream + split('\n') + split(';') (no quotes, no decoding choices);
 * - xlsx read: inflating the zip entries with zlib and counting `</row>` (the bytes alone);
 * - result write: the same cells joined with `;` and written with fs (no quoting, no encoding).
 * Inputs: the CSV is written by this bench (Windows-1252, `;`, as Excel writes it), the xlsx by
 * exceljs's streaming WorkbookWriter (a real xlsx writer, shared strings and styles as Excel uses).
 * Run alone: `npm exec -- node test/bench/files.bench.ts`.
 */
import { fork } from 'node:child_process';
import { createReadStream, createWriteStream, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createInflateRaw } from 'node:zlib';
import ExcelJS from 'exceljs';
import type { CheckResult } from '../../services/domain/types.ts';
import { openTable, type ResultFileRow, writeResultFile } from '../../services/ingest/files/index.ts';
import { readZipEntries } from '../../services/ingest/files/zip-inspect.ts';
import { generateListEntries } from '../../services/synthetic/index.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';

const CSV_ROWS = 1_000_000;
const XLSX_ROWS = 200_000;
const RESULT_ROWS = 1_000_000;
const SEED = 'bench-files';
const HEADER = ['Kundenr.', 'Navn', 'Adresse', 'Postnr.', 'By', 'Telefon'];
const RSS_GOAL_MB = 400;

type Stage = 'csv-floor' | 'csv-read' | 'xlsx-floor' | 'xlsx-read' | 'write-floor' | 'write-csv' | 'write-xlsx';
interface StageResult {
  seconds: number;
  rows: number;
  peakRssMb: number;
}

function* people(count: number): Generator<string[]> {
  let i = 0;
  for (const e of generateListEntries(count, SEED)) {
    i++;
    yield [`K-${i}`, e.name ?? '', e.address ?? '', e.postal_code ?? '', e.city ?? '', `+45 ${String(20000000 + i).replace(/(\d\d)(?=\d)/g, '$1 ')}`];
  }
}

function writeInputCsv(file: string): void {
  const quote = (v: string) => (/[;"\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const pieces: Buffer[] = [Buffer.from(HEADER.join(';') + '\r\n', 'latin1')];
  let block: string[] = [];
  for (const row of people(CSV_ROWS)) {
    block.push(row.map(quote).join(';'));
    if (block.length === 10_000) {
      pieces.push(Buffer.from(block.join('\r\n') + '\r\n', 'latin1')); // Danish letters are all Latin-1 = Windows-1252 here
      block = [];
    }
  }
  if (block.length > 0) pieces.push(Buffer.from(block.join('\r\n') + '\r\n', 'latin1'));
  writeFileSync(file, Buffer.concat(pieces));
}

async function writeInputXlsx(file: string): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true, useStyles: true });
  const sheet = workbook.addWorksheet('Kunder');
  sheet.addRow(HEADER).commit();
  for (const row of people(XLSX_ROWS)) sheet.addRow(row).commit();
  sheet.commit();
  await workbook.commit();
}

const RESULT: CheckResult = {
  id: null,
  status: 'blocked',
  reasons: ['name_and_address'],
  level: 'unit',
  match: { level: 5, code: 'name_address', label: null, on: [], previous_address: false, approximate: false },
  stop_level: 3,
  address: null,
  phone_lookup: null,
};

async function* resultRows(): AsyncGenerator<ResultFileRow> {
  for (const cells of people(RESULT_ROWS)) yield { cells, result: RESULT, list_version: '2026-01-01' };
}

async function runStage(stage: Stage, dir: string): Promise<number> {
  const csv = path.join(dir, 'input.csv');
  const xlsx = path.join(dir, 'input.xlsx');
  switch (stage) {
    case 'csv-floor': {
      let rows = 0;
      let rest = '';
      for await (const chunk of createReadStream(csv, { highWaterMark: 256 * 1024 })) {
        const lines = (rest + (chunk as Buffer).toString('latin1')).split('\n');
        rest = lines.pop()!;
        for (const line of lines) if (line.split(';').length > 0) rows++;
      }
      return rows;
    }
    case 'csv-read':
    case 'xlsx-read': {
      let rows = 0;
      const table = await openTable(stage === 'csv-read' ? csv : xlsx, { filename: stage === 'csv-read' ? 'kunder.csv' : 'kunder.xlsx' });
      for await (const _ of table.rows()) rows++;
      return rows;
    }
    case 'xlsx-floor':
      return countXlsxRows(xlsx);
    case 'write-floor': {
      const out = createWriteStream(path.join(dir, 'floor.csv'));
      let rows = 0;
      let piece = '';
      for await (const row of resultRows()) {
        piece += [...row.cells, row.result.status, '5', 'name_address', 'name_and_address', row.list_version].join(';') + '\r\n';
        rows++;
        if (piece.length > 65536) {
          if (!out.write(piece)) await new Promise((r) => out.once('drain', r));
          piece = '';
        }
      }
      out.end(piece);
      await finished(out);
      return rows;
    }
    case 'write-csv':
    case 'write-xlsx': {
      const format = stage === 'write-csv' ? 'csv' : 'xlsx';
      const out = createWriteStream(path.join(dir, `result.${format}`));
      let rows = 0;
      const counted = async function* () {
        for await (const row of resultRows()) {
          rows++;
          yield row;
        }
      };
      await writeResultFile(out, { format, csv: { encoding: 'windows-1252', delimiter: ';' }, header: HEADER, locale: 'da' }, counted());
      out.end();
      await finished(out);
      return rows;
    }
  }
}

/** The floor for xlsx: inflate each entry (reading the local headers in order) and count rows. */
async function countXlsxRows(file: string): Promise<number> {
  let rows = 0;
  for (const entry of await readZipEntries(file)) {
    if (!entry.name.startsWith('xl/worksheets/')) continue;
    const inflate = createInflateRaw();
    const source = createReadStream(file, { start: entry.dataStart, end: entry.dataStart + entry.compressedSize - 1 });
    source.pipe(inflate);
    let tail = '';
    for await (const chunk of inflate) {
      const text = tail + (chunk as Buffer).toString('latin1');
      let at = text.indexOf('</row>');
      while (at !== -1) {
        rows++;
        at = text.indexOf('</row>', at + 6);
      }
      tail = text.slice(-5);
    }
  }
  return rows;
}

function inChild(stage: Stage, dir: string): Promise<StageResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--stage', stage, dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (m) => resolve(m as StageResult));
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`stage ${stage} exited ${code}`))));
  });
}

const bench: Bench = async (): Promise<BenchSection> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-files-'));
  try {
    const made = performance.now();
    writeInputCsv(path.join(dir, 'input.csv'));
    await writeInputXlsx(path.join(dir, 'input.xlsx'));
    const makeSeconds = (performance.now() - made) / 1000;
    const r: Partial<Record<Stage, StageResult>> = {};
    for (const stage of ['csv-floor', 'csv-read', 'xlsx-floor', 'xlsx-read', 'write-floor', 'write-csv', 'write-xlsx'] as const) {
      r[stage] = await inChild(stage, dir);
    }
    const csvMb = statSync(path.join(dir, 'input.csv')).size / 1e6;
    const xlsxMb = statSync(path.join(dir, 'input.xlsx')).size / 1e6;
    const resultCsvMb = statSync(path.join(dir, 'result.csv')).size / 1e6;
    const resultXlsxMb = statSync(path.join(dir, 'result.xlsx')).size / 1e6;
    const rate = (s: StageResult) => Math.round(s.rows / s.seconds);
    const x = (a: StageResult, b: StageResult) => round2(a.seconds / b.seconds);
    const { 'csv-floor': cf, 'csv-read': cr, 'xlsx-floor': xf, 'xlsx-read': xr, 'write-floor': wf, 'write-csv': wc, 'write-xlsx': wx } = r as Record<Stage, StageResult>;
    if (cr.rows !== CSV_ROWS + 1 || xr.rows !== XLSX_ROWS + 1 || wc.rows !== RESULT_ROWS || wx.rows !== RESULT_ROWS) {
      throw new Error(`row counts: csv ${cr.rows}, xlsx ${xr.rows}, written ${wc.rows}/${wx.rows}`);
    }
    // Each figure with its same-run ratio: rates to the floor's rate, times to the floor's time,
    // peak RSS to the floor stage's process (the same input in the same kind of process).
    const ratio = (value: number, of: string) => ({ ratio: { value: round2(value), of } });
    const metrics: BenchMetric[] = [
      { name: 'CSV read: 1,000,000 rows', value: rate(cr), unit: 'rows/s', ...ratio(rate(cr) / rate(cf), 'the floor (fs + split)'), note: `${round2(cr.seconds)} s for ${round2(csvMb)} MB Windows-1252 ";"; floor ${rate(cf)} rows/s in ${round2(cf.seconds)} s: ${x(cr, cf)}x the floor's time` },
      { name: 'CSV read: peak RSS', value: cr.peakRssMb, unit: 'MB', goal: { op: '<=', value: RSS_GOAL_MB }, ...ratio(cr.peakRssMb / cf.peakRssMb, "the floor's process"), note: `floor's process ${cf.peakRssMb} MB` },
      { name: 'xlsx read: 200,000 rows', value: rate(xr), unit: 'rows/s', ...ratio(rate(xr) / rate(xf), 'the floor (inflate + count rows)'), note: `${round2(xr.seconds)} s for ${round2(xlsxMb)} MB (exceljs-written, shared strings), zip check + streaming reader; floor ${round2(xf.seconds)} s: ${x(xr, xf)}x its time` },
      { name: 'xlsx read: peak RSS', value: xr.peakRssMb, unit: 'MB', goal: { op: '<=', value: RSS_GOAL_MB }, ...ratio(xr.peakRssMb / xf.peakRssMb, "the floor's process"), note: `floor's process ${xf.peakRssMb} MB` },
      { name: 'result CSV write: 1,000,000 rows', value: round2(wc.seconds), unit: 's', ...ratio(wc.seconds / wf.seconds, 'the floor (join + fs write)'), note: `${round2(resultCsvMb)} MB Windows-1252, quoting + formula guard; floor ${round2(wf.seconds)} s` },
      { name: 'result CSV write: peak RSS', value: wc.peakRssMb, unit: 'MB', goal: { op: '<=', value: RSS_GOAL_MB }, ...ratio(wc.peakRssMb / wf.peakRssMb, "the floor's process"), note: `floor's process ${wf.peakRssMb} MB` },
      { name: 'result xlsx write: 1,000,000 rows', value: round2(wx.seconds), unit: 's', ...ratio(wx.seconds / wf.seconds, 'the CSV floor (join + fs write)'), note: `${round2(resultXlsxMb)} MB via exceljs WorkbookWriter` },
      { name: 'result xlsx write: peak RSS', value: wx.peakRssMb, unit: 'MB', goal: { op: '<=', value: RSS_GOAL_MB }, ...ratio(wx.peakRssMb / wf.peakRssMb, "the floor's process"), note: `floor's process ${wf.peakRssMb} MB` },
    ];
    return {
      title: 'Files: CSV/xlsx readers and result-file writers',
      metrics,
      notes: [
        `Each stage in its own process (peak RSS = that process's maxRSS, Node's own ~50 MB included). Inputs made in ${round2(makeSeconds)} s, not counted.`,
        'Rows are synthetic Danish people (services/synthetic): customer number, name, address, postal code, city, phone.',
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

export default bench;

if (import.meta.main) {
  const at = process.argv.indexOf('--stage');
  if (at !== -1) {
    const stage = process.argv[at + 1] as Stage;
    const started = performance.now();
    const rows = await runStage(stage, process.argv[at + 2]);
    const result: StageResult = { seconds: (performance.now() - started) / 1000, rows, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) };
    process.send!(result, undefined, {}, () => process.exit(0));
  } else {
    console.log(JSON.stringify(await bench(), null, 2));
  }
}
