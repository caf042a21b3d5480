import { createFingerprintTable, type FingerprintTable } from './fingerprint-table.ts';
import {
  MAX_KEY, bitCount, editDistance, letterBit, letterSet,
} from './edit-distance.ts';
import { skeleton } from './normalize.ts';

/**
 * The streets of a list by postal code, for the fuzzy street fallback (docs/decisions.md §13 "corrected":
 * house number, floor, door and postal code agree exactly, the street is within a small edit
 * distance and is the closest street of that postal code). Without an address register the
 * streets known are those of the list, so "closest street of the postal code" means closest among
 * the list's streets there. Streets are interned once (skeleton key + one display spelling); a
 * postal code holds a sorted Int32Array of street ids. At national size that is some 100,000
 * (postal code, street) pairs and fewer distinct streets: a few MB.
 */
export interface StreetIndex {
  /** Skeleton street key ("vestergade", "norregade") of each street id. */
  readonly keys: readonly string[];
  /** The street as the list writes it ("Nørregade"), for `formatted` of a corrected address. */
  readonly displays: readonly string[];
  /** Folded street key → id; skeleton-equal keys are one street (fingerprint-table.ts). */
  readonly ids: Pick<FingerprintTable, 'get' | 'size'>;
  /** Postal code → its streets. */
  readonly byPostal: ReadonlyMap<string, PostalStreets>;
  /** 1 for an id added for a street's words (`add`'s `words`), not its key. */
  readonly wordsEntry: Uint8Array;
  /**
   * The three spellings of each street (see SPELLINGS) as character codes, one after the other:
   * the distance is computed on typed arrays, not on strings (a string built by concatenation is
   * slow to index character by character).
   */
  readonly codes: Uint16Array;
  /** SUMMARY numbers per street id: for each spelling its letter set, start in `codes` and length. */
  readonly summaries: Int32Array;
}

/**
 * The street ids of one postal code ordered by the length of their first spelling, then by id;
 * the streets of length L are ids[from[L] .. from[L + 1]). A scan reads only the lengths that can
 * be within the distance.
 */
export interface PostalStreets {
  ids: Int32Array;
  from: Int32Array;
  /** The most a street's folded spelling is longer than its first (its Danish letters). */
  slack: number;
}

/**
 * A customer may write ø as "ø", "oe" or "o": the distance is the least over three spellings of
 * the street, so that one slip of the keyboard is one edit in at least one of them. 0: Danish
 * letters as one letter each ("nørregade"), 1: folded ("noerregade"), 2: skeleton ("norregade").
 */
const SPELLINGS = 3;
/** [set, start, length] per spelling, then 1 when the spellings differ, then maxStreetDistance. */
const SUMMARY = 3 * SPELLINGS + 2;

export interface StreetIndexBuilder {
  /**
   * `streetKey` as in ParsedAddress (folded, no spaces); called once per new building is enough.
   * `words` (ParsedAddress.street), when given, is also compared in its own spelling: the key
   * holds word classes ("Sankt" → "store", address-words.ts), and a slip in such a word ("Sant
   * Pauls Gade") is one edit from the words, not from the key. It finds the same key.
   */
  add(streetKey: string, display: string, postalCode: string, words?: string | null): void;
  build(): StreetIndex;
}

function spellingsOf(streetKey: string): [string, string, string] {
  return [lettersOf(streetKey), streetKey, skeleton(streetKey)];
}

