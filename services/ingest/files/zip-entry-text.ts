import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import { FileRefusedError } from './refusal.ts';
import type { ZipEntry } from './zip-inspect.ts';

/**
 * One zip entry's text, read from the file at the offset its central-directory record gives
 * (readZipEntries) and inflated, as UTF-8 strings: a character split between two chunks is joined
 * before anyone sees it (docs/files.md "Reading an xlsx"). Destroying the result closes the file.
 */
export function openZipEntryText(path: string, entry: ZipEntry): Readable {
  if (entry.method !== 0 && entry.method !== 8) throw new FileRefusedError('file_unsupported_format', `zip method ${entry.method}`);
  if (entry.compressedSize === 0) return Readable.from([]);
  const raw = createReadStream(path, { start: entry.dataStart, end: entry.dataStart + entry.compressedSize - 1 });
  let text: Readable = raw;
  if (entry.method === 8) {
    const inflate = createInflateRaw();
    raw.on('error', (error) => inflate.destroy(error));
    inflate.on('close', () => raw.destroy());
    text = raw.pipe(inflate);
  }
  text.setEncoding('utf8');
  return text;
}
