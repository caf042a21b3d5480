import type { FileFormat } from '../../domain/check-job.ts';
import { FileRefusedError } from './refusal.ts';
import { createStreamDecoder, detectTextEncoding } from './text-encoding.ts';

/**
 * What a file is, from its first bytes (docs/decisions.md §14: sniffed, never trusted from the name), and
 * whether that agrees with the name. A zip is an xlsx candidate (its parts are checked when it is
 * opened), an OLE2 compound file is an xls or an encrypted workbook, text is CSV.
 */
export type SniffedKind = 'zip' | 'ole2' | 'text';

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY = [0x50, 0x4b, 0x05, 0x06];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const startsWith = (head: Uint8Array, magic: number[]) => magic.every((b, i) => head[i] === b);

/** The format a file name claims; null without a name or extension. */
export function claimedFormat(filename: string | null | undefined): FileFormat | null | 'unsupported' {
  if (!filename) return null;
  const dot = filename.lastIndexOf('.');
  if (dot <= 0 || dot === filename.length - 1) return null;
  const ext = filename.slice(dot + 1).toLowerCase();
  if (ext === 'xlsx' || ext === 'xlsm') return 'xlsx';
  if (ext === 'xls') return 'xls';
  if (ext === 'csv' || ext === 'txt' || ext === 'tsv') return 'csv';
  return 'unsupported';
}

export function sniffKind(head: Uint8Array): SniffedKind | null {
  if (startsWith(head, ZIP) || startsWith(head, ZIP_EMPTY)) return 'zip';
  if (startsWith(head, OLE2)) return 'ole2';
  return looksLikeText(head) ? 'text' : null;
}

/**
 * Text: no NUL once decoded and hardly any other control characters. Windows-1252 maps nearly
 * every byte to some character, so this is what keeps a PDF or an image out of the CSV reader.
 */
function looksLikeText(head: Uint8Array): boolean {
  const decoder = createStreamDecoder(detectTextEncoding(head));
  const text = decoder.decode(head);
  if (text.length === 0) return true;
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return false;
    if (c < 0x20 && c !== 9 && c !== 10 && c !== 13 && c !== 12) control++;
    else if (c === 0xfffd) control++;
  }
  return control <= text.length / 100;
}

/** The format of `kind`, refusing one that the name contradicts (or bytes of no known kind). */
export function formatOf(kind: SniffedKind | null, filename: string | null | undefined): 'xlsx-candidate' | 'ole2' | 'csv' {
  const claimed = claimedFormat(filename);
  if (claimed === 'unsupported') throw new FileRefusedError('file_unsupported_format', 'file name extension');
  if (kind === null) {
    if (claimed === null) throw new FileRefusedError('file_unsupported_format', 'bytes of no supported format');
    throw new FileRefusedError('file_format_mismatch', `named ${claimed}, bytes of no supported format`);
  }
  const sniffed = kind === 'zip' ? 'xlsx' : kind === 'ole2' ? 'xls' : 'csv';
  // An encrypted xlsx is an OLE2 file too: the name may say xlsx, the container decides later.
  const agrees = claimed === null || claimed === sniffed || (claimed === 'xlsx' && kind === 'ole2');
  if (!agrees) throw new FileRefusedError('file_format_mismatch', `named ${claimed}, bytes are ${sniffed}`);
  return kind === 'zip' ? 'xlsx-candidate' : kind === 'ole2' ? 'ole2' : 'csv';
}
