/**
 * exceljs's temporary worksheet copies (the customer's rows) go to the spool directory under a
 * name the stale-spool sweep knows, not to the OS temp dir (services/ingest/files/xlsx-temp.ts):
 * while an xlsx is read the copy is in the spool, afterwards it is gone; a reading process killed
 * with SIGKILL leaves it, and the sweep that every API and inbound start runs removes it.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openTable } from '../../../services/ingest/files/index.ts';
import { removeStaleSpoolFiles, useSpoolForXlsxTempFiles } from '../../../services/ingest/index.ts';
import { makeSpreadsheets, scratchDir, type Rows } from '../../support/files/spreadsheets.ts';

const HOLDER = join(import.meta.dirname, '../../support/files/read-xlsx-and-hold.ts');
const SHEET_COPY = /^xlsx-.+-(\d+)-[0-9a-f-]{36}\.sheet$/;

let dir: string;
let xlsx: string;

beforeAll(async () => {
  dir = await scratchDir('xlsx-temp');
  const rows: Rows = [['Navn', 'Adresse']];
  for (let i = 0; i < 5000; i++) rows.push([`Anne Hansen ${i}`, `Nørregade ${i % 90}, 5000 Odense`]);
  [xlsx] = await makeSpreadsheets(dir, [{ name: 'list.xlsx', rows, via: 'exceljs' }]);
}, 60_000);

/** exceljs's own naming in the OS temp dir (tmp's `tmp-<pid>-…`) for this process. */
async function osTempCopies(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith(`tmp-${process.pid}-`));
}

describe('exceljs temp files', () => {
  it('are in the spool while a sheet is read, never in the OS temp dir, and gone afterwards', async () => {
    const spool = join(dir, 'spool-read');
    await mkdir(spool);
    useSpoolForXlsxTempFiles(spool);
    const table = await openTable(xlsx, { filename: 'list.xlsx' });
    let seenDuring: string[] = [];
    let rows = 0;
    for await (const row of table.rows()) {
      if (rows++ === 1) seenDuring = await readdir(spool);
      expect(row.length).toBe(2);
    }
    expect(rows).toBe(5001);
    expect(seenDuring).toHaveLength(1);
    expect(seenDuring[0]).toMatch(SHEET_COPY);
    expect(Number(SHEET_COPY.exec(seenDuring[0])![1])).toBe(process.pid);
    expect(await osTempCopies()).toEqual([]);
    expect(await readdir(spool), 'removed once the sheet was read').toEqual([]);
  }, 60_000);

  it('left by a process killed with SIGKILL mid-read: removed by the stale-spool sweep', async () => {
    const spool = join(dir, 'spool-killed');
    await mkdir(spool);
    const child = spawn(process.execPath, [HOLDER, spool, xlsx], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<unknown>((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 60_000;
    // The child says when it is in the middle of the sheet.
    while (!out.includes('reading')) {
      if (child.exitCode !== null) throw new Error(`the reader exited: ${out}`);
      if (Date.now() > deadline) throw new Error(`the reader never began: ${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const during = await readdir(spool);
    expect(during).toHaveLength(1);
    expect(Number(SHEET_COPY.exec(during[0])?.[1])).toBe(child.pid);
    child.kill('SIGKILL');
    await exited;
    expect(await readdir(spool), 'a SIGKILL runs no cleanup').toEqual(during);

    expect(await removeStaleSpoolFiles(spool, { olderThanMs: 60_000 })).toBe(1);
    expect(await readdir(spool)).toEqual([]);
  }, 90_000);
});
