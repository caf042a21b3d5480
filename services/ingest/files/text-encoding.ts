import { createFallbackDecoder } from '../../registers/lists/text-decoding.ts';

/**
 * The text encodings a CSV upload may come in (docs/decisions.md §14) and how each is told apart from the
 * first bytes: a BOM says UTF-8 or UTF-16 LE/BE; without one, a UTF-16 text shows itself by the
 * zero byte of every ASCII letter; bytes that are valid UTF-8 are UTF-8, anything else is
 * Windows-1252 (Excel's "CSV" on a Danish Windows). A UTF-8 guess is revised to Windows-1252 if a
 * byte later in the file is not UTF-8 (the fallback decoder of the list files), so nothing is lost.
 */
export type TextEncodingName = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface StreamDecoder {
  decode(chunk: Uint8Array): string;
  end(): string;
  /** The encoding in use now (a UTF-8 guess may have turned into Windows-1252). */
  readonly encoding: TextEncodingName;
}

export function detectTextEncoding(head: Uint8Array): TextEncodingName {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8-bom';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const utf16 = utf16WithoutBom(head);
  if (utf16 !== null) return utf16;
  return isUtf8Prefix(head) ? 'utf-8' : 'windows-1252';
}

/** UTF-16 without a BOM: in text that is mostly ASCII, one byte of each pair is zero. */
function utf16WithoutBom(head: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const pairs = Math.floor(Math.min(head.length, 4096) / 2);
  if (pairs < 4) return null;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < pairs; i++) {
    if (head[2 * i] === 0) evenZero++;
    if (head[2 * i + 1] === 0) oddZero++;
  }
  if (oddZero > pairs * 0.6 && evenZero < pairs * 0.05) return 'utf-16le';
  if (evenZero > pairs * 0.6 && oddZero < pairs * 0.05) return 'utf-16be';
  return null;
}

/** Valid UTF-8, allowing an incomplete sequence cut off at the end of the sample. */
function isUtf8Prefix(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

export function createStreamDecoder(encoding: TextEncodingName): StreamDecoder {
  if (encoding === 'utf-8' || encoding === 'utf-8-bom') {
    const fallback = createFallbackDecoder();
    return {
      decode: (chunk) => fallback.decode(chunk),
      end: () => fallback.end(),
      get encoding() {
        return fallback.encoding === 'windows-1252' ? 'windows-1252' : encoding;
      },
    };
  }
  // TextDecoder drops a BOM of its own encoding (ignoreBOM false); a stray one later stays data.
  const decoder = new TextDecoder(encoding);
  return {
    decode: (chunk) => decoder.decode(chunk, { stream: true }),
    end: () => decoder.decode(),
    encoding,
  };
}

/**
 * Text back into bytes of one of those encodings (the result file is written in the input's own).
 * Windows-1252 cannot hold every character: one it lacks becomes `?`, as Excel does on export.
 */
export function encodeText(text: string, encoding: TextEncodingName): Uint8Array {
  switch (encoding) {
    case 'utf-8':
    case 'utf-8-bom':
      return Buffer.from(text, 'utf8');
    case 'utf-16le':
      return Buffer.from(text, 'utf16le');
    case 'utf-16be':
      return Buffer.from(text, 'utf16le').swap16();
    case 'windows-1252':
      return encodeWindows1252(text);
  }
}

export function byteOrderMark(encoding: TextEncodingName): Uint8Array {
  if (encoding === 'utf-8-bom') return Uint8Array.of(0xef, 0xbb, 0xbf);
  if (encoding === 'utf-16le') return Uint8Array.of(0xff, 0xfe);
  if (encoding === 'utf-16be') return Uint8Array.of(0xfe, 0xff);
  return new Uint8Array(0);
}

/** The 0x80-0x9F block of Windows-1252; the rest of 0x00-0xFF is Latin-1. */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
// oxlint-disable-next-line typescript/no-misused-spread -- one UTF-16 unit per character: all are in the BMP
const CP1252_REVERSE = new Map<number, number>([...CP1252_HIGH].map((ch, i) => [ch.charCodeAt(0), 0x80 + i]));

/** Characters where Windows-1252 and Latin-1 differ or that Latin-1 lacks. */
const NOT_LATIN1_ALIKE = /[^\x00-\x7f\xa0-\xff]/;

function encodeWindows1252(text: string): Uint8Array {
  // Danish text is nearly always within the shared part: let Node encode it natively.
  if (!NOT_LATIN1_ALIKE.test(text)) return Buffer.from(text, 'latin1');
  const out = new Uint8Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80 || (c >= 0xa0 && c <= 0xff)) out[n++] = c;
    else {
      const mapped = CP1252_REVERSE.get(c);
      out[n++] = mapped ?? 0x3f;
      if (mapped === undefined && c >= 0xd800 && c <= 0xdbff) i++; // one `?` per astral character
    }
  }
  return out.subarray(0, n);
}
