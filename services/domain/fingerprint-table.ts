/**
 * A string → integer map that does not keep the strings: each key is stored as a 64-bit
 * fingerprint (two independent 32-bit hashes) in open-addressed typed arrays. For the list index's
 * millions of building keys this is ~12 bytes a slot instead of ~100 bytes a Map entry with its
 * string. Two different keys share a fingerprint with probability ~n²/2⁶⁵ (about 4·10⁻⁷ for
 * 4,000,000 keys); that risk is accepted and written down in docs/matching.md.
 */
export interface FingerprintTable {
  /** The id of `key`, or -1. */
  get(key: string): number;
  /** The id of `key`, adding it with the next id (0, 1, 2, ...) when new. */
  intern(key: string): number;
  readonly size: number;
}

let hashA = 0;
let hashB = 0;

function fingerprint(key: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  a ^= a >>> 16; a = Math.imul(a, 0x85ebca6b); a ^= a >>> 13; a = Math.imul(a, 0xc2b2ae35); a ^= a >>> 16;
  b ^= b >>> 15; b = Math.imul(b, 0x2c1b3c6d); b ^= b >>> 12; b = Math.imul(b, 0x297a2d39); b ^= b >>> 15;
  hashA = a;
  hashB = b;
}

export function createFingerprintTable(initialCapacity = 1 << 12): FingerprintTable {
  let capacity = 1;
  while (capacity < initialCapacity) capacity *= 2;
  let keysA = new Int32Array(capacity);
  let keysB = new Int32Array(capacity);
  let values = new Int32Array(capacity).fill(-1);
  let size = 0;

  function slotOf(a: number, b: number): number {
    const mask = capacity - 1;
    let slot = a & mask;
    while (values[slot] !== -1 && (keysA[slot] !== a || keysB[slot] !== b)) slot = (slot + 1) & mask;
    return slot;
  }

  function grow(): void {
    const oldA = keysA;
    const oldB = keysB;
    const oldValues = values;
    capacity *= 2;
    keysA = new Int32Array(capacity);
    keysB = new Int32Array(capacity);
    values = new Int32Array(capacity).fill(-1);
    for (let i = 0; i < oldValues.length; i++) {
      if (oldValues[i] === -1) continue;
      const slot = slotOf(oldA[i], oldB[i]);
      keysA[slot] = oldA[i];
      keysB[slot] = oldB[i];
      values[slot] = oldValues[i];
    }
  }

  return {
    get(key: string): number {
      fingerprint(key);
      return values[slotOf(hashA, hashB)];
    },
    intern(key: string): number {
      fingerprint(key);
      let slot = slotOf(hashA, hashB);
      if (values[slot] !== -1) return values[slot];
      if ((size + 1) * 2 > capacity) {
        grow();
        slot = slotOf(hashA, hashB);
      }
      keysA[slot] = hashA;
      keysB[slot] = hashB;
      values[slot] = size;
      return size++;
    },
    get size(): number {
      return size;
    },
  };
}
