/**
 * The shared-strings table read from the zip by offset (services/ingest/files/xlsx-shared-strings.ts),
 * on workbooks written by exceljs and then given a hand-written sharedStrings.xml (JSZip, the zip
 * library exceljs writes with): plain, rich-text and phonetic strings, entities, an empty string,
 * letters split between inflate chunks, the size cap and broken XML.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileRefusedError } from '../../../services/ingest/files/refusal.ts';
import { readXlsxBatches } from '../../../services/ingest/files/xlsx-reader.ts';
import { readXlsxSharedStrings } from '../../../services/ingest/files/xlsx-shared-strings.ts';
import { readZipEntries } from '../../../services/ingest/files/zip-inspect.ts';
import { makeSpreadsheets, scratchDir } from '../../support/files/spreadsheets.ts';

interface Zip {
  file(name: string, content: string): Zip;
  generateAsync(options: { type: 'nodebuffer'; compression: 'DEFLATE' }): Promise<Buffer>;
}
const JSZip = createRequire(createRequire(import.meta.url).resolve('exceljs'))('jszip') as { loadAsync(bytes: Buffer): Promise<Zip> };

let dir: string;
let base: Buffer;

beforeAll(async () => {
  dir = await scratchDir('shared-strings');
  const [path] = await makeSpreadsheets(dir, [{ name: 'base.xlsx', rows: [['Navn'], ['Anne Hansen']], via: 'exceljs' }]);
  base = await readFile(path);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The exceljs workbook with `xml` as its sharedStrings.xml. */
async function withStrings(name: string, xml: string): Promise<string> {
  const zip = await JSZip.loadAsync(base);
  zip.file('xl/sharedStrings.xml', xml);
  const path = join(dir, name);
  await writeFile(path, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return path;
}

const sst = (items: string) => `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${items}</sst>`;

const stringsOf = async (path: string, maxBytes: number) => readXlsxSharedStrings(path, await readZipEntries(path), maxBytes);

describe('the shared-strings table, read from the zip by offset', () => {
  it('plain, rich text (runs joined), empty, entities and kept spaces; a phonetic reading is no part of the text', async () => {
    const path = await withStrings('shapes.xlsx', sst([
      '<si><t>Anne Hansen</t></si>',
      '<si><r><t>Nør</t></r><r><rPr><b/></rPr><t>regade 7</t></r></si>',
      '<si/>',
      '<si><t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh><phoneticPr fontId="1"/></si>',
      '<si><t xml:space="preserve"> A &amp; B &lt;C&gt; </t></si>',
    ].join('')));
    const strings = await stringsOf(path, 1024 * 1024);
    expect(Array.from({ length: strings.count }, (_, i) => strings.get(i))).toEqual(['Anne Hansen', 'Nørregade 7', '', '東京', ' A & B <C> ']);
  });

  it('a table far larger than one inflate chunk keeps every letter (æøå split between chunks are joined)', async () => {
    const texts = Array.from({ length: 20_000 }, (_, i) => `Æblegård Østergade ${i} å`);
    const path = await withStrings('large.xlsx', sst(texts.map((t) => `<si><t>${t}</t></si>`).join('')));
    const strings = await stringsOf(path, 64 * 1024 * 1024);
    expect(strings.count).toBe(texts.length);
    expect(Array.from({ length: strings.count }, (_, i) => strings.get(i))).toEqual(texts);
  });

  it('the cells of the sheet read through it: the rows come back as written', async () => {
    const rows: string[][] = [['Navn', 'Adresse'], ...Array.from({ length: 300 }, (_, i) => [`Åse Østergård ${i}`, `Vestergade ${i}, 5000 Odense`])];
    const [path] = await makeSpreadsheets(dir, [{ name: 'rows.xlsx', rows, via: 'exceljs' }]);
    const read: Array<Array<string | null>> = [];
    for await (const batch of readXlsxBatches(path)) read.push(...batch);
    expect(read).toEqual(rows);
  });

  it('over the cap: refused as too large unpacked; broken XML: refused as corrupt', async () => {
    const large = await withStrings('cap.xlsx', sst(Array.from({ length: 1000 }, (_, i) => `<si><t>navn ${i}</t></si>`).join('')));
    await expect(stringsOf(large, 1000)).rejects.toMatchObject({ code: 'file_too_large_inflated' });
    const broken = await withStrings('broken.xlsx', sst('<si><t>Anne</si>'));
    const error = await stringsOf(broken, 1024 * 1024).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileRefusedError);
    expect(error).toMatchObject({ code: 'file_corrupt' });
  });
});
