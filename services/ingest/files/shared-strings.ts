/**
 * An xlsx's shared-strings table, kept as UTF-8 bytes in one growing buffer with an offset per
 * string, instead of one JS string each. A 200,000-row customer file has about a million mostly
 * distinct strings (names, addresses, phone numbers): as JS strings, many of them slices that keep
 * the parser's 64 KiB chunks alive, that was most of the reader's heap; as bytes it is their
 * length plus four bytes each. A string is decoded when a cell refers to it.
 */
export interface SharedStrings {
  add(text: string): void;
  get(index: number): string | null;
  readonly count: number;
  /** UTF-8 bytes held (what the table costs in memory, bar four bytes a string). */
  readonly bytes: number;
}

export function createSharedStrings(): SharedStrings {
  let bytes = Buffer.allocUnsafe(1024 * 1024);
  let used = 0;
  let offsets = new Uint32Array(64 * 1024);
  let count = 0;
  offsets[0] = 0;

  return {
    add(text) {
      const need = Buffer.byteLength(text, 'utf8');
      if (used + need > bytes.length) {
        const grown = Buffer.allocUnsafe(Math.max(bytes.length * 2, used + need));
        bytes.copy(grown, 0, 0, used);
        bytes = grown;
      }
      used += bytes.write(text, used, 'utf8');
      if (count + 2 > offsets.length) {
        const grown = new Uint32Array(offsets.length * 2);
        grown.set(offsets);
        offsets = grown;
      }
      count++;
      offsets[count] = used;
    },
    get(index) {
      if (!Number.isInteger(index) || index < 0 || index >= count) return null;
      return bytes.toString('utf8', offsets[index], offsets[index + 1]);
    },
    get count() {
      return count;
    },
    get bytes() {
      return used;
    },
  };
}
