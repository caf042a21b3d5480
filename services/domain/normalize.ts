/**
 * Text folding shared by names and addresses (DECISIONS §1): lower case, diacritics removed,
 * the Danish letters in their two-letter spelling (æ→ae, ø→oe, å→aa), punctuation to spaces,
 * whitespace collapsed. Runs once per input row, so it is a table-driven character loop rather
 * than a chain of regular expressions.
 */

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
export function foldChar(code: number): string {
  if (code < TABLE_SIZE) return table[code];
  let folded = wideCache.get(code);
  if (folded === undefined) {
    folded = foldSlow(code);
    if (wideCache.size < 10_000) wideCache.set(code, folded);
  }
  return folded;
}

export function normalizeText(s: string): string {
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
}

const scratch: Tokens = { count: 0, norm: [], start: [], end: [] };

/** Longer inputs are cut: no Danish address or name needs more tokens, and it bounds the work. */
const MAX_TOKENS = 40;

export function tokenize(s: string, into: Tokens = scratch): Tokens {
  let count = 0;
  let current = '';
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    const folded = i < s.length ? foldChar(s.charCodeAt(i)) : SEPARATOR;
    if (folded !== SEPARATOR) {
      if (start < 0) start = i;
      current += folded;
    } else if (start >= 0) {
      into.norm[count] = current;
      into.start[count] = start;
      into.end[count] = i;
      count++;
      current = '';
      start = -1;
      if (count === MAX_TOKENS) break;
    }
  }
  into.count = count;
  return into;
}

export function newTokens(): Tokens {
  return { count: 0, norm: [], start: [], end: [] };
}
