/**
 * Lines of an address that name who receives the post, not where: "c/o Ida Frølich", "att.
 * Økonomi", "v/ Hansen", "Hos Jensen". People write them in front of the address, behind it or
 * between the unit and the postal code; they are set aside before the address is read
 * (docs/matching.md "Addresses": care-of lines).
 */

/** Ends one line of an address as people write an envelope on one line: `,`, `;` or a line break. */
export function isLineEnd(c: number): boolean {
  return c === 44 || c === 59 || c === 10 || c === 13;
}

/** Whether s[from, to) holds a line end. */
export function hasLineEnd(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isLineEnd(s.charCodeAt(i))) return true;
  return false;
}

function lower(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 65 && c <= 90 ? c + 32 : c;
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c > 127;
}

function skipSpaces(s: string, i: number, to: number): number {
  while (i < to && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  return i;
}

/** The word `word` (lower case ASCII) at s[i] as a whole word. */
function wordAt(s: string, i: number, to: number, word: string): boolean {
  if (i + word.length > to) return false;
  for (let k = 0; k < word.length; k++) if (lower(s, i + k) !== word.charCodeAt(k)) return false;
  return i + word.length === to || !isLetter(s.charCodeAt(i + word.length));
}

/**
 * Whether the line s[from, to) starts with a care-of word: "c/o", "c.o.", "℅", "att", "attn",
 * "attention", "v/" (ved), "hos". "V." alone is Vester and "Att" inside a word ("Attrupvej") is
 * a street, so "v" needs its slash and the words must end where the word ends.
 */
export function startsWithCareOf(s: string, from: number, to: number): boolean {
  const i = skipSpaces(s, from, to);
  if (i >= to) return false;
  const c = lower(s, i);
  if (c === 0x2105) return true; // ℅
  if (c === 99 /* c */) {
    const j = skipSpaces(s, i + 1, to);
    const sep = s.charCodeAt(j);
    if (sep !== 47 && sep !== 46) return false; // c/o, c.o
    const k = skipSpaces(s, j + 1, to);
    return k < to && lower(s, k) === 111 && (k + 1 === to || !isLetter(s.charCodeAt(k + 1)));
  }
  if (c === 118 /* v */) {
    const j = skipSpaces(s, i + 1, to);
    return j < to && s.charCodeAt(j) === 47;
  }
  if (c === 97 /* a */) return wordAt(s, i, to, 'att') || wordAt(s, i, to, 'attn') || wordAt(s, i, to, 'attention');
  if (c === 104 /* h */) return wordAt(s, i, to, 'hos');
  return false;
}

/**
 * Could a care-of word start a line of `s`: one plain scan that spares the line-by-line reading
 * for the common address (every check reads one); the regular expression it replaces,
 * /(?:^|[,;\n\r])\s*(?:c\s*[/.]|\u2105|att|v\s*\/|hos)/i, cost several times as much. It may say
 * yes where that said no (startsWithCareOf decides), never the other way: every character from
 * U+1680 on is taken for whitespace or "℅".
 */
function mayHoldCareOf(s: string): boolean {
  let lineStart = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 59 && !lineStart) continue; // most characters: letters past the line's first (no line end is above ';')
    if (isLineEnd(c)) {
      lineStart = true;
    } else if (lineStart) {
      if (c >= 0x1680) return true; // "℅", or whitespace \s knows there: a care-of word may follow
      if (c <= 32 || c === 0xa0) continue;
      if (careOfFrom(s, i, c | 32)) return true;
      lineStart = false;
    }
  }
  return false;
}

/**
 * Whether the first visible character `c` of a line, at s[i], may begin a care-of word: the test
 * mayHoldCareOf makes there, for tokenize (normalize.ts), which asks it in its own pass.
 */
export function mayStartCareOf(s: string, i: number, c: number): boolean {
  return c >= 0x1680 || careOfFrom(s, i, c | 32);
}

/** Whitespace as \s reads it, or (from U+1680 on) perhaps: see mayHoldCareOf. */
function isSpaceLike(c: number): boolean {
  return c <= 32 || c === 0xa0 || c >= 0x1680;
}

/** The care-of words' beginnings at s[i], whose lower-cased letter is `c`: "c/", "c.", "v/", "att", "hos". */
function careOfFrom(s: string, i: number, c: number): boolean {
  if (c === 99 /* c */ || c === 118 /* v */) {
    let j = i + 1;
    while (j < s.length && isSpaceLike(s.charCodeAt(j))) j++;
    const sep = s.charCodeAt(j);
    return sep === 47 || (c === 99 && sep === 46);
  }
  if (c === 97 /* a */) return (s.charCodeAt(i + 1) | 32) === 116 && (s.charCodeAt(i + 2) | 32) === 116;
  if (c === 104 /* h */) return (s.charCodeAt(i + 1) | 32) === 111 && (s.charCodeAt(i + 2) | 32) === 115;
  return false;
}

/**
 * `s` with every care-of line blanked (its characters as spaces, the line ends kept, so positions
 * in the text stay those of the original). Returns `s` itself when there is none. A care-of line
 * that is the whole text is kept: the address is then in it, and nothing tells where the name ends.
 */
export function blankCareOfLines(s: string): string {
  if (!mayHoldCareOf(s)) return s;
  let out = s;
  let start = 0;
  let lines = 0;
  while (start <= s.length) {
    let end = start;
    while (end < s.length && !isLineEnd(s.charCodeAt(end))) end++;
    lines++;
    if (startsWithCareOf(s, start, end)) {
      if (lines === 1 && end === s.length) return s;
      out = out.slice(0, start) + ' '.repeat(end - start) + out.slice(end);
    }
    start = end + 1;
  }
  return out;
}
