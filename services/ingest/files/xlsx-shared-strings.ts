import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { createInflateRaw } from 'node:zlib';
import { FileRefusedError } from './refusal.ts';
import { createSharedStrings, type SharedStrings } from './shared-strings.ts';
import { readZipEntries } from './zip-inspect.ts';

/**
 * An xlsx's shared-strings table (`xl/sharedStrings.xml`), read from the zip by its central
 * directory, not from exceljs's streaming reader (docs/files.md "The shared-strings table is ours
 * to read").
 *
 * Why not exceljs's (`sharedStrings: 'emit'`): under CPU load its stream of zip entries now and
 * then yields the strings entry with none of its data (about 1 read in 70 of a LibreOffice xlsx
 * beside two busy cores, none when idle). Every text cell then reads as empty and a good file is
 * refused as `file_no_data` ("every sheet is empty"): the CI failure of uploads.embedded. The
 * worksheet's cells only carry the index; the text comes from here, read by offset from the file.
 *
 * Per string: the text of its `<t>` elements (one, or one per rich-text run), without the
 * phonetic reading (`<rPh>`). Held compact (shared-strings.ts); over `maxBytes` the file is refused
 * as too large unpacked.
 */
const PATH = 'xl/sharedStrings.xml';

interface SaxNode {
  name: string;
}
interface SaxParser {
  on(event: 'opentag' | 'closetag', handler: (node: SaxNode) => void): void;
  on(event: 'text', handler: (text: string) => void): void;
  on(event: 'error', handler: (error: Error) => void): void;
  write(chunk: string): void;
  close(): void;
}
// The XML parser exceljs itself uses (not a dependency of ours of its own).
const { SaxesParser } = createRequire(createRequire(import.meta.url).resolve('exceljs'))('saxes') as {
  SaxesParser: new () => SaxParser;
};

export async function readXlsxSharedStrings(path: string, maxBytes: number): Promise<SharedStrings> {
  const strings = createSharedStrings();
  const entry = (await readZipEntries(path)).find((e) => e.name === PATH);
  if (!entry) return strings; // a workbook of numbers only has none
  if (entry.method !== 0 && entry.method !== 8) throw new FileRefusedError('file_unsupported_format', `zip method ${entry.method}`);

  const parser = new SaxesParser();
  let inString = false;
  let phonetic = 0;
  let inText = false;
  let text = '';
  // An object, not a variable: the parser's callbacks set it (TypeScript would narrow a `let` to null).
  const state: { failure: Error | null } = { failure: null };
  parser.on('opentag', (node) => {
    if (node.name === 'si') {
      inString = true;
      text = '';
    } else if (node.name === 'rPh') phonetic++;
    else if (node.name === 't' && inString && phonetic === 0) inText = true;
  });
  parser.on('closetag', (node) => {
    if (node.name === 't') inText = false;
    else if (node.name === 'rPh') phonetic--;
    else if (node.name === 'si') {
      inString = false;
      strings.add(text);
      if (strings.bytes > maxBytes) state.failure ??= new FileRefusedError('file_too_large_inflated', 'shared strings over the cap');
    }
  });
  parser.on('text', (value) => {
    if (inText) text += value;
  });
  parser.on('error', (error) => {
    state.failure ??= new FileRefusedError('file_corrupt', 'shared strings XML unreadable', undefined, { cause: error });
  });

  const raw = entry.compressedSize === 0 ? null : createReadStream(path, { start: entry.dataStart, end: entry.dataStart + entry.compressedSize - 1 });
  if (raw) {
    const stream = entry.method === 8 ? raw.pipe(createInflateRaw()) : raw;
    stream.setEncoding('utf8'); // a character split between chunks is joined before the parser sees it
    try {
      for await (const chunk of stream as AsyncIterable<string>) {
        parser.write(chunk);
        if (state.failure) break;
      }
    } catch (error) {
      state.failure ??= new FileRefusedError('file_corrupt', 'zip entry does not inflate', undefined, { cause: error });
    } finally {
      raw.destroy();
    }
  }
  if (!state.failure) parser.close();
  if (state.failure) throw state.failure;
  return strings;
}
