import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createInflateRaw } from 'node:zlib';
import { FileRefusedError } from './refusal.ts';

/**
 * Checks an xlsx (a zip) before any parser sees it, so that a crafted file fails here with a clear
 * code instead of deep inside exceljs:
 * - the central directory must be there and consistent with the file (else truncated: corrupt);
 * - entries with the encryption flag: encrypted; `vbaProject.bin` or a macro-enabled content type
 *   (xlsm, xltm, xlam): macro-enabled; no `xl/workbook.xml`: not a workbook;
 * - zip bomb: the declared sizes must stay under `maxInflatedBytes`, and every entry is inflated
 *   once, counting the bytes it really produces (headers can lie) and stopping at the cap;
 *   the same pass checks each entry's CRC-32, which catches damaged data a parser might misread.
 * The pass reads the file once more; for a 200,000-row workbook that costs well under a second.
 */
export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  /** Where the entry's compressed data starts (after its local header). */
  dataStart: number;
}

const EOCD_SIG = 0x06054b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const MACRO_CONTENT_TYPE = /macroEnabled|vbaProject/i;

export async function inspectXlsxZip(path: string, maxInflatedBytes: number): Promise<void> {
  const entries = await readZipEntries(path);
  let declared = 0;
  for (const e of entries) {
    if ((e.flags & 1) !== 0) throw new FileRefusedError('file_encrypted', 'encrypted zip entries');
    declared += e.size;
  }
  if (declared > maxInflatedBytes) throw new FileRefusedError('file_too_large_inflated', `declares ${declared} bytes unpacked`);
  const names = new Set(entries.map((e) => e.name));
  if (entries.some((e) => /(^|\/)vbaProject\.bin$/i.test(e.name))) throw new FileRefusedError('file_macro_enabled', 'vbaProject.bin');
  if (!names.has('[Content_Types].xml') || !names.has('xl/workbook.xml')) {
    throw new FileRefusedError('file_format_mismatch', 'a zip that is no xlsx workbook');
  }
  const budget = { left: maxInflatedBytes };
  for (const e of entries) {
    const keep = e.name === '[Content_Types].xml' || e.name === 'xl/workbook.xml';
    const bytes = await inflateEntry(path, e, budget, keep);
    if (keep && MACRO_CONTENT_TYPE.test(bytes.toString('utf8'))) throw new FileRefusedError('file_macro_enabled', 'macro-enabled content type');
  }
}

/** The entries of a zip's central directory, each with where its data starts. */
export async function readZipEntries(path: string): Promise<ZipEntry[]> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD_SIG) {
        eocd = i;
        break;
      }
    }
    if (eocd === -1) throw new FileRefusedError('file_corrupt', 'zip end record missing (truncated?)');
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
      throw new FileRefusedError('file_unsupported_format', 'zip64 workbooks are not read');
    }
    if (count === 0) throw new FileRefusedError('file_no_data', 'an empty zip');
    if (cdOffset + cdSize > size - tailLength + eocd) throw new FileRefusedError('file_corrupt', 'zip directory outside the file');
    const cd = Buffer.alloc(cdSize);
    await handle.read(cd, 0, cdSize, cdOffset);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL_SIG) throw new FileRefusedError('file_corrupt', 'zip directory damaged');
      const nameLength = cd.readUInt16LE(p + 28);
      const entry: ZipEntry = {
        flags: cd.readUInt16LE(p + 8),
        method: cd.readUInt16LE(p + 10),
        crc: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        dataStart: cd.readUInt32LE(p + 42), // the local header's offset until resolved below
        name: cd.toString('utf8', p + 46, p + 46 + nameLength),
      };
      if (entry.dataStart + 30 + entry.compressedSize > cdOffset) throw new FileRefusedError('file_corrupt', 'zip entry outside the file');
      entries.push(entry);
      p += 46 + nameLength + cd.readUInt16LE(p + 30) + cd.readUInt16LE(p + 32);
    }
    for (const e of entries) {
      const local = Buffer.alloc(30);
      await handle.read(local, 0, 30, e.dataStart);
      if (local.readUInt32LE(0) !== LOCAL_SIG) throw new FileRefusedError('file_corrupt', 'zip entry header damaged');
      e.dataStart += 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/** Inflates one entry, counting against the budget and checking its CRC; returns it if `keep`. */
async function inflateEntry(path: string, entry: ZipEntry, budget: { left: number }, keep: boolean): Promise<Buffer> {
  if (entry.method !== 0 && entry.method !== 8) throw new FileRefusedError('file_unsupported_format', `zip method ${entry.method}`);
  const kept: Buffer[] = [];
  let crc = 0;
  let produced = 0;
  const count = new Writable({
    write(chunk: Buffer, _enc, done) {
      produced += chunk.length;
      budget.left -= chunk.length;
      if (budget.left < 0) return done(new FileRefusedError('file_too_large_inflated', 'unpacks beyond the cap'));
      crc = crc32(chunk, crc);
      if (keep && produced <= 1024 * 1024) kept.push(chunk);
      done();
    },
  });
  const source = entry.compressedSize === 0 ? [] : createReadStream(path, { start: entry.dataStart, end: entry.dataStart + entry.compressedSize - 1 });
  try {
    if (entry.method === 8) await pipeline(source, createInflateRaw(), count);
    else await pipeline(source, count);
  } catch (error) {
    if (error instanceof FileRefusedError) throw error;
    throw new FileRefusedError('file_corrupt', 'zip entry does not inflate', undefined, { cause: error });
  }
  if (crc !== entry.crc || produced !== entry.size) throw new FileRefusedError('file_corrupt', 'zip entry checksum differs');
  return Buffer.concat(kept);
}
