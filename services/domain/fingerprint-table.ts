/**
 * A string → integer map that does not keep the strings (keys are compared by their skeleton, see
 * `skeleton` in normalize.ts: "noerregade" and "norregade" are one key): each key is stored as a 64-bit
 * fingerprint (two independent 32-bit hashes) in open-addressed typed arrays. For the list index's
 * millions of building keys this is ~12 bytes a slot instead of ~100 bytes a Map entry with its
 * string. Two different keys share a fingerprint with probability ~n²/2⁶⁵ (about 4·10⁻⁷ for
 * 4,000,000 keys); that risk is accepted and written down in docs/matching.md.
 */
export interface FingerprintTable {
  /** The id of `key`, or -1. */
  get(key: string): number;
  /** get(first + '|' + second + '|' + third), without making that string. */
  getJoined(first: string, second: string, third: string): number;
  /**
   * get(key) for the key whose running hashes (HASH_A0, stepA, stepB over its characters, the
   * skeleton rule applied) are `a` and `b`, without the key's string.
   */
  getHashed(a: number, b: number): number;
  /**
   * The final fingerprint of `first + '|' + second + '|' + third` written to out[at] and
   * out[at + 1], for `getFingerprint`: a batch of checks hashes its rows' building keys first and
   * probes them after, in a loop of independent loads (check.ts checkPeople).
   */
  fingerprintJoinedInto(first: string, second: string, third: string, out: Int32Array, at: number): void;
  /** getJoined for the fingerprint fingerprintJoinedInto wrote. */
  getFingerprint(a: number, b: number): number;
  /** The id of `key`, adding it with the next id (0, 1, 2, ...) when new. */
  intern(key: string): number;
  /**
   * From now on `get` answers `valueOfId[id]` (≥ 0) for every key instead of its id; `intern`
   * may no longer be called. The list index answers a building key with the building's place in
   * its records (list-index.ts), one memory read less per check.
   */
  replaceIds(valueOfId: Int32Array): void;
  readonly size: number;
}

let hashA = 0;
let hashB = 0;

/**
 * The fingerprint's two running hashes before a key's first character, and one character's step
 * of each: `fingerprint` feeds a key's characters through them, normalize.ts `tokenizeHashed` the
 * folded characters of each token as it reads them (docs/matching.md "Speed of the check path").
 */
export const HASH_A0 = 0x811c9dc5;
export const HASH_B0 = 0x9747b28c;

export function stepA(a: number, c: number): number {
  return Math.imul(a ^ c, 0x01000193);
}

export function stepB(b: number, c: number): number {
  const mixed = Math.imul(b ^ c, 0x5bd1e995);
  return mixed ^ (mixed >>> 13);
}

/** The skeleton rule of normalize.ts while hashing: "oe" hashes as "o", "aa" as "a" (c is dropped). */
export function dropsFromSkeleton(c: number, previous: number): boolean {
  return (c === 101 && previous === 111) || (c === 97 && previous === 97);
}

function fingerprint(key: string): void {
  let a = HASH_A0;
  let b = HASH_B0;
  let previous = -1;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (dropsFromSkeleton(c, previous)) continue;
    previous = c;
    a = stepA(a, c);
    b = stepB(b, c);
  }
  finish(a, b);
}

/** The separator of a joined key: `first|second|third`. */
const JOIN = 124;

/**
 * The fingerprint of `first + '|' + second + '|' + third` without making that string: the same
 * characters fed in the same order. A joined string is a rope (V8's cons string) that reading it
 * character by character first copies flat; every check looks its building key up this way
 * (docs/matching.md "Speed of the check path").
 */
function fingerprintJoined(first: string, second: string, third: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  let previous = -1;
  for (let part = 0; part < 5; part++) {
    if (part === 1 || part === 3) {
      // '|' is neither "e" nor "a": the skeleton rule never drops it.
      previous = JOIN;
      a = Math.imul(a ^ JOIN, 0x01000193);
      b = Math.imul(b ^ JOIN, 0x5bd1e995);
      b ^= b >>> 13;
      continue;
    }
    const key = part === 0 ? first : part === 2 ? second : third;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if ((c === 101 && previous === 111) || (c === 97 && previous === 97)) continue;
      previous = c;
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 13;
    }
  }
  finish(a, b);
}

/** The final mix of both hashes into hashA and hashB. */
function finish(a: number, b: number): void {
  a ^= a >>> 16; a = Math.imul(a, 0x85ebca6b); a ^= a >>> 13; a = Math.imul(a, 0xc2b2ae35); a ^= a >>> 16;
  b ^= b >>> 15; b = Math.imul(b, 0x2c1b3c6d); b ^= b >>> 12; b = Math.imul(b, 0x297a2d39); b ^= b >>> 15;
  hashA = a;
  hashB = b;
}

/** Slots are [hashA, hashB, value + 1] side by side, so a probe touches one cache line. */
const STRIDE = 3;

/**
 * The open-addressed slots both tables use: `find` hashes a key and answers the offset of its slot
 * (or of the empty slot where it belongs); `put` fills the slot `find` answered.
 */
