/**
 * Many short texts held compactly, for the register lookups every API process and matcher keeps
 * whole (2,000,000 companies, a phone directory): UTF-8 bytes in fixed 4 MiB pages (never copied
 * as they grow, so building never holds a page twice), found by a 32-bit reference per text in a
 * typed array. A JavaScript string per record costs its header and the heap's bookkeeping, an
 * object per record far more; here a record costs its bytes plus 6.
 */
const PAGE_BITS = 22;
const PAGE_BYTES = 1 << PAGE_BITS;
/** A text's bytes are at most this (its length in two bytes); longer texts are cut to MAX_TEXT_CHARS. */
const MAX_TEXT_BYTES = 0xffff;
const MAX_TEXT_CHARS = Math.floor(MAX_TEXT_BYTES / 3);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A Uint32Array that grows by doubling while it is built, then is cut to its length. */
export class GrowingUint32 {
  private values = new Uint32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const next = new Uint32Array(this.values.length * 2);
      next.set(this.values);
      this.values = next;
    }
    this.values[this.length++] = value;
  }

  at(index: number): number {
    return this.values[index];
  }

  /** The values as an array of exactly `length` (the builder drops its own after this). */
  done(): Uint32Array {
    return this.values.slice(0, this.length);
  }
}

export class PackedTexts {
  private readonly pages: Uint8Array[] = [];
  private page: Uint8Array | null = null;
  private used = 0;
  private readonly refs = new GrowingUint32();

  get count(): number {
    return this.refs.length;
  }

  /** Adds a text; returns its slot (0, 1, 2, … in order of adding). */
  add(text: string): number {
    // Straight into the page (no array per text): a text that does not fit opens a new page.
    // At most 3 UTF-8 bytes per UTF-16 unit, so a text of MAX_TEXT_CHARS always fits a new page.
    const fitted = text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text;
    let written = this.page === null ? -1 : this.writeAt(fitted);
    if (written < 0) {
      this.page = new Uint8Array(PAGE_BYTES);
      this.pages.push(this.page);
      this.used = 0;
      written = this.writeAt(fitted);
    }
    const page = this.page as Uint8Array;
    const at = this.used;
    page[at] = written >>> 8;
    page[at + 1] = written & 0xff;
    this.used += 2 + written;
    this.refs.push(((this.pages.length - 1) << PAGE_BITS) | at);
    return this.refs.length - 1;
  }

  /** Encodes after the length bytes at `used`; the bytes written, or -1 when the page is too full. */
  private writeAt(text: string): number {
    const page = this.page as Uint8Array;
    const room = Math.min(PAGE_BYTES - this.used - 2, MAX_TEXT_BYTES);
    if (room < text.length) return -1;
    const { read, written } = encoder.encodeInto(text, page.subarray(this.used + 2, this.used + 2 + room));
    return read === text.length ? written : -1;
  }

  get(slot: number): string {
    const ref = this.refs.at(slot);
    const page = this.pages[ref >>> PAGE_BITS];
    const at = ref & (PAGE_BYTES - 1);
    const length = (page[at] << 8) | page[at + 1];
    return decoder.decode(page.subarray(at + 2, at + 2 + length));
  }

  /** Bytes held (pages and references), for reports. */
  get bytes(): number {
    return this.pages.length * PAGE_BYTES + this.refs.length * 4;
  }
}

/**
 * A sorted lookup from a numeric key to slots: keys and slots packed as `key * 2^24 + slot` in a
 * Float64Array (exact below 2^53, so keys below 2^29), sorted once as numbers, then split into
 * two Uint32Arrays searched by bisection. Equal keys keep the order of their slots.
 */
export const MAX_SLOTS = 1 << 24;

export interface SortedKeys {
  keys: Uint32Array;
  slots: Uint32Array;
}

export function sortedKeys(keys: ArrayLike<number>, slots: ArrayLike<number>): SortedKeys {
  const n = keys.length;
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i++) packed[i] = keys[i] * MAX_SLOTS + slots[i];
  packed.sort();
  const outKeys = new Uint32Array(n);
  const outSlots = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const key = Math.floor(packed[i] / MAX_SLOTS);
    outKeys[i] = key;
    outSlots[i] = packed[i] - key * MAX_SLOTS;
  }
  return { keys: outKeys, slots: outSlots };
}

/** The first position whose key is ≥ `key` (keys.length when none). */
export function lowerBound(keys: Uint32Array, key: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
