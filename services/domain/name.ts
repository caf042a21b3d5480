import {
  foldedToken, newHashedTokens, newTokens, nfc, tokenize, tokenizeHashed, type HashedTokens, type Tokens,
} from './normalize.ts';
import type { ListEntry, PersonInput } from './types.ts';

/**
 * A name as the contract's level table sees it: normalised given names (first and middle names, in
 * order) and one normalised surname (the last word). `surname` is '' only when the caller gave a
 * first name and nothing else. Matching itself reads the finer NameWords below; this shape is the
 * one previous-address derivation and test mode key on.
 */
export interface ParsedName {
  given: string[];
  surname: string;
}

/**
 * A name read into storage the caller reuses (checkPerson reads one per input), its words in
 * three runs (docs/matching.md "Names"): words[0 .. middleFrom) are given names for certain,
 * words[middleFrom .. surnameFrom) could be either a middle name or part of the surname (Danish
 * middle names are surnames by origin, and people write them both ways), words[surnameFrom ..
 * count) are surname words for certain. Given names are compared on words[0 .. surnameFrom),
 * surnames on words[middleFrom .. count): each side on its own. The array is longer after a
 * longer name.
 */
export interface NameWords {
  words: string[];
  count: number;
  middleFrom: number;
  surnameFrom: number;
}

export function newNameWords(): NameWords {
  return { words: [], count: 0, middleFrom: 0, surnameFrom: 0 };
}

const first = newTokens();
const second = newTokens();

/** The text wordsOf read last (the NFC form when it differs): token positions are positions in it. */
let readText = '';

/** The folded words of a text in `into` (the words of normalizeText); their count. */
function wordsOf(text: unknown, into: Tokens): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  readText = text;
  const t = tokenize(text, into);
  if (!t.wide) return t.count;
  readText = nfc(text); // NFC only when it may change something
  return tokenize(readText, into).count;
}

/** Appends tokens [from, to) of `tokens` to `out`. */
function append(out: NameWords, tokens: Tokens, from: number, to: number): void {
  for (let i = from; i < to; i++) out.words[out.count++] = tokens.norm[i];
}

/**
 * Given-name words `given[from, to)`: the first is a given name, the rest may be middle names
 * (a first_name field "Anne Møller", the part after a comma "Hansen, Anne Møller").
 */
function putGiven(out: NameWords, given: Tokens, from: number, to: number): void {
  out.count = 0;
  append(out, given, from, Math.min(from + 1, to));
  out.middleFrom = out.count;
  append(out, given, from + 1, to);
  out.surnameFrom = out.count;
}

/** Token places, of Tokens or HashedTokens. */
interface Places {
  start: ArrayLike<number>;
  end: ArrayLike<number>;
}

/** True when the text between tokens i-1 and i of `text` is a hyphen alone ("Holm-Jensen"). */
function hyphenBefore(text: string, tokens: Places, i: number): boolean {
  return tokens.end[i - 1] + 1 === tokens.start[i] && text.charCodeAt(tokens.end[i - 1]) === 45;
}

/**
 * A name written given names first, without a comma ("Steen Knud Østergaard", "Anne-Marie
 * Holm-Jensen"): the first hyphenated group is given names, the last one the surname, the words
 * between may be middle names or surname words. One word alone is a surname.
 */
function putNameFirst(out: NameWords, text: string, tokens: Tokens, count: number): void {
  out.count = 0;
  let surnameStart = count - 1;
  while (surnameStart > 1 && hyphenBefore(text, tokens, surnameStart)) surnameStart--;
  let givenEnd = 1;
  while (givenEnd < surnameStart && hyphenBefore(text, tokens, givenEnd)) givenEnd++;
  if (count === 1) givenEnd = 0;
  append(out, tokens, 0, givenEnd);
  out.middleFrom = out.count;
  append(out, tokens, givenEnd, surnameStart);
  out.surnameFrom = out.count;
  append(out, tokens, surnameStart, count);
}

/**
 * Reads the name of a person or list entry into `out`; false when there is none. `last_name`
 * (with `first_name`) wins over `name` (it is the more structured input); without a last name,
 * `name` ("Anne Hansen", or surname first: "Hansen, Anne" and the CPR file's "Hansen,Anne");
 * with neither, a lone `first_name` gives given names and no surname.
 */
export function readNameInto(person: PersonInput | ListEntry, out: NameWords): boolean {
  if (person === null || typeof person !== 'object') return false;
  const surnames = wordsOf(person.last_name, first);
  if (surnames > 0) {
    putGiven(out, second, 0, wordsOf(person.first_name, second));
    append(out, first, 0, surnames);
    return true;
  }
  const name = person.name;
  const count = wordsOf(name, first);
  if (count > 0) {
    const read = readText;
    const comma = read.indexOf(',');
    // The words before the comma are the surname words ("Hansen, Anne").
    let beforeComma = 0;
    if (comma >= 0) while (beforeComma < count && first.start[beforeComma] < comma) beforeComma++;
    if (beforeComma > 0) {
      putGiven(out, first, beforeComma, count);
      append(out, first, 0, beforeComma);
    } else {
      putNameFirst(out, read, first, count); // no comma, or nothing before it (", Anne Hansen")
    }
    return true;
  }
  const given = wordsOf(person.first_name, second);
  if (given === 0) return false;
  putGiven(out, second, 0, given);
  return true;
}

/**
 * The name `words` holds in the contract's shape: the last word is the surname when there are
 * surname words, every other word a given name.
 */
export function toParsedName(words: NameWords): ParsedName {
  const hasSurname = words.surnameFrom < words.count;
  const givenEnd = hasSurname ? words.count - 1 : words.count;
  return { given: words.words.slice(0, givenEnd), surname: hasSurname ? words.words[words.count - 1] : '' };
}

