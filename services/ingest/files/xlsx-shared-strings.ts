import { createRequire } from 'node:module';
import { FileRefusedError } from './refusal.ts';
import { createSharedStrings, type SharedStrings } from './shared-strings.ts';
import { openZipEntryText } from './zip-entry-text.ts';
import type { ZipEntry } from './zip-inspect.ts';

/**
 * An xlsx's shared-strings table (`xl/sharedStrings.xml`), read from the zip by offset like every
 * part of the workbook (docs/files.md "Reading an xlsx"); the worksheet's cells only carry the
 * index. Per string: the text of its `<t>` elements (one, or one per rich-text run), without the
 * phonetic reading (`<rPh>`). Held compact (shared-strings.ts); over `maxBytes` the file is
 * refused as too large unpacked.
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

export async function readXlsxSharedStrings(path: string, entries: ZipEntry[], maxBytes: number): Promise<SharedStrings> {
  const strings = createSharedStrings();
  const entry = entries.find((e) => e.name === PATH);
  if (!entry) return strings; // a workbook of numbers only has none

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

  const stream = openZipEntryText(path, entry);
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      parser.write(chunk);
      if (state.failure) break;
    }
  } catch (error) {
    state.failure ??= new FileRefusedError('file_corrupt', 'zip entry does not inflate', undefined, { cause: error });
  } finally {
    stream.destroy();
  }
  if (!state.failure) parser.close();
  if (state.failure) throw state.failure;
  return strings;
}