export function createStreetIndexBuilder(): StreetIndexBuilder {
  const keys: string[] = [];
  const folded: string[] = [];
  const displays: string[] = [];
  const fromWords: number[] = [];
  const ids = createFingerprintTable(1 << 10);
  const postal = new Map<string, Set<number>>();
  return {
    add(streetKey: string, display: string, postalCode: string, words?: string | null): void {
      let streets = postal.get(postalCode);
      if (streets === undefined) {
        streets = new Set();
        postal.set(postalCode, streets);
      }
      const put = (spelling: string, isWords: number): void => {
        const id = ids.intern(spelling);
        if (id === keys.length) {
          keys.push(skeleton(streetKey));
          folded.push(spelling);
          displays.push(display);
          fromWords.push(isWords);
        }
        streets.add(id);
      };
      put(streetKey, 0);
      const written = words === undefined || words === null ? streetKey : words.replace(/ /g, '');
      if (written !== streetKey) put(written, 1);
    },
    build(): StreetIndex {
      const spellings = folded.map(spellingsOf);
      const lengthOf = (id: number): number => Math.min(spellings[id][0].length, MAX_KEY);
      const byPostal = new Map<string, PostalStreets>();
      for (const [code, streets] of postal) {
        const ids = Int32Array.from(streets).sort((a, b) => lengthOf(a) - lengthOf(b) || a - b);
        const from = new Int32Array(MAX_KEY + 2);
        for (let length = 0, i = 0; length <= MAX_KEY + 1; length++) {
          while (i < ids.length && lengthOf(ids[i]) < length) i++;
          from[length] = i;
        }
        let slack = 0;
        for (const id of streets) slack = Math.max(slack, spellings[id][1].length - spellings[id][0].length);
        byPostal.set(code, { ids, from, slack });
      }
      let total = 0;
      for (const three of spellings) for (const spelling of three) total += spelling.length;
      const codes = new Uint16Array(total);
      const summaries = new Int32Array(SUMMARY * keys.length);
      let at = 0;
      for (let id = 0; id < keys.length; id++) {
        const o = SUMMARY * id;
        for (let k = 0; k < SPELLINGS; k++) {
          const spelling = spellings[id][k];
          summaries[o + 3 * k] = letterSet(spelling);
          summaries[o + 3 * k + 1] = at;
          summaries[o + 3 * k + 2] = spelling.length;
          for (let c = 0; c < spelling.length; c++) codes[at++] = spelling.charCodeAt(c);
        }
        summaries[o + 3 * SPELLINGS] = spellings[id][0] === spellings[id][1] ? 0 : 1;
        summaries[o + 3 * SPELLINGS + 1] = maxStreetDistance(spellings[id][0].length);
      }
      return { keys, displays, ids, byPostal, codes, summaries, wordsEntry: Uint8Array.from(fromWords) };
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

export const MIN_FUZZY_LENGTH = 4;
export const TWO_EDITS_LENGTH = 15;

/**
 * The largest edit distance accepted between two street keys, by the length of the shorter
 * (Danish letters as one letter each, no spaces). Chosen with the false-positive measurements
 * (docs/matching.md): under 4 letters one slip is another plausible street; two edits are allowed
 * only from 15 letters, as shorter compounds differ in two letters of their ending ("Hasselbakken"
 * / "Hasselparken"): from 12 letters on, a third more people on unknown streets were corrected.
 */
export function maxStreetDistance(length: number): number {
  return length < MIN_FUZZY_LENGTH ? 0 : length < TWO_EDITS_LENGTH ? 1 : 2;
}

/** Whether ids[lo, hi] (sorted) holds id. */
function contains(sorted: Int32Array, lo: number, hi: number, id: number): boolean {
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid];
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

const input = new Uint16Array(SPELLINGS * MAX_KEY);
const inputLength = new Int32Array(SPELLINGS);
const inputSet = new Int32Array(SPELLINGS);

/**
 * The three spellings of a folded street key (≤ MAX_KEY characters) into `input`, their lengths
 * and letter sets into inputLength/inputSet, in one pass over the string (no strings built: this
 * runs for every row whose building is not in the index).
 */
function encodeSpellings(folded: string): void {
  const n = folded.length;
  let l = 0;
  let f = MAX_KEY;
  let s = 2 * MAX_KEY;
  let setL = 0;
  let setF = 0;
  let setS = 0;
  let keptS = -1;
  for (let i = 0; i < n; i++) {
    const c = folded.charCodeAt(i);
    input[f++] = c;
    setF |= letterBit(c);
    if (!((c === 101 && keptS === 111) || (c === 97 && keptS === 97))) { // skeleton: see normalize.ts
      input[s++] = c;
      setS |= letterBit(c);
      keptS = c;
    }
  }
  for (let i = 0; i < n; i++) {
    const c = folded.charCodeAt(i);
    const next = i + 1 < n ? folded.charCodeAt(i + 1) : 0;
    let letter = c;
    if (c === 97 && next === 101) letter = 0xe6; // ae → æ
    else if (c === 111 && next === 101) letter = 0xf8; // oe → ø
    else if (c === 97 && next === 97) letter = 0xe5; // aa → å
    if (letter !== c) i++;
    input[l++] = letter;
    setL |= letterBit(letter);
  }
  inputLength[0] = l;
  inputLength[1] = f - MAX_KEY;
  inputLength[2] = s - 2 * MAX_KEY;
  inputSet[0] = setL;
  inputSet[1] = setF;
  inputSet[2] = setS;
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
  const postal = streets.byPostal.get(postalCode);
  if (postal === undefined || streetKey.length > MAX_KEY) return 0;
  const { ids: candidates, from, slack } = postal;
  const { summaries, codes } = streets;
  const own = streets.ids.get(streetKey);
  if (own >= 0) {
    const ownLength = Math.min(summaries[SUMMARY * own + 2], MAX_KEY);
    if (contains(candidates, from[ownLength], from[ownLength + 1] - 1, own)) {
      if (streets.wordsEntry[own] === 0) return 0;
      // Written as a street's words, not its key ("Saankt Annæ Plads" has the skeleton of "Sankt
      // Annæ Plads", whose key is "storeannaeplads"): that street, at distance 0.
      into[0] = own;
      return 1;
    }
  }
  encodeSpellings(streetKey);
  const length = inputLength[0];
  const maxDistance = maxStreetDistance(length);
  if (maxDistance === 0) return 0;
  const set0 = inputSet[0];
  const set1 = inputSet[1];
  const set2 = inputSet[2];
  const length1 = inputLength[1];
  const length2 = inputLength[2];
  const inputHasDanishLetter = length !== length1;
  let best = maxDistance + 1;
  let count = 0;
  // Lengths (of the first spelling) that can be within maxDistance in one of the three spellings:
  // the first is the shortest spelling, the folded the longest, the skeleton in between.
  const shortest = Math.max(0, Math.min(length, length2 - slack) - maxDistance);
  const end = from[Math.min(length1 + maxDistance + 1, MAX_KEY + 1)];
  for (let i = from[shortest]; i < end; i++) {
    const id = candidates[i];
    const o = SUMMARY * id;
    // maxStreetDistance of the shorter street: the function grows with the length.
    const streetMax = summaries[o + 3 * SPELLINGS + 1];
    const bound = best < streetMax ? (best < maxDistance ? best : maxDistance) : streetMax < maxDistance ? streetMax : maxDistance;
    const limit = 2 * bound; // see letterSet
    let d = bound + 1;
    if (bitCount(set0 ^ summaries[o]) <= limit) {
      d = editDistance(input, 0, length, codes, summaries[o + 1], summaries[o + 2], bound);
    }
    // The folded and skeleton spellings only differ from the first when a Danish letter is in it.
    // No spelling can give 0 (equal spellings mean equal skeletons: the own street, handled
    // above), so 1 needs no second look.
    if (d > 1 && (inputHasDanishLetter || summaries[o + 3 * SPELLINGS] !== 0)) {
      if (bitCount(set1 ^ summaries[o + 3]) <= limit) {
        const e = editDistance(input, MAX_KEY, length1, codes, summaries[o + 4], summaries[o + 5], bound);
        if (e < d) d = e;
      }
      if (d > 1 && bitCount(set2 ^ summaries[o + 6]) <= limit) {
        const e = editDistance(input, 2 * MAX_KEY, length2, codes, summaries[o + 7], summaries[o + 8], bound);
        if (e < d) d = e;
      }
    }
    if (d > bound) continue;
    if (d < best) {
      best = d;
      count = 0;
    }
    into[count++] = id;
  }
  return count;
}
