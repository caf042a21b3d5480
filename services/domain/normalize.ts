/**
 * Text folding shared by names and addresses (docs/decisions.md §1): lower case, diacritics removed,
 * the Danish letters in their two-letter spelling (æ→ae, ø→oe, å→aa), punctuation to spaces,
 * whitespace collapsed. Runs once per input row, so it is a table-driven character loop rather
 * than a chain of regular expressions.
 */
import { isLineEnd, mayStartCareOf } from './care-of.ts';
import { HASH_A0, HASH_B0, dropsFromSkeleton, stepA, stepB } from './fingerprint-table.ts';

/** ' ' marks a separator; anything else is the folded text of that character. */
const SEPARATOR = ' ';

/** Letters whose fold is not "drop the accent". ä/ö/ü follow the German convention so that
 * "Jörgensen" = "Jørgensen" = "Joergensen". */
const SPECIAL: Record<string, string> = {
  æ: 'ae', ø: 'oe', å: 'aa', ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', œ: 'oe', ð: 'd', đ: 'd', þ: 'th',
  ł: 'l', ı: 'i', ŀ: 'l',
};

const TABLE_SIZE = 0x250; // Basic Latin .. Latin Extended-B: every Danish and European name
const table: string[] = new Array(TABLE_SIZE);
for (let code = 0; code < TABLE_SIZE; code++) table[code] = foldSlow(code);
const wideCache = new Map<number, string>();

function foldSlow(code: number): string {
  if (code >= 0xd800 && code <= 0xdfff) return SEPARATOR; // halves of emoji etc.
  const lower = String.fromCharCode(code).toLowerCase();
  const special = SPECIAL[lower];
  if (special !== undefined) return special;
  const bare = lower.normalize('NFD').replace(/\p{M}+/gu, '');
  if (bare === '' || !/^[\p{L}\p{N}]+$/u.test(bare)) return SEPARATOR;
  const again = SPECIAL[bare];
  return again ?? bare;
}

/** The folded text of one UTF-16 code unit: ' ' for a separator. */
function foldChar(code: number): string {
  if (code < TABLE_SIZE) return table[code];
  let folded = wideCache.get(code);
  if (folded === undefined) {
    folded = foldSlow(code);
    if (wideCache.size < 10_000) wideCache.set(code, folded);
  }
  return folded;
}

/** foldChar for readers outside this module: the folded text of one code unit beyond ASCII. */
export function foldedChar(code: number): string {
  return foldChar(code);
}

/** True when every character is an ASCII letter or digit, or a single inner space. */
function isPlainAscii(s: string): boolean {
  let previousSpace = true; // no leading space
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) {
      if (previousSpace) return false;
      previousSpace = true;
    } else if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
      previousSpace = false;
    } else {
      return false;
    }
  }
  return !previousSpace || s.length === 0;
}

/**
 * The text in Unicode NFC: "Å" as one character, not "A" plus a combining ring (NFD, as macOS and
 * some exports write it). Every reader of names and addresses calls this first (docs/matching.md
 * "Normalisation"): folding works a character at a time and would read a combining mark as a
 * separator ("A se" for "Åse"). Characters below U+0300 are never changed by NFC, so the common
 * text costs one scan and no copy.
 */
export function nfc(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x300) return s.normalize('NFC');
  return s;
}

export function normalizeText(s: string): string {
  if (isPlainAscii(s)) return s.toLowerCase(); // the common case, without a per-character rebuild
  s = nfc(s);
  let out = '';
  let pendingSpace = false;
  for (let i = 0; i < s.length; i++) {
    const folded = foldChar(s.charCodeAt(i));
    if (folded === SEPARATOR) {
      pendingSpace = out.length > 0;
    } else {
      if (pendingSpace) { out += ' '; pendingSpace = false; }
      out += folded;
    }
  }
  return out;
}

/**
 * Tokens of a text: maximal runs of letters and digits, folded, with their position in the
 * original text (so that a display form can keep the writer's own spelling). Reuses one buffer:
 * the result is valid until the next call.
 */
