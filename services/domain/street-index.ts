import { skeleton } from './normalize.ts';

/**
 * The streets of a list by postal code, for the fuzzy street fallback (DECISIONS §13 "corrected":
 * house number, floor, door and postal code agree exactly, the street is within a small edit
 * distance and is the closest street of that postal code). Without an address register the
 * streets known are those of the list, so "closest street of the postal code" means closest among
 * the list's streets there. Streets are interned once (skeleton key + one display spelling); a
 * postal code holds a sorted Int32Array of street ids. At national size that is some 100,000
 * (postal code, street) pairs: a few MB.
 */
export interface StreetIndex {
  /** Skeleton street key ("vestergade", "norregade") of each street id. */
  readonly keys: readonly string[];
  /** The folded street key ("noerregade") and the letters as written ("nørregade"), by id. */
  readonly folded: readonly string[];
  readonly letters: readonly string[];
  /** The street as the list writes it ("Nørregade"), for `formatted` of a corrected address. */
  readonly displays: readonly string[];
  readonly ids: ReadonlyMap<string, number>;
  /** Postal code → sorted street ids. */
  readonly byPostal: ReadonlyMap<string, Int32Array>;
}

export interface StreetIndexBuilder {
  /** `streetKey` as in ParsedAddress (folded, no spaces); called once per new building is enough. */
  add(streetKey: string, display: string, postalCode: string): void;
  build(): StreetIndex;
}

export function createStreetIndexBuilder(): StreetIndexBuilder {
  const keys: string[] = [];
  const folded: string[] = [];
  const letters: string[] = [];
  const displays: string[] = [];
  const ids = new Map<string, number>();
  const postal = new Map<string, Set<number>>();
  return {
    add(streetKey: string, display: string, postalCode: string): void {
      const key = skeleton(streetKey);
      let id = ids.get(key);
      if (id === undefined) {
        id = keys.length;
        ids.set(key, id);
        keys.push(key);
        folded.push(streetKey);
        letters.push(lettersOf(streetKey));
        displays.push(display);
      }
      let streets = postal.get(postalCode);
      if (streets === undefined) postal.set(postalCode, (streets = new Set()));
      streets.add(id);
    },
    build(): StreetIndex {
      const byPostal = new Map<string, Int32Array>();
      for (const [code, streets] of postal) byPostal.set(code, Int32Array.from(streets).sort());
      return { keys, folded, letters, displays, ids, byPostal };
    },
  };
}

/**
 * The folded key with the Danish letters back as one letter each ("noerregade" → "nørregade"): a
 * slip of the keyboard on "ø" is one edit here, two in the folded key. Used with the folded key
 * and the skeleton, as a customer may have written ø, oe or o (see closestStreets).
 */
export function lettersOf(folded: string): string {
  let at = -1;
  for (let i = 1; i < folded.length && at < 0; i++) if (danishLetter(folded.charCodeAt(i - 1), folded.charCodeAt(i)) !== '') at = i - 1;
  if (at < 0) return folded;
  let out = folded.slice(0, at);
  for (let i = at; i < folded.length; i++) {
    const letter = i + 1 < folded.length ? danishLetter(folded.charCodeAt(i), folded.charCodeAt(i + 1)) : '';
    if (letter === '') out += folded[i];
    else {
      out += letter;
      i++;
    }
  }
  return out;
}

function danishLetter(first: number, second: number): string {
  if (first === 97 && second === 101) return 'æ'; // ae
  if (first === 111 && second === 101) return 'ø'; // oe
  if (first === 97 && second === 97) return 'å'; // aa
  return '';
}

/**
 * The largest edit distance accepted between two street keys, by the length of the shorter
 * (Danish letters as one letter each, no spaces). Chosen with the measurements of the
 * matching-quality test (docs/matching.md): under 4 letters one slip is another plausible street,
 * from 12 letters two slips still leave the street recognisable.
 */
export function maxStreetDistance(length: number): number {
  return length < MIN_FUZZY_LENGTH ? 0 : length < TWO_EDITS_LENGTH ? 1 : 2;
}
export const MIN_FUZZY_LENGTH = 4;
export const TWO_EDITS_LENGTH = 12;

const MAX_KEY = 64;
const rows = new Int32Array(3 * (MAX_KEY + 1));

/**
 * Damerau-Levenshtein distance (optimal string alignment: one swap of neighbours counts 1) of a
 * and b, or `bound + 1` as soon as it is certain to exceed `bound`.
 */
export function boundedEditDistance(a: string, b: string, bound: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > bound) return bound + 1;
  if (n > MAX_KEY || m > MAX_KEY) return a === b ? 0 : bound + 1;
  const w = m + 1;
  // Rows i-2, i-1, i live at offsets ((i + k) % 3) * w.
  for (let j = 0; j <= m; j++) rows[j] = j;
  for (let i = 1; i <= n; i++) {
    const cur = (i % 3) * w;
    const prev = ((i - 1) % 3) * w;
    const prev2 = ((i + 1) % 3) * w; // (i - 2) % 3
    const ca = a.charCodeAt(i - 1);
    rows[cur] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let d = rows[prev + j - 1] + cost;
      const del = rows[prev + j] + 1;
      const ins = rows[cur + j - 1] + 1;
      if (del < d) d = del;
      if (ins < d) d = ins;
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        const swap = rows[prev2 + j - 2] + 1;
        if (swap < d) d = swap;
      }
      rows[cur + j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > bound) return bound + 1;
  }
  const d = rows[(n % 3) * w + m];
  return d > bound ? bound + 1 : d;
}

function contains(sorted: Int32Array, id: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid];
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The streets of `postalCode` closest to `streetKey` (folded, no spaces) within the accepted
 * distance, written to `into`; returns how many (0 when the street is itself a street of the
 * postal code: there is nothing to correct). Several means a tie the caller must settle.
 * The distance is the least over three spellings of the Danish letters (one letter "ø", folded
 * "oe", skeleton "o"): one slip of the keyboard is one edit in at least one of them, whichever
 * way the customer wrote ø, æ and å.
 */
export function closestStreets(streets: StreetIndex, streetKey: string, postalCode: string, into: number[]): number {
  const candidates = streets.byPostal.get(postalCode);
  if (candidates === undefined) return 0;
  const key = skeleton(streetKey);
  const own = streets.ids.get(key);
  if (own !== undefined && contains(candidates, own)) return 0;
  const letters = lettersOf(streetKey);
  if (maxStreetDistance(letters.length) === 0) return 0;
  let best = maxStreetDistance(letters.length) + 1;
  let count = 0;
  for (let i = 0; i < candidates.length; i++) {
    const id = candidates[i];
    const otherLetters = streets.letters[id];
    const bound = Math.min(best, maxStreetDistance(Math.min(letters.length, otherLetters.length)));
    let d = boundedEditDistance(letters, otherLetters, bound);
    if (d > 0) d = Math.min(d, boundedEditDistance(streetKey, streets.folded[id], bound));
    if (d > 0) d = Math.min(d, boundedEditDistance(key, streets.keys[id], bound));
    if (d > bound) continue;
    if (d < best) {
      best = d;
      count = 0;
    }
    into[count++] = id;
  }
  return count;
}
