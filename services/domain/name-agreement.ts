import { bitCount, editDistance, letterBit, MAX_KEY } from './edit-distance.ts';
import { dropsFromSkeleton, type FingerprintTable } from './fingerprint-table.ts';
import type { NameTexts } from './name-texts.ts';
import type { NameHashes } from './name.ts';
import { foldedChar } from './normalize.ts';

/**
 * Whether a person's given names or surname agree with a list entry's (docs/matching.md "Names"):
 * exactly (the same word, compared by skeleton), or tolerantly, by one slip in a word of five or
 * more letters or by an initial. Given names and surnames are compared each on their own: a given
 * name never agrees with a surname word, so "Preben Møller-Nielsen" and "Møller-Nielsen, Ida
 * Jette" agree on the surname only.
 *
 * One input at a time (checkPerson reads one person, then scans one or a few buildings): `read`
 * prepares the person's words once, the `*Agreement` functions compare them with one record.
 */

export const NONE = 0;
/** Agrees through a tolerated slip or an initial: the result says so (`match.approximate`). */
export const APPROXIMATE = 1;
export const EXACT = 2;

/** A slip is tolerated in a list word of this many letters or more (its skeleton). */
export const SLIP_MIN_LETTERS = 5;

/**
 * The ids (in the index's name table) of the person's words the list has, per side: given names
 * and possible middle names; surname words and possible middle names; surname words only. Words
 * the list does not have are left out, so the exact comparison loops over known words only.
 */
const givenIds = new Int32Array(40);
let givenIdCount = 0;
const surnameSideIds = new Int32Array(40);
let surnameSideIdCount = 0;
const surnameOnlyIds = new Int32Array(40);
let surnameOnlyIdCount = 0;
let count = 0;
let middleFrom = 0;
let surnameFrom = 0;
/** The person's name as checkPerson read it (readPersonNameHashed): its words' strings are made when asked. */
let hashed: NameHashes | null = null;
let textsReady = false;
const chars = new Uint16Array(40 * MAX_KEY);
const starts = new Int32Array(41);
const letters = new Int32Array(40);

/**
 * Prepares the person's name, read as NameHashes (name.ts readNameHashes, what checkPerson
 * reads), for comparisons against index `names`: each word's id looked up by its hashes, no
 * string made; the words' skeletons, as character codes, only if a tolerant comparison runs
 * (prepareTexts).
 */
export function readPersonNameHashed(name: NameHashes, names: FingerprintTable): void {
  count = name.count;
  middleFrom = name.middleFrom;
  surnameFrom = name.surnameFrom;
  hashed = name;
  givenIdCount = 0;
  surnameSideIdCount = 0;
  surnameOnlyIdCount = 0;
  for (let i = 0; i < count; i++) {
    const id = names.getHashed(name.hashA[i], name.hashB[i]);
    if (id < 0) continue;
    if (i < surnameFrom) givenIds[givenIdCount++] = id;
    if (i >= middleFrom) surnameSideIds[surnameSideIdCount++] = id;
    if (i >= surnameFrom) surnameOnlyIds[surnameOnlyIdCount++] = id;
  }
  textsReady = false;
}

/**
 * The person's words for the tolerant comparison: each word's skeleton (normalize.ts `skeleton` of
 * its fold as `foldedToken` makes it), at most MAX_KEY characters of it, in `chars`, and the
 * letter set of the whole skeleton in `letters`. Written straight from the characters of the
 * name's text, with no string per word (docs/matching.md "Speed of the check path").
 */
function prepareTexts(): void {
  const name = hashed!;
  let used = 0;
  for (let i = 0; i < count; i++) {
    starts[i] = used;
    const text = name.texts[name.field[i]];
    const end = name.end[i];
    let set = 0;
    let kept = 0;
    let previous = -1;
    for (let k = name.start[i]; k < end; k++) {
      const c = text.charCodeAt(k);
      if (c < 128) {
        const f = c >= 65 && c <= 90 ? c + 32 : c;
        if (dropsFromSkeleton(f, previous)) continue;
        previous = f;
        set |= letterBit(f);
        if (kept++ < MAX_KEY) chars[used++] = f;
        continue;
      }
      const fold = foldedChar(c);
      for (let j = 0; j < fold.length; j++) {
        const f = fold.charCodeAt(j);
        if (dropsFromSkeleton(f, previous)) continue;
        previous = f;
        set |= letterBit(f);
        if (kept++ < MAX_KEY) chars[used++] = f;
      }
    }
    letters[i] = set;
  }
  starts[count] = used;
  textsReady = true;
}

/** The person's words as prepareTexts writes them (skeleton, letter set), for tests. */
export function preparedPersonWords(): { words: string[]; letters: number[] } {
  if (!textsReady) prepareTexts();
  const words: string[] = [];
  const sets: number[] = [];
  for (let i = 0; i < count; i++) {
    words.push(String.fromCharCode(...chars.subarray(starts[i], starts[i + 1])));
    sets.push(letters[i]);
  }
  return { words, letters: sets };
}