const scratch: NameWords = newNameWords();

/** The name of a person or list entry (readNameInto as its own object), or null when there is none. */
export function parseName(person: PersonInput | ListEntry): ParsedName | null {
  return readNameInto(person, scratch) ? toParsedName(scratch) : null;
}

/** The name of a person or list entry in its three runs, as its own object; null when there is none. */
export function parseNameWords(person: PersonInput | ListEntry): NameWords | null {
  const out = newNameWords();
  if (!readNameInto(person, out)) return null;
  out.words.length = out.count;
  return out;
}

/**
 * A name as checkPerson reads it: the words of NameWords in the same three runs, each as the
 * hashes of its fold (normalize.ts `tokenizeHashed`) for the look-up of its id by fingerprint, and
 * as its place in the field it came from; a tolerant comparison reads its characters there
 * (name-agreement.ts prepareTexts), and `wordOf` makes its string. Storage the caller reuses (docs/matching.md "Speed of the check path").
 */
export interface NameHashes {
  count: number;
  middleFrom: number;
  surnameFrom: number;
  hashA: Int32Array;
  hashB: Int32Array;
  /** Word i is texts[field[i]] from start[i] to end[i]. */
  field: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  texts: string[];
}

/** Two fields of at most 40 tokens each (normalize.ts MAX_TOKENS). */
const MAX_WORDS = 80;

export function newNameHashes(): NameHashes {
  return {
    count: 0, middleFrom: 0, surnameFrom: 0, hashA: new Int32Array(MAX_WORDS), hashB: new Int32Array(MAX_WORDS),
    field: new Uint8Array(MAX_WORDS), start: new Int32Array(MAX_WORDS), end: new Int32Array(MAX_WORDS), texts: ['', ''],
  };
}

/** The fold of word i of `name`: what readNameInto puts in NameWords.words for it. */
export function wordOf(name: NameHashes, i: number): string {
  return foldedToken(name.texts[name.field[i]], name.start[i], name.end[i]);
}

const firstHashed = newHashedTokens();
const secondHashed = newHashedTokens();
/** The text hashedWordsOf read last (the NFC form when it differs), as readText for wordsOf. */
let hashedText = '';

/** wordsOf without the words' strings. */
function hashedWordsOf(text: unknown, into: HashedTokens): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  hashedText = text;
  const t = tokenizeHashed(text, into);
  if (!t.wide) return t.count;
  hashedText = nfc(text);
  return tokenizeHashed(hashedText, into).count;
}

/** append for NameHashes: tokens [from, to) of field `field` (0: `firstHashed`, 1: `secondHashed`). */
function appendHashed(out: NameHashes, tokens: HashedTokens, field: number, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const n = out.count++;
    out.hashA[n] = tokens.hashA[i];
    out.hashB[n] = tokens.hashB[i];
    out.field[n] = field;
    out.start[n] = tokens.start[i];
    out.end[n] = tokens.end[i];
  }
}

/** putGiven for NameHashes. */
function putGivenHashed(out: NameHashes, given: HashedTokens, field: number, from: number, to: number): void {
  out.count = 0;
  appendHashed(out, given, field, from, Math.min(from + 1, to));
  out.middleFrom = out.count;
  appendHashed(out, given, field, from + 1, to);
  out.surnameFrom = out.count;
}

/** putNameFirst for NameHashes. */
function putNameFirstHashed(out: NameHashes, text: string, tokens: HashedTokens, count: number): void {
  out.count = 0;
  let surnameStart = count - 1;
  while (surnameStart > 1 && hyphenBefore(text, tokens, surnameStart)) surnameStart--;
  let givenEnd = 1;
  while (givenEnd < surnameStart && hyphenBefore(text, tokens, givenEnd)) givenEnd++;
  if (count === 1) givenEnd = 0;
  appendHashed(out, tokens, 0, 0, givenEnd);
  out.middleFrom = out.count;
  appendHashed(out, tokens, 0, givenEnd, surnameStart);
  out.surnameFrom = out.count;
  appendHashed(out, tokens, 0, surnameStart, count);
}

/**
 * readNameInto for checkPerson: the same words in the same runs (test/unit/domain/name-hashes.test.ts
 * compares the two), as NameHashes. False when there is no name.
 */
export function readNameHashes(person: PersonInput | ListEntry, out: NameHashes): boolean {
  if (person === null || typeof person !== 'object') return false;
  const surnames = hashedWordsOf(person.last_name, firstHashed);
  if (surnames > 0) {
    out.texts[0] = hashedText;
    const given = hashedWordsOf(person.first_name, secondHashed);
    out.texts[1] = hashedText;
    putGivenHashed(out, secondHashed, 1, 0, given);
    appendHashed(out, firstHashed, 0, 0, surnames);
    return true;
  }
  const count = hashedWordsOf(person.name, firstHashed);
  if (count > 0) {
    const read = hashedText;
    out.texts[0] = read;
    const comma = read.indexOf(',');
    let beforeComma = 0;
    if (comma >= 0) while (beforeComma < count && firstHashed.start[beforeComma] < comma) beforeComma++;
    if (beforeComma > 0) {
      putGivenHashed(out, firstHashed, 0, beforeComma, count);
      appendHashed(out, firstHashed, 0, 0, beforeComma);
    } else {
      putNameFirstHashed(out, read, firstHashed, count);
    }
    return true;
  }
  const given = hashedWordsOf(person.first_name, secondHashed);
  if (given === 0) return false;
  out.texts[1] = hashedText;
  putGivenHashed(out, secondHashed, 1, 0, given);
  return true;
}
