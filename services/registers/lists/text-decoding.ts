/**
 * Streaming text decoding for uploaded list files: UTF-8 (a BOM is dropped), falling back to
 * Windows-1252 for the rest of the stream at the first byte sequence that is not UTF-8. Spreadsheet
 * programs on Danish Windows still save "CSV" as Windows-1252, where `æ` is the single byte 0xE6;
 * such a file turns invalid at its first non-ASCII letter, and everything before it was ASCII,
 * which both encodings read alike, so switching there loses and changes nothing.
 */
export interface FallbackDecoder {
  decode(chunk: Uint8Array): string;
  /** Flushes what the decoder holds; call once after the last chunk. */
  end(): string;
  /** The encoding in use now. */
  readonly encoding: 'utf-8' | 'windows-1252';
}

export function createFallbackDecoder(): FallbackDecoder {
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const cp1252 = new TextDecoder('windows-1252');
  let encoding: 'utf-8' | 'windows-1252' = 'utf-8';
  // Bytes the UTF-8 decoder holds back (an incomplete sequence at a chunk's end), so that the
  // fallback can re-read them.
  let held: Uint8Array = new Uint8Array(0);

  return {
    get encoding() {
      return encoding;
    },
    decode(chunk) {
      if (encoding === 'windows-1252') return cp1252.decode(chunk, { stream: true });
      const joined = held.length === 0 ? chunk : concat(held, chunk);
      try {
        const text = utf8.decode(chunk, { stream: true });
        held = joined.subarray(joined.length - incompleteUtf8Tail(joined));
        return text;
      } catch {
        encoding = 'windows-1252';
        return cp1252.decode(joined, { stream: true });
      }
    },
    end() {
      if (encoding === 'windows-1252') return cp1252.decode();
      try {
        return utf8.decode();
      } catch {
        encoding = 'windows-1252';
        return cp1252.decode(held);
      }
    },
  };
}

/** Length of a trailing, so far valid but incomplete UTF-8 sequence (0 to 3 bytes). */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  for (let i = 1; i <= Math.min(3, bytes.length); i++) {
    const b = bytes[bytes.length - i];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: look further back for the lead
    if (b < 0xc0) return 0; // ASCII ends the sequence
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return need > i ? i : 0;
  }
  return 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
