/**
 * Bounded edit distance for the street correction (street-index.ts): Damerau-Levenshtein in its
 * optimal-string-alignment form on typed arrays of character codes, and a letter-set filter that
 * rejects most pairs before the distance runs.
 */

/** Longest key compared (longer ones only equal themselves). */
export const MAX_KEY = 64;
const rows = new Int32Array(3 * (MAX_KEY + 2));

/**
 * Damerau-Levenshtein distance (optimal string alignment: one swap of neighbours counts 1) of the
 * codes a[aFrom, aFrom + n) and b[bFrom, bFrom + m), or `bound + 1` when it exceeds `bound`. Only
 * the diagonal band |i - j| ≤ bound of the table is computed (3 cells a letter for bound 1).
 */
export function editDistance(
  a: Uint16Array, aFrom: number, n: number, b: Uint16Array, bFrom: number, m: number, bound: number,
): number {
  const over = bound + 1;
  if (Math.abs(n - m) > bound) return over;
  if (n > MAX_KEY || m > MAX_KEY) return over;
  const w = m + 2; // one spare cell right of the band, read as "outside" by the next row
  // Rows i-2, i-1, i live at offsets (i % 3) * w etc.; cells outside the band hold `over`.
  for (let j = 0; j <= m + 1; j++) rows[j] = j <= bound ? j : over;
  for (let i = 1; i <= n; i++) {
    const cur = (i % 3) * w;
    const prev = ((i - 1) % 3) * w;
    const prev2 = ((i + 1) % 3) * w; // (i - 2) % 3
    const lo = i - bound > 1 ? i - bound : 1;
    const hi = i + bound < m ? i + bound : m;
    const first = lo === 1 && i <= bound ? i : over; // column 0 is inside the band for the first rows
    rows[cur + lo - 1] = first;
    const ca = a[aFrom + i - 1];
    const caBefore = i > 1 ? a[aFrom + i - 2] : -1;
    let rowMin = first;
    for (let j = lo; j <= hi; j++) {
      const cb = b[bFrom + j - 1];
      let d = rows[prev + j - 1] + (ca === cb ? 0 : 1);
      const del = rows[prev + j] + 1;
      const ins = rows[cur + j - 1] + 1;
      if (del < d) d = del;
      if (ins < d) d = ins;
      if (j > 1 && caBefore === cb && ca === b[bFrom + j - 2]) {
        const swap = rows[prev2 + j - 2] + 1;
        if (swap < d) d = swap;
      }
      rows[cur + j] = d;
      if (d < rowMin) rowMin = d;
    }
    rows[cur + hi + 1] = over;
    if (rowMin > bound) return over;
  }
  const d = rows[(n % 3) * w + m];
  return d > bound ? over : d;
}

const scratchA = new Uint16Array(MAX_KEY);
const scratchB = new Uint16Array(MAX_KEY);

function encode(s: string, into: Uint16Array, at: number): number {
  const n = Math.min(s.length, into.length - at);
  for (let i = 0; i < n; i++) into[at + i] = s.charCodeAt(i);
  return n;
}

/** editDistance on two strings (keys longer than 64 characters only equal themselves). */
export function boundedEditDistance(a: string, b: string, bound: number): number {
  if (a.length > MAX_KEY || b.length > MAX_KEY) return a === b ? 0 : bound + 1;
  return editDistance(scratchA, 0, encode(a, scratchA, 0), scratchB, 0, encode(b, scratchB, 0), bound);
}

/**
 * The set of letters of a key as bits (a–z, æ, ø, å, digits, anything else). An edit adds or
 * removes at most two letters of the set, so distance ≥ ⌈|A △ B| / 2⌉: most streets of a postal
 * code are rejected by that in a few instructions.
 */
export function letterSet(key: string): number {
  let set = 0;
  for (let i = 0; i < key.length; i++) set |= letterBit(key.charCodeAt(i));
  return set;
}

/** The bit of one character in a letter set. */
export function letterBit(c: number): number {
  if (c >= 97 && c <= 122) return 1 << (c - 97);
  if (c === 0xe6) return 1 << 26;
  if (c === 0xf8) return 1 << 27;
  if (c === 0xe5) return 1 << 28;
  return c >= 48 && c <= 57 ? 1 << 29 : 1 << 30;
}

export function bitCount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}