function createSlots(initialCapacity: number): {
  find(key: string): number;
  findJoined(first: string, second: string, third: string): number;
  findHashed(a: number, b: number): number;
  /** The slot of a fingerprint `finish` already mixed. */
  findFinished(a: number, b: number): number;
  valueAt(o: number): number;
  /** Every stored value v becomes `valueOf[v]`. */
  replaceValues(valueOf: Int32Array): void;
  put(o: number, value: number): void;
  readonly size: number;
} {
  let capacity = 1;
  while (capacity < initialCapacity) capacity *= 2;
  let slots = new Int32Array(capacity * STRIDE);
  let size = 0;

  function slotOf(a: number, b: number): number {
    const mask = capacity - 1;
    let slot = a & mask;
    for (;;) {
      const o = slot * STRIDE;
      if (slots[o + 2] === 0 || (slots[o] === a && slots[o + 1] === b)) return o;
      slot = (slot + 1) & mask;
    }
  }

  function grow(): void {
    const old = slots;
    capacity *= 2;
    slots = new Int32Array(capacity * STRIDE);
    for (let o = 0; o < old.length; o += STRIDE) {
      if (old[o + 2] === 0) continue;
      const n = slotOf(old[o], old[o + 1]);
      slots[n] = old[o];
      slots[n + 1] = old[o + 1];
      slots[n + 2] = old[o + 2];
    }
  }

  return {
    find(key: string): number {
      fingerprint(key);
      return slotOf(hashA, hashB);
    },
    findJoined(first: string, second: string, third: string): number {
      fingerprintJoined(first, second, third);
      return slotOf(hashA, hashB);
    },
    findHashed(a: number, b: number): number {
      finish(a, b);
      return slotOf(hashA, hashB);
    },
    findFinished: (a: number, b: number): number => slotOf(a, b),
    valueAt: (o: number): number => slots[o + 2] - 1,
    replaceValues(valueOf: Int32Array): void {
      for (let o = 0; o < slots.length; o += STRIDE) if (slots[o + 2] !== 0) slots[o + 2] = valueOf[slots[o + 2] - 1] + 1;
    },
    put(o: number, value: number): void {
      // The fingerprint is still the one find() computed for this slot.
      if ((size + 1) * 2 > capacity) {
        grow();
        o = slotOf(hashA, hashB);
      }
      slots[o] = hashA;
      slots[o + 1] = hashB;
      slots[o + 2] = value + 1;
      size++;
    },
    get size(): number {
      return size;
    },
  };
}

export function createFingerprintTable(initialCapacity = 1 << 12): FingerprintTable {
  const slots = createSlots(initialCapacity);
  let replaced = false;
  return {
    get: (key: string): number => slots.valueAt(slots.find(key)),
    getJoined: (first: string, second: string, third: string): number => slots.valueAt(slots.findJoined(first, second, third)),
    getHashed: (a: number, b: number): number => slots.valueAt(slots.findHashed(a, b)),
    fingerprintJoinedInto(first: string, second: string, third: string, out: Int32Array, at: number): void {
      fingerprintJoined(first, second, third);
      out[at] = hashA;
      out[at + 1] = hashB;
    },
    getFingerprint: (a: number, b: number): number => slots.valueAt(slots.findFinished(a, b)),
    intern(key: string): number {
      if (replaced) throw new Error('fingerprint table: intern after replaceIds');
      const o = slots.find(key);
      const id = slots.valueAt(o);
      if (id >= 0) return id;
      slots.put(o, slots.size);
      return slots.size - 1;
    },
    replaceIds(valueOfId: Int32Array): void {
      if (replaced) throw new Error('fingerprint table: ids already replaced');
      replaced = true;
      slots.replaceValues(valueOfId);
    },
    get size(): number {
      return slots.size;
    },
  };
}

/**
 * A FingerprintTable whose values are the caller's (non-negative) numbers, not ids in order: the
 * register maps a building key straight to its access address, with no id → access array to read
 * (one cache miss less per resolution at national size).
 */
export interface FingerprintMap {
  /** The value of `key`, or -1. */
  get(key: string): number;
  /** get(first + '|' + second + '|' + third), without making that string. */
  getJoined(first: string, second: string, third: string): number;
  /** Sets `key` to `value` unless it has one; false when it had (the first value stays). */
  setIfAbsent(key: string, value: number): boolean;
  readonly size: number;
}

export function createFingerprintMap(initialCapacity = 1 << 12): FingerprintMap {
  const slots = createSlots(initialCapacity);
  return {
    get: (key: string): number => slots.valueAt(slots.find(key)),
    getJoined: (first: string, second: string, third: string): number => slots.valueAt(slots.findJoined(first, second, third)),
    setIfAbsent(key: string, value: number): boolean {
      const o = slots.find(key);
      if (slots.valueAt(o) >= 0) return false;
      slots.put(o, value);
      return true;
    },
    get size(): number {
      return slots.size;
    },
  };
}
