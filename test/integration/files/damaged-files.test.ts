/**
 * Damaged files never get past openTable as anything but FileRefusedError: real files from
 * LibreOffice and exceljs with random bytes overwritten, cut short or both (what broken transfers
 * and crafted uploads do). Each must read or be refused, with nothing else thrown and no hang.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileRefusedError, openTable } from '../../../services/ingest/files/index.ts';
import { csvAsExcelWrites, makeSpreadsheets, type Rows, scratchDir } from '../../support/files/spreadsheets.ts';

const ROWS: Rows = [['Navn', 'Adresse', 'Postnr.', 'By'], ...Array.from({ length: 40 }, (_, i) => [`Person ${i} Ærø`, `Vej ${i}, 2. tv`, String(1000 + i), 'Høje Taastrup'])];

let dir: string;
const originals: Record<string, Buffer> = {};

beforeAll(async () => {
  dir = await scratchDir('damaged');
  const [xlsx, xls, exceljs] = await makeSpreadsheets(dir, [
    { name: 'lo.xlsx', rows: ROWS, via: 'libreoffice' },
    { name: 'lo.xls', rows: ROWS, via: 'libreoffice' },
    { name: 'exceljs.xlsx', rows: ROWS, via: 'exceljs' },
  ]);
  originals.xlsx = await readFile(xlsx);
  originals.xls = await readFile(xls);
  originals.exceljs = await readFile(exceljs);
  originals.csv = csvAsExcelWrites(ROWS, 'excel-1252-semicolon');
}, 300_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** 'read' or the refusal code; anything else thrown fails the test. */
async function outcome(bytes: Buffer, name: string): Promise<string> {
  const file = path.join(dir, `damaged-${name}`);
  await writeFile(file, bytes);
  try {
    const table = await openTable(file, { filename: name, xlsLimits: { timeoutMs: 20_000, maxMemoryMb: 256 } });
    for await (const _ of table.rows());
    return 'read';
  } catch (error) {
    if (error instanceof FileRefusedError) return error.code;
    throw error;
  }
}

const damage = fc.record({
  flips: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 }),
  cutAt: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
});

function damaged(original: Buffer, d: { flips: Array<[number, number]>; cutAt: number | null }): Buffer {
  const bytes = Buffer.from(original);
  for (const [at, xor] of d.flips) bytes[Math.floor(at * (bytes.length - 1))] ^= xor;
  return d.cutAt === null ? bytes : bytes.subarray(0, Math.floor(d.cutAt * bytes.length));
}

describe('damaged files are read or refused, never anything else', () => {
  for (const [key, name, runs] of [
    ['xlsx', 'kunder.xlsx', 40],
    ['exceljs', 'kunder.xlsx', 40],
    ['xls', 'kunder.xls', 15],
    ['csv', 'kunder.csv', 60],
  ] as const) {
    it(`${key}: ${runs} random damages`, async () => {
      const seen = new Set<string>();
      await fc.assert(
        fc.asyncProperty(damage, async (d) => {
          seen.add(await outcome(damaged(originals[key], d), name));
        }),
        { numRuns: runs },
      );
      // Zip CRCs and BIFF records make damaged spreadsheets refusable; CSV has no checksum, so
      // damaged text mostly still reads (a flipped byte is a different letter).
      if (key === 'csv') expect(seen.has('read')).toBe(true);
      else expect([...seen].some((o) => o !== 'read')).toBe(true);
    }, 240_000);
  }
});