export interface Tokens {
  count: number;
  norm: string[];
  start: number[];
  end: number[];
  /**
   * The text held a character from U+0300 on, which NFC may compose with the one before it (`nfc`):
   * a reader that did not make the text NFC first tokenizes `nfc(text)` again (name.ts, address.ts).
   * Costs one compare per character beyond ASCII and spares the scan for the common text.
   */
  wide: boolean;
  /**
   * A line of the text may start with a care-of word (care-of.ts `mayHoldCareOf`, asked in this
   * pass): the address reader blanks care-of lines (`blankCareOfLines`) only then, without a scan
   * of its own (docs/matching.md "Speed of the check path").
   */
  careOf: boolean;
  /**
   * Token i is written as a capitalised word of Latin-1 letters (a capital, then small letters:
   * "Kongevej", "Ø"): what the address echo shows as written (address.ts `isDisplayedAsWritten`),
   * known from this pass instead of a scan of its own (docs/matching.md "Speed of the check path").
   */
  cased: boolean[];
}

const scratch: Tokens = newTokens();

/**
 * Longer inputs are cut: no Danish address or name needs more tokens, and it bounds the work. A
 * cut text has `wide` and `careOf` set, as the rest was not read: the reader asks the slow way.
 */
const MAX_TOKENS = 40;

/**
 * Classes of the code units below TABLE_SIZE for tokenize: one load per character instead of
 * range tests and a compare of the folded string (docs/matching.md "Speed of the check path").
 */
const LETTER = 1;
const LOWER = 2; // a Latin-1 small letter (address.ts isLowerLatin1)
const UPPER = 4; // a Latin-1 capital (address.ts isUpperLatin1)
const classes = new Uint8Array(TABLE_SIZE);
for (let c = 0; c < TABLE_SIZE; c++) {
  let k = table[c] !== SEPARATOR ? LETTER : 0;
  if ((c >= 97 && c <= 122) || (c >= 0xdf && c <= 0xff && c !== 0xf7)) k |= LOWER;
  if ((c >= 65 && c <= 90) || (c >= 0xc0 && c <= 0xde && c !== 0xd7)) k |= UPPER;
  classes[c] = k;
}

export function tokenize(s: string, into: Tokens = scratch): Tokens {
  let count = 0;
  let start = -1;
  // A token of ASCII letters and digits only is sliced and lower-cased in one go; any other
  // character switches the token to folding character by character.
  let ascii = true;
  let cased = false;
  let wide = false;
  let careOf = false;
  let lineStart = true; // at a line's start (care-of.ts isLineEnd), before its first visible character
  const length = s.length;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? s.charCodeAt(i) : 32;
    let k: number;
    if (c < TABLE_SIZE) k = classes[c];
    else {
      if (c >= 0x300) wide = true;
      k = foldChar(c) !== SEPARATOR ? LETTER : 0;
    }
    if (k !== 0) {
      if (start < 0) {
        start = i;
        ascii = c < 128;
        cased = (k & UPPER) !== 0;
        if (lineStart) {
          lineStart = false;
          if (mayStartCareOf(s, i, c)) careOf = true;
        }
      } else {
        if (c >= 128) ascii = false;
        if ((k & LOWER) === 0) cased = false;
      }
      continue;
    }
    if (isLineEnd(c)) lineStart = true;
    else if (lineStart && c > 32 && c !== 0xa0) {
      lineStart = false;
      if (c >= 0x1680) careOf = true; // "℅", or whitespace as \s knows it (care-of.ts mayHoldCareOf)
    }
    if (start >= 0) {
      into.norm[count] = ascii ? s.slice(start, i).toLowerCase() : foldRange(s, start, i);
      into.start[count] = start;
      into.end[count] = i;
      into.cased[count] = cased;
      count++;
      start = -1;
      if (count === MAX_TOKENS) {
        wide = true;
        careOf = true;
        break;
      }
    }
  }
  into.count = count;
  into.wide = wide;
  into.careOf = careOf;
  return into;
}

/** The fold of a token with characters beyond ASCII: its ASCII runs lower-cased a run at a time. */
function foldRange(s: string, from: number, to: number): string {
  let out = '';
  let run = from;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) continue; // a letter or digit: tokens hold nothing else
    if (i > run) out += s.slice(run, i).toLowerCase();
    out += foldChar(c);
    run = i + 1;
  }
  return to > run ? out + s.slice(run, to).toLowerCase() : out;
}

