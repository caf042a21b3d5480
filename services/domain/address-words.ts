import type { Tokens } from './normalize.ts';

/**
 * The vocabulary of Danish addresses (docs/decisions.md §1): street abbreviations, floors and doors, all
 * on folded tokens (see normalize.ts), numbers inside street names, the postal-code-first form,
 * plus the casing used when an address is written back.
 */

/**
 * Folded street abbreviation → the folded word it is read as in the street's spelling, and the
 * word as written back; `display` null keeps the writer's form (the abbreviation stands for
 * more than one word, see STREET_WORD_CLASS). As the register's addressing names and the CPR
 * office write them (docs/matching.md "Addresses").
 */
export const STREET_ABBREVIATIONS: ReadonlyMap<string, { norm: string; display: string | null }> = new Map([
  ['gl', { norm: 'gammel', display: 'Gammel' }], // or Gamle: one class
  ['gml', { norm: 'gammel', display: 'Gammel' }],
  ['skt', { norm: 'sankt', display: 'Sankt' }],
  ['sct', { norm: 'sankt', display: 'Sankt' }],
  ['vj', { norm: 'vej', display: 'Vej' }],
  ['ndr', { norm: 'nordre', display: 'Nordre' }],
  ['nr', { norm: 'noerre', display: 'Nørre' }],
  ['kgs', { norm: 'kongens', display: 'Kongens' }],
  ['ll', { norm: 'lille', display: 'Lille' }],
  ['pl', { norm: 'plads', display: 'Plads' }],
  ['bd', { norm: 'boulevard', display: 'Boulevard' }],
  ['blvd', { norm: 'boulevard', display: 'Boulevard' }],
  ['chr', { norm: 'christian', display: 'Christian' }],
  // One abbreviation, two words: the spelling keeps the abbreviation, the key its class.
  ['sdr', { norm: 'sdr', display: null }], // Søndre or Sønder
  ['st', { norm: 'st', display: null }], // Store or Sankt
  ['oe', { norm: 'oe', display: null }], // "Ø.": Øster or Østre
  ['v', { norm: 'v', display: null }], // Vester or Vestre
  ['fr', { norm: 'fr', display: null }], // Frederik or Frederiks ("Fr. Bajers Vej", "Fr.sundsvej")
]);

/**
 * The words a street key does not tell apart, by class (the class's word is what the key holds):
 * an abbreviation that stands for two words ("St." Store or Sankt, "Ø." Øster or Østre) makes
 * the two words one street for matching, so a list member written either way is found. Two real
 * streets that differ only by these words in one postal code are merged (docs/matching.md
 * "Addresses": measured, the cost is a household match, level 1, at the same house number).
 * The ø→o spellings ("Ostre") are listed because the key's skeleton (normalize.ts) does not
 * reach inside this table.
 */
export const STREET_WORD_CLASS: Record<string, string> = {
  oester: 'oester', oestre: 'oester', oe: 'oester', oster: 'oester', ostre: 'oester',
  vester: 'vester', vestre: 'vester', v: 'vester',
  soender: 'soender', soendre: 'soender', sdr: 'soender', sonder: 'soender', sondre: 'soender',
  store: 'store', sankt: 'store', st: 'store',
  gammel: 'gammel', gamle: 'gammel',
  frederik: 'frederik', frederiks: 'frederik', fr: 'frederik',
  christian: 'christian', christians: 'christian',
};

/**
 * The word as the street key holds it (`word` folded, abbreviations already read): its class
 * (STREET_WORD_CLASS), also for a word that starts with a class word written joined to the next
 * one, so that it is the same street as written apart ("Østre Gade" = "Østregade",
 * "Fr.sundsvej" = "Frederikssundsvej"), as the key already joins words ("Konge Vej" = "Kongevej").
 * Written out by first letter: it runs for every street word of every check, and the class words
 * all start with c, f, g, o, s or v.
 */
export function streetKeyWord(word: string): string {
  switch (word.charCodeAt(0)) {
    case 111: // o
      if (word === 'oe' || word === 'oestre' || word === 'oster' || word === 'ostre') return 'oester';
      if (word.startsWith('oestre')) return 'oester' + word.slice(6);
      if (word.startsWith('ostre')) return 'oester' + word.slice(5);
      return word;
    case 118: // v
      if (word === 'v' || word === 'vestre') return 'vester';
      if (word.startsWith('vestre')) return 'vester' + word.slice(6);
      return word;
    case 115: // s
      if (word === 'st' || word === 'sankt') return 'store';
      if (word === 'sdr' || word === 'soendre' || word === 'sonder' || word === 'sondre') return 'soender';
      if (word.startsWith('soendre')) return 'soender' + word.slice(7);
      if (word.startsWith('sondre')) return 'soender' + word.slice(6);
      return word;
    case 103: // g
      return word === 'gamle' ? 'gammel' : word;
    case 102: // f
      if (word === 'fr') return 'frederik';
      if (word.startsWith('frederiks')) return 'frederik' + word.slice(9);
      return word;
    case 99: // c
      return word.startsWith('christians') ? 'christian' + word.slice(10) : word;
    default:
      return word;
  }
}

