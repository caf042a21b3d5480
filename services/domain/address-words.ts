import type { Tokens } from './normalize.ts';

/**
 * The vocabulary of Danish addresses (DECISIONS §1): street abbreviations, floors and doors, all
 * on folded tokens (see normalize.ts), numbers inside street names, the postal-code-first form,
 * plus the casing used when an address is written back.
 */

/** Folded street abbreviation → folded word, and the word as written back. */
export const STREET_ABBREVIATIONS: Record<string, { norm: string; display: string }> = {
  gl: { norm: 'gammel', display: 'Gammel' },
  gml: { norm: 'gammel', display: 'Gammel' },
  skt: { norm: 'sankt', display: 'Sankt' },
  sct: { norm: 'sankt', display: 'Sankt' },
  vj: { norm: 'vej', display: 'Vej' },
  ndr: { norm: 'nordre', display: 'Nordre' },
  sdr: { norm: 'soendre', display: 'Søndre' },
  nr: { norm: 'noerre', display: 'Nørre' },
  kgs: { norm: 'kongens', display: 'Kongens' },
  ll: { norm: 'lille', display: 'Lille' },
  pl: { norm: 'plads', display: 'Plads' },
  bd: { norm: 'boulevard', display: 'Boulevard' },
  blvd: { norm: 'boulevard', display: 'Boulevard' },
  chr: { norm: 'christian', display: 'Christian' },
};

/**
 * The abbreviation `word` stands for, if any. Every abbreviation has 2–4 letters; the length test
 * spares the keyed lookup (a string-table probe) for the long words most street names are made of.
 */
export function abbreviationOf(word: string): { norm: string; display: string } | undefined {
  return word.length >= 2 && word.length <= 4 ? STREET_ABBREVIATIONS[word] : undefined;
}

/** Floor words → canonical floor: 'st' ground, 'kl' basement. */
const FLOOR_WORDS: Record<string, string> = {
  st: 'st', stuen: 'st', stue: 'st', stueplan: 'st', stueetage: 'st', parterre: 'st', pt: 'st',
  kl: 'kl', kld: 'kl', kaelder: 'kl', kaelderen: 'kl', kaelderplan: 'kl', kaelderetage: 'kl',
  // DAR's lower basements ("k2" is the second floor below ground).
  k1: 'kl', k2: 'k2', k3: 'k3', k4: 'k4', k5: 'k5', k6: 'k6', k7: 'k7', k8: 'k8', k9: 'k9',
};

/** Door words → canonical door. */
const DOOR_WORDS: Record<string, string> = {
  tv: 'tv', th: 'th', mf: 'mf', venstre: 'tv', hoejre: 'th', midt: 'mf', midten: 'mf',
};

/** Words that carry no information inside the floor/door part ("1. sal", "til venstre"). */
const FILLER_WORDS: Record<string, true> = {
  sal: true, til: true, for: true, lejl: true, lejlighed: true, doer: true, nr: true, etage: true,
};

/** Roman numerals of kings' names in streets ("Frederik VII's Vej", "Christian IX's Gade") → digits. */
export const ROMAN_NUMERALS: Record<string, string> = (() => {
  const out: Record<string, string> = {};
  const ones = ['', 'i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii', 'ix'];
  const tens = ['', 'x', 'xx', 'xxx'];
  for (let n = 1; n < 40; n++) out[tens[Math.floor(n / 10)] + ones[n % 10]] = String(n);
  return out;
})();

export function isDigits(token: string): boolean {
  if (token.length === 0) return false;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function isLetters(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return token.length > 0;
}

function dropLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return i === 0 ? digits : digits.slice(i);
}

/** A house number "12", "12a" (≤ 3 digits, one letter; DAR numbers are 1..999 + letter). */
export function houseNumberOf(token: string): string | null {
  let digits = 0;
  while (digits < token.length && token.charCodeAt(digits) >= 48 && token.charCodeAt(digits) <= 57) digits++;
  if (digits === 0 || digits > 3) return null;
  if (digits < token.length) {
    if (token.length - digits !== 1 || !isLetters(token.slice(digits))) return null;
  }
  const number = dropLeadingZeros(token.slice(0, digits));
  if (number === '0') return null;
  return digits === token.length ? number : number + token.slice(digits);
}