function anyEqual(records: Int32Array, entryFrom: number, entryTo: number, ids: Int32Array, idCount: number): boolean {
  for (let i = 0; i < idCount; i++) {
    const id = ids[i];
    for (let r = entryFrom; r < entryTo; r++) if (records[r] === id) return true;
  }
  return false;
}

/** One slip (insertion, deletion, substitution, transposition) between person word i and list word w. */
function oneSlip(texts: NameTexts, i: number, w: number): boolean {
  const wFrom = texts.start[w];
  const m = texts.start[w + 1] - wFrom;
  if (m < SLIP_MIN_LETTERS) return false;
  const n = starts[i + 1] - starts[i];
  if (n - m > 1 || m - n > 1) return false;
  // One edit changes at most two letters of the letter set.
  if (bitCount(letters[i] ^ texts.letters[w]) > 2) return false;
  return editDistance(chars, starts[i], n, texts.chars, wFrom, m, 1) <= 1;
}

/**
 * True when the shorter of person word i and list word w is an initial of the other: one letter,
 * or "ae" (æ folded) — "S." for Steen, "Ø." for Østergaard, and a list that writes "A." for Anne.
 */
function initialOf(texts: NameTexts, i: number, w: number): boolean {
  const wFrom = texts.start[w];
  const m = texts.start[w + 1] - wFrom;
  const iFrom = starts[i];
  const n = starts[i + 1] - iFrom;
  const personInitial = n === 1 || (n === 2 && chars[iFrom] === 97 && chars[iFrom + 1] === 101);
  const listInitial = m === 1 || (m === 2 && texts.chars[wFrom] === 97 && texts.chars[wFrom + 1] === 101);
  if (personInitial === listInitial) return false;
  const short = personInitial ? n : m;
  for (let c = 0; c < short; c++) if (chars[iFrom + c] !== texts.chars[wFrom + c]) return false;
  return true;
}

function tolerant(
  texts: NameTexts, records: Int32Array, entryFrom: number, entryTo: number, from: number, to: number, initials: boolean,
): boolean {
  if (!textsReady) prepareTexts();
  for (let i = from; i < to; i++) {
    for (let r = entryFrom; r < entryTo; r++) {
      const w = records[r];
      if (oneSlip(texts, i, w) || (initials && initialOf(texts, i, w))) return true;
    }
  }
  return false;
}

/**
 * How the person's given names agree with the entry whose given-name words are
 * records[entryFrom .. entryTo) (given and middle names): EXACT, APPROXIMATE or NONE.
 * `tolerate` false skips the tolerant comparison (the caller knows it cannot change the level).
 */
export function givenAgreement(
  texts: NameTexts, records: Int32Array, entryFrom: number, entryTo: number, tolerate: boolean,
): number {
  if (anyEqual(records, entryFrom, entryTo, givenIds, givenIdCount)) return EXACT;
  return tolerate && givenTolerant(texts, records, entryFrom, entryTo) ? APPROXIMATE : NONE;
}

/**
 * The tolerant half of givenAgreement alone (a slip or an initial), for a caller that ran the
 * exact half first and asks this only when the answer can still change its result.
 */
export function givenTolerant(texts: NameTexts, records: Int32Array, entryFrom: number, entryTo: number): boolean {
  return tolerant(texts, records, entryFrom, entryTo, 0, surnameFrom, true);
}

/**
 * givenAgreement for the surname, against the entry's possible middle names records[middleFrom ..
 * surnameFrom) and surname words records[surnameFrom .. end). A word that may be a middle name
 * on both sides ("Knud" in "Steen Knud Østergaard" and "Østergaard, Steen Knud") agrees as a given
 * name only: at least one of the two must be a surname word. No initials.
 */
export function surnameAgreement(
  texts: NameTexts, records: Int32Array, entryMiddleFrom: number, entrySurnameFrom: number, entryEnd: number,
  tolerate: boolean,
): number {
  if (anyEqual(records, entrySurnameFrom, entryEnd, surnameSideIds, surnameSideIdCount)) return EXACT;
  if (entryMiddleFrom < entrySurnameFrom && anyEqual(records, entryMiddleFrom, entrySurnameFrom, surnameOnlyIds, surnameOnlyIdCount)) {
    return EXACT;
  }
  if (!tolerate) return NONE;
  return surnameTolerant(texts, records, entryMiddleFrom, entrySurnameFrom, entryEnd) ? APPROXIMATE : NONE;
}

/** The tolerant half of surnameAgreement alone (one slip), as givenTolerant is givenAgreement's. */
export function surnameTolerant(
  texts: NameTexts, records: Int32Array, entryMiddleFrom: number, entrySurnameFrom: number, entryEnd: number,
): boolean {
  return tolerant(texts, records, entrySurnameFrom, entryEnd, middleFrom, count, false) ||
    tolerant(texts, records, entryMiddleFrom, entrySurnameFrom, surnameFrom, count, false);
}