/**
 * The tokens of a name as the check reads them (name.ts `readNameHashes`): each token's place and
 * the running hashes of its fold (fingerprint-table.ts `getHashed`), not its string: a check looks
 * a name's words up by fingerprint, and a tolerant comparison reads a word's characters from the
 * text (name-agreement.ts prepareTexts; docs/matching.md "Speed of the check path").
 */
export interface HashedTokens {
  count: number;
  start: Int32Array;
  end: Int32Array;
  hashA: Int32Array;
  hashB: Int32Array;
  /** As Tokens.wide: the text may change under NFC, or was cut at MAX_TOKENS. */
  wide: boolean;
}

export function newHashedTokens(): HashedTokens {
  return {
    count: 0, start: new Int32Array(MAX_TOKENS), end: new Int32Array(MAX_TOKENS), hashA: new Int32Array(MAX_TOKENS),
    hashB: new Int32Array(MAX_TOKENS), wide: false,
  };
}

/**
 * `tokenize` of `s` (the same tokens, the same `wide`), each token's fold fed through the
 * fingerprint's hashes as it is read: hashA/hashB are those `fingerprint(tokenize(s).norm[i])`
 * starts its final mix from (fingerprint-table.ts). No string is made.
 */
export function tokenizeHashed(s: string, into: HashedTokens): HashedTokens {
  let count = 0;
  let start = -1;
  let wide = false;
  let a = 0;
  let b = 0;
  let previous = -1;
  const length = s.length;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? s.charCodeAt(i) : 32;
    if (c < 128) {
      if ((classes[c] & LETTER) !== 0) {
        if (start < 0) {
          start = i;
          a = HASH_A0;
          b = HASH_B0;
          previous = -1;
        }
        const folded = c >= 65 && c <= 90 ? c + 32 : c;
        if (!dropsFromSkeleton(folded, previous)) {
          previous = folded;
          a = stepA(a, folded);
          b = stepB(b, folded);
        }
        continue;
      }
    } else {
      if (c >= 0x300) wide = true;
      const fold = foldChar(c);
      if (fold !== SEPARATOR) {
        if (start < 0) {
          start = i;
          a = HASH_A0;
          b = HASH_B0;
          previous = -1;
        }
        for (let k = 0; k < fold.length; k++) {
          const f = fold.charCodeAt(k);
          if (dropsFromSkeleton(f, previous)) continue;
          previous = f;
          a = stepA(a, f);
          b = stepB(b, f);
        }
        continue;
      }
    }
    if (start >= 0) {
      into.start[count] = start;
      into.end[count] = i;
      into.hashA[count] = a;
      into.hashB[count] = b;
      count++;
      start = -1;
      if (count === MAX_TOKENS) {
        wide = true;
        break;
      }
    }
  }
  into.count = count;
  into.wide = wide;
  return into;
}

/** The fold of the token s[from, to) as `tokenize` makes it (its `norm`). */
export function foldedToken(s: string, from: number, to: number): string {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) >= 128) return foldRange(s, from, to);
  return s.slice(from, to).toLowerCase();
}

export function newTokens(): Tokens {
  return { count: 0, norm: [], start: [], end: [], wide: false, careOf: false, cased: [] };
}

/**
 * The comparison key of a folded word: also equal when a system wrote the Danish letters without
 * their second letter (ø→o, å→a instead of oe, aa), so "Sorensen" = "Sørensen" = "Soerensen".
 * Rule: an "e" right after a kept "o", and an "a" right after a kept "a", are dropped. Beyond
 * docs/decisions.md §1 (which only asks ø = oe, å = aa); it only adds equalities. The fingerprint of
 * building keys (fingerprint-table.ts) applies the same rule while hashing.
 */
export function skeleton(word: string): string {
  let from = -1;
  for (let i = 1; i < word.length; i++) {
    const c = word.charCodeAt(i);
    const p = word.charCodeAt(i - 1);
    if ((c === 101 && p === 111) || (c === 97 && p === 97)) { from = i; break; }
  }
  if (from < 0) return word;
  let out = word.slice(0, from);
  let previous = word.charCodeAt(from - 1);
  for (let i = from; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if ((c === 101 && previous === 111) || (c === 97 && previous === 97)) continue;
    out += word[i];
    previous = c;
  }
  return out;
}