/** A floor token → canonical floor, or null when the token is not a floor. */
export function floorOf(token: string): string | null {
  const word = FLOOR_WORDS[token];
  if (word !== undefined) return word;
  if (token.length <= 2 && isDigits(token)) {
    const n = dropLeadingZeros(token);
    return n === '0' ? 'st' : n;
  }
  return null;
}

/** A door token → canonical door ("tv", "th", "mf", a number, letters), or null for filler. */
export function doorOf(token: string): string | null {
  const word = DOOR_WORDS[token];
  if (word !== undefined) return word;
  if (FILLER_WORDS[token] === true) return null;
  if (isDigits(token)) return token.length <= 4 ? dropLeadingZeros(token) : null;
  return token.length <= 4 ? token : null;
}

/**
 * A word that cannot be a floor or a door: letters only, three or more of them, and none of the
 * floor, door or filler words. In the unit part it starts a supplementary town name ("Skeevej 39,
 * Skee, 4370 Store Merløse"); DAR's doors of letters are one or two letters ("a", "tv").
 */
export function isTownWord(token: string): boolean {
  return token.length >= 3 && isLetters(token) && FLOOR_WORDS[token] === undefined &&
    DOOR_WORDS[token] === undefined && FILLER_WORDS[token] !== true && gluedFloorDoor(token) === null;
}

export function isFloorOrDoorWord(token: string): boolean {
  return FLOOR_WORDS[token] !== undefined || DOOR_WORDS[token] !== undefined;
}

export function isFiller(token: string): boolean {
  return FILLER_WORDS[token] === true;
}

const DOOR_FILLERS: Record<string, true> = { lejl: true, lejlighed: true, doer: true, nr: true };

/** Fillers after which a number is a door ("lejl. 12"), not a floor. */
export function isDoorFiller(token: string): boolean {
  return DOOR_FILLERS[token] === true;
}

/** Floor and door written as one token: "3tv", "1th", "stmf", "kltv". Null otherwise. */
export function gluedFloorDoor(token: string): { floor: string; door: string } | null {
  if (token.length < 3) return null;
  const door = DOOR_WORDS[token.slice(-2)];
  if (door === undefined || token.slice(-2) !== door) return null;
  const floor = floorOf(token.slice(0, -2));
  return floor === null ? null : { floor, door };
}

/** "københavn" → "København", "GL" → "Gl"; words already in mixed case ("McDonald") are kept. */
export function displayWord(word: string): string {
  let lower = false;
  let upper = false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 0xdf && c <= 0xff && c !== 0xf7)) lower = true;
    else if ((c >= 65 && c <= 90) || (c >= 0xc0 && c <= 0xde && c !== 0xd7)) upper = true;
    else if (c > 0xff) return displayWordSlow(word);
  }
  if (lower && upper) return word;
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

function displayWordSlow(word: string): string {
  const lower = word.toLowerCase();
  const upper = word.toUpperCase();
  if (word !== lower && word !== upper) return word;
  return upper.charAt(0) + lower.slice(1);
}

/** True for the "s" of a king's ordinal in a street name: "Christian 9.s Gade", "Frederik VII's Vej". */
export function isNumeralPossessive(t: Tokens, i: number, from: number): boolean {
  if (i <= from || t.norm[i] !== 's') return false;
  const previous = t.norm[i - 1];
  return (previous.length <= 2 && isDigits(previous)) || ROMAN_NUMERALS[previous] !== undefined;
}

/**
 * A number that belongs to the street, not the house number: "9" in "Christian 9.s Gade", where
 * an "s" follows after a full stop or an apostrophe and more of the street comes after it.
 */
export function isStreetOrdinal(s: string, t: Tokens, i: number): boolean {
  const token = t.norm[i];
  if (token.length > 2 || !isDigits(token) || i + 2 >= t.count || t.norm[i + 1] !== 's') return false;
  const gap = s.slice(t.end[i], t.start[i + 1]);
  return gap === '.' || gap === "'" || gap === '’' || gap === ".'" || gap === '.’';
}

/**
 * The postal-code-first form, "1610 København V, Gammel Kongevej 12": when the line starts with a
 * 4-digit code and a comma ends the city, the index of the street's first token; else 0.
 */
export function postalFirstEnd(s: string, t: Tokens): number {
  if (t.count < 3 || t.norm[0].length !== 4 || !isDigits(t.norm[0])) return 0;
  const comma = s.indexOf(',', t.end[0]);
  if (comma < 0) return 0;
  for (let i = 1; i < t.count - 1; i++) if (t.start[i] > comma) return i;
  return 0;
}