/** The words an abbreviation of two words stands for, in the spelling compared for `exact`. */
export const ABBREVIATION_WORDS: ReadonlyMap<string, readonly string[]> = new Map([
  ['sdr', ['soendre', 'soender']], ['st', ['store', 'sankt']], ['oe', ['oester', 'oestre']], ['v', ['vester', 'vestre']],
  ['fr', ['frederik', 'frederiks']], ['gl', ['gammel', 'gamle']], ['gml', ['gammel', 'gamle']],
]);

/** Starts an abbreviation of two words in a street spelling: "\u0001st" is "St." (see spellingAgrees). */
export const ABBREVIATION_MARK = '\u0001';
/** Ends an abbreviation in a street spelling. */
export const ABBREVIATION_END = '\u0002';

/**
 * Whether two street spellings (ParsedAddress.streetSpelling) name the same street word for word:
 * equal, where an abbreviation of two words agrees with either word ("St." with Store and with
 * Sankt) and with an abbreviation sharing a word. What `exact` asks of a street (docs/addresses.md
 * "Resolution"); the key (streetKey) is more lenient.
 */
export function spellingAgrees(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.indexOf(ABBREVIATION_MARK) < 0 && b.indexOf(ABBREVIATION_MARK) < 0) return false;
  return agreeFrom(a, 0, b, 0);
}

function wordsAt(s: string, i: number): { words: readonly string[]; next: number } {
  const end = s.indexOf(ABBREVIATION_END, i);
  return { words: ABBREVIATION_WORDS.get(s.slice(i + 1, end)) ?? [], next: end + 1 };
}

function agreeFrom(a: string, i: number, b: string, j: number): boolean {
  while (i < a.length && j < b.length) {
    const markA = a[i] === ABBREVIATION_MARK;
    const markB = b[j] === ABBREVIATION_MARK;
    if (markA && markB) {
      const x = wordsAt(a, i);
      const y = wordsAt(b, j);
      if (!x.words.some((w) => y.words.includes(w))) return false;
      i = x.next;
      j = y.next;
    } else if (markA || markB) {
      const [s, k, other, l] = markA ? [a, i, b, j] : [b, j, a, i];
      const { words, next } = wordsAt(s, k);
      return words.some((w) => other.startsWith(w, l) && (markA ? agreeFrom(a, next, b, j + w.length) : agreeFrom(a, i + w.length, b, next)));
    } else {
      if (a.charCodeAt(i) !== b.charCodeAt(j)) return false;
      i++;
      j++;
    }
  }
  return i === a.length && j === b.length;
}

/**
 * The abbreviation `word` stands for, if any. Every abbreviation has 1–4 letters; the length test
 * spares the keyed lookup (a string-table probe) for the long words most street names are made of.
 */
export function abbreviationOf(word: string): { norm: string; display: string | null } | undefined {
  return word.length <= 4 ? STREET_ABBREVIATIONS.get(word) : undefined;
}

/**
 * Floor words → canonical floor: 'st' ground, 'kl' basement. This and the other word tables are
 * Maps and Sets, not plain objects: an object answers "constructor" with Object.prototype's
 * function (docs/matching.md "Word tables").
 */
const FLOOR_WORDS: ReadonlyMap<string, string> = new Map([
  ['st', 'st'], ['stuen', 'st'], ['stue', 'st'], ['stueplan', 'st'], ['stueetage', 'st'], ['parterre', 'st'], ['pt', 'st'],
  ['kl', 'kl'], ['kld', 'kl'], ['kaelder', 'kl'], ['kaelderen', 'kl'], ['kaelderplan', 'kl'], ['kaelderetage', 'kl'],
  // DAR's lower basements ("k2" is the second floor below ground).
  ['k1', 'kl'], ['k2', 'k2'], ['k3', 'k3'], ['k4', 'k4'], ['k5', 'k5'], ['k6', 'k6'], ['k7', 'k7'], ['k8', 'k8'], ['k9', 'k9'],
]);

/** Door words → canonical door. */
const DOOR_WORDS: ReadonlyMap<string, string> = new Map([
  ['tv', 'tv'], ['th', 'th'], ['mf', 'mf'], ['venstre', 'tv'], ['hoejre', 'th'], ['midt', 'mf'], ['midten', 'mf'],
]);

/** Words that carry no information inside the floor/door part ("1. sal", "til venstre"). */
const FILLER_WORDS: ReadonlySet<string> = new Set(['sal', 'til', 'for', 'lejl', 'lejlighed', 'doer', 'nr', 'etage']);

/** Roman numerals of kings' names in streets ("Frederik VII's Vej", "Christian IX's Gade") → digits. */
export const ROMAN_NUMERALS: ReadonlyMap<string, string> = (() => {
  const out = new Map<string, string>();
  const ones = ['', 'i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii', 'ix'];
  const tens = ['', 'x', 'xx', 'xxx'];
  for (let n = 1; n < 40; n++) out.set(tens[Math.floor(n / 10)] + ones[n % 10], String(n));
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
  // Every floor word starts with a letter: a number ("3", the common floor) skips the look-up.
  const first = token.charCodeAt(0);
  if (!(first >= 48 && first <= 57)) {
    const word = FLOOR_WORDS.get(token);
    if (word !== undefined) return word;
  }
  if (token.length <= 2 && isDigits(token)) {
    const n = dropLeadingZeros(token);
    return n === '0' ? 'st' : n;
  }
  return null;
}

/** A door token → canonical door ("tv", "th", "mf", a number, letters), or null for filler. */
export function doorOf(token: string): string | null {
  if (token.length === 2) { // "tv", "th", "mf" (the common doors) without a look-up
    const door = doorAtEnd(token);
    if (door !== null) return door;
  }
  const word = DOOR_WORDS.get(token);
  if (word !== undefined) return word;
  if (FILLER_WORDS.has(token)) return null;
  if (isDigits(token)) return token.length <= 4 ? dropLeadingZeros(token) : null;
  return token.length <= 4 ? token : null;
}

/**
 * A word that cannot be a floor or a door: letters only, three or more of them, and none of the
 * floor, door or filler words. In the unit part it starts a supplementary town name ("Skeevej 39,
 * Skee, 4370 Store Merløse"); DAR's doors of letters are one or two letters ("a", "tv").
 */
export function isTownWord(token: string): boolean {
  return token.length >= 3 && isLetters(token) && !FLOOR_WORDS.has(token) &&
    !DOOR_WORDS.has(token) && !FILLER_WORDS.has(token) && gluedFloorDoor(token) === null;
}

export function isFloorOrDoorWord(token: string): boolean {
  return FLOOR_WORDS.has(token) || DOOR_WORDS.has(token);
}

export function isFiller(token: string): boolean {
  // Every filler word has two or more letters: a number ("3") or a one-letter door skips the look-up.
  const first = token.charCodeAt(0);
  return token.length >= 2 && first >= 97 && first <= 122 && FILLER_WORDS.has(token);
}

const DOOR_FILLERS: ReadonlySet<string> = new Set(['lejl', 'lejlighed', 'doer', 'nr']);

/** Fillers after which a number is a door ("lejl. 12"), not a floor. */
export function isDoorFiller(token: string): boolean {
  return DOOR_FILLERS.has(token);
}

/** Floor and door written as one token: "3tv", "1th", "stmf", "kltv". Null otherwise. */
export function gluedFloorDoor(token: string): { floor: string; door: string } | null {
  if (token.length < 3) return null;
  // The door is read off the last two letters before anything is sliced: isTownWord asks this of
  // every unit word of every check, and nearly all of them end in no door.
  const door = doorAtEnd(token);
  if (door === null) return null;
  const floor = floorOf(token.slice(0, -2));
  return floor === null ? null : { floor, door };
}

/** "tv", "th" or "mf" when `token` ends with it (DOOR_WORDS' two-letter doors), else null. */
function doorAtEnd(token: string): string | null {
  const first = token.charCodeAt(token.length - 2);
  const second = token.charCodeAt(token.length - 1);
  if (first === 116 /* t */) return second === 118 ? 'tv' : second === 104 ? 'th' : null;
  return first === 109 /* m */ && second === 102 /* f */ ? 'mf' : null;
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
  return (previous.length <= 2 && isDigits(previous)) || ROMAN_NUMERALS.has(previous);
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
  const code = t.count > 0 && t.norm[0] === 'dk' ? 1 : 0; // "DK-1610 København V, …"
  if (t.count < code + 3 || t.norm[code].length !== 4 || !isDigits(t.norm[code])) return 0;
  const comma = s.indexOf(',', t.end[code]);
  if (comma < 0) return 0;
  for (let i = code + 1; i < t.count - 1; i++) if (t.start[i] > comma) return i;
  return 0;
}
