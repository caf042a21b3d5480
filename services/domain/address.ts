import { blankCareOfLines, hasLineEnd } from './care-of.ts';
import {
  ABBREVIATION_END, ABBREVIATION_MARK, ABBREVIATION_WORDS, ROMAN_NUMERALS, abbreviationOf, displayWord, streetKeyWord, doorOf, floorOf, gluedFloorDoor, houseNumberOf, isDigits, isDoorFiller,
  isFiller, isNumeralPossessive, isStreetOrdinal, isTownWord, postalFirstEnd,
} from './address-words.ts';
import type { FingerprintTable } from './fingerprint-table.ts';
import { KVHX_BUILDING_LENGTH, canonicalKvhx } from './kvhx.ts';
import { newTokens, nfc, tokenize, type Tokens } from './normalize.ts';
import type { ListEntry, PersonInput } from './types.ts';

/**
 * An address as matching sees it (docs/decisions.md §1). Normalised fields are folded text (see
 * normalize.ts); `streetWritten`/`cityWritten` keep the writer's text, which streetDisplayOf and
 * cityDisplayOf turn into the spelling ResolvedAddress shows.
 * A building is street + house number + postal code; a unit is floor + door inside it.
 */
export interface ParsedAddress {
  /** Folded street words, abbreviations expanded: "gammel kongevej". */
  street: string | null;
  /**
   * The street words joined without spaces, each as its class (address-words.ts STREET_WORD_CLASS:
   * "St." = Store = Sankt): the street part of `buildingKey` ("gammelkongevej", "storekongensgade").
   */
  streetKey: string | null;
  /**
   * The street as written, folded and joined without spaces, abbreviations of one word expanded,
   * those of two words marked (see spellingAgrees): what `exact` compares with the register's
   * names. Often the same string as `streetKey`.
   */
  streetSpelling: string | null;
  /** "12", "12a". */
  houseNumber: string | null;
  /** "st" (ground), "kl" (basement), "1", "2", ... */
  floor: string | null;
  /** "tv", "th", "mf", a number without leading zeros, or letters. */
  door: string | null;
  postalCode: string | null;
  /** Folded city: "koebenhavn v". */
  city: string | null;
  /**
   * The street and the city as written, from their first word to their last ("Gl.  Kongevej").
   * Not the display form itself: most checks answer with the register's spelling, so the
   * display is made only when asked for.
   */
  streetWritten: string | null;
  cityWritten: string | null;
  /**
   * The echo shows `streetWritten` / `cityWritten` unchanged (isDisplayedAsWritten), known from
   * the reading's tokens (shownAsWritten); false when not known so, and the display decides.
   */
  streetAsWritten: boolean;
  cityAsWritten: boolean;
  /**
   * Folded supplementary town name written between the unit and the postal code ("skee"); in a
   * line without a postal code (parseAddressLine), the words after the unit (the town, or the
   * postal district's name). Null when none.
   */
  town: string | null;
  /** street (without spaces) | house number | postal code; null when only a kvhx was given. */
  buildingKey: string | null;
  /** floor|door; '' for a building without floor and door (one unit); see unitKeyOf. */
  unitKey: string;
  /**
   * A line that is not the address was set aside: a care-of line ("c/o Ida Frølich"), a name or
   * company in front of the street, anything behind the postal code's line but a country name.
   * The address is read without it; with a register it is `corrected`, not `exact` (the register's
   * form drops the line, docs/addresses.md "Resolution").
   */
  setAside: boolean;
  /** First 12 characters of the canonical kvhx (kommune, vej, husnummer). */
  kvhxBuilding: string | null;
  /** Last 7 characters of the canonical kvhx (etage, door). */
  kvhxUnit: string | null;
}

type AddressSource = Omit<PersonInput, 'id' | 'phone'> | ListEntry;

const tokens = newTokens();
/**
 * A country name behind the postal code's line, not a line set aside. Compared by length first,
 * not looked up by key: an object lookup by a token made at run time first looks the string up in
 * V8's table of internalized strings, for every address.
 */
function isCountry(word: string): boolean {
  return word.length === 2 ? word === 'dk' : word.length === 7 && (word === 'danmark' || word === 'denmark');
}

interface Line {
  streetFrom: number;
  streetTo: number;
  houseNumber: string;
  floor: string | null;
  door: string | null;
  postalCode: string | null;
  cityFrom: number;
  cityTo: number;
  /** Supplementary town name, tokens [townFrom, townTo) (empty when none). */
  townFrom: number;
  townTo: number;
  /** A line in front of the street or behind the postal code's line was set aside (not a country name). */
  setAside: boolean;
}

/**
 * Folded street of tokens [from, to): abbreviations expanded, "…vj" → "…vej", a roman ordinal
 * before a possessive "s" in digits ("Christian IX's Gade" = "Christian 9.s Gade"); its key (the
 * words' classes joined) and its spelling (see ParsedAddress).
 */
function streetOf(t: Tokens, from: number, to: number): { words: string; key: string; spelling: string } {
  let words = '';
  let key = '';
  // Built only from the first word whose key differs from its spelling: mostly the key itself.
  let spelling: string | null = null;
  for (let i = from; i < to; i++) {
    let word = t.norm[i];
    let spelled: string;
    const roman = i + 1 < to && t.norm[i + 1] === 's' ? ROMAN_NUMERALS.get(word) : undefined;
    const abbreviation = roman === undefined ? abbreviationOf(word) : undefined;
    if (roman !== undefined) {
      word = roman;
      spelled = word;
    } else if (abbreviation !== undefined) {
      spelled = !ABBREVIATION_WORDS.has(word) ? abbreviation.norm : ABBREVIATION_MARK + word + ABBREVIATION_END;
      word = abbreviation.norm;
    } else {
      if (word.length > 3 && word.endsWith('vj')) word = word.slice(0, -1) + 'ej'; // "Kongevj."
      spelled = word;
    }
    words = i === from ? word : words + ' ' + word;
    const keyed = streetKeyWord(word);
    if (spelling !== null) spelling += spelled;
    else if (keyed !== spelled) spelling = key + spelled;
    key += keyed;
  }
  return { words, key, spelling: spelling ?? key };
}

/** The writer's spelling of tokens [from, to), cased for display, abbreviations optionally expanded. */
function displayOf(s: string, t: Tokens, from: number, to: number, expand: boolean): string {
  let out = '';
  let previousExpanded = false;
  let previousKept = false; // an abbreviation of two words, kept as written ("St.", "Sdr.")
  for (let i = from; i < to; i++) {
    const raw = s.slice(t.start[i], t.end[i]);
    let found = expand ? abbreviationOf(t.norm[i]) : undefined;
    if (found !== undefined && i + 1 < to && isNumeralPossessive(t, i + 1, from)) found = undefined; // "V's": a king
    const abbreviation = found?.display === null ? undefined : found;
    if (i > from) {
      const gap = s.slice(t.end[i - 1], t.start[i]);
      const previousShort = previousKept || t.end[i - 1] - t.start[i - 1] <= 2;
      if (previousExpanded || gap.includes(',')) out += ' ';
      else if (gap === '-' || gap === "'" || gap === '’') out += gap;
      else if (gap.charCodeAt(0) === 46 /* . */ && previousShort) out += gap.length === 1 ? '.' : '. '; // "H.C. Andersens"
      else out += ' ';
    }
    let word = abbreviation !== undefined ? abbreviation.display! : displayWord(raw);
    if (isNumeralPossessive(t, i, from)) word = 's'; // "9.s", "VII's"
    else if (i + 1 < to && t.norm[i + 1] === 's' && ROMAN_NUMERALS.has(t.norm[i])) {
      word = raw.toUpperCase();
    }
    if (expand && abbreviation === undefined && t.norm[i].length > 3 && t.norm[i].endsWith('vj')) {
      word = word.slice(0, -1) + 'ej';
    }
    out += word;
    previousExpanded = abbreviation !== undefined;
    previousKept = found !== undefined && found.display === null;
  }
  return out;
}

/**
 * Where a supplementary town name starts among the unit tokens [from, to) ("Skeevej 39B, st., Skee,
 * 4370 Store Merløse"), or `to` when there is none. It starts at its first word that cannot be a
 * floor or door (isTownWord); when that word's comma-delimited part holds only words ("Nr.
 * Asmindrup", "St. Rørbæk"), at the start of that part.
 */
function townStart(s: string, t: Tokens, from: number, to: number): number {
  for (let j = from; j < to; j++) {
    if (!isTownWord(t.norm[j])) continue;
    let k = j;
    let lettersOnly = true;
    while (k > from && !commaIn(s, t.end[k - 1], t.start[k])) {
      k--;
      if (!isLettersOnly(t.norm[k])) lettersOnly = false;
    }
    // Before token 0 the gap is the text's start (as slice(undefined, …) read it).
    if (lettersOnly && commaIn(s, k > 0 ? t.end[k - 1] : 0, t.start[k])) return k;
    k = j;
    while (k > from && isFiller(t.norm[k - 1]) && !isDoorFiller(t.norm[k - 1])) k--;
    return k;
  }
  return to;
}

/** Whether s[from, to) holds a comma: `s.slice(from, to).includes(',')` without the copy (every check asks). */
function commaIn(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 44) return true;
  return false;
}

/**
 * "tv", "th" or "mf" when tokens `a` and `b` spell one ("t.v."), else null: `a + b` compared
 * without making the string (every check asks).
 */
function doorPair(a: string, b: string): string | null {
  if (a.length !== 1 || b.length !== 1) return null;
  const first = a.charCodeAt(0);
  const second = b.charCodeAt(0);
  if (first === 116 /* t */) return second === 118 ? 'tv' : second === 104 ? 'th' : null;
  return first === 109 /* m */ && second === 102 /* f */ ? 'mf' : null;
}

function isLettersOnly(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

/**
 * Whether the number at token i is a floor. The register writes a floor with a full stop ("1.",
 * "1. th") and a lone number as the door ("Tofthøjvej 20, 1, 4130 Viby Sjælland" is door 1): a
 * number is a floor when a full stop, "sal"/"etage" or a door follows it, or when `loneIsFloor`
 * (the `floor` field of an address given in parts). "0" is always the ground floor (§1).
 */
function numberIsFloor(s: string, t: Tokens, i: number, to: number, loneIsFloor: boolean): boolean {
  if (loneIsFloor || t.norm[i] === '0' || t.norm[i] === '00') return true;
  if (s.charCodeAt(t.end[i]) === 46 /* . */) return true;
  return i + 1 < to;
}

/**
 * Floor and door from tokens [from, to): "3 tv", "st th", "1 sal", "kl", "tv", "2 1", "1" (a door,
 * see numberIsFloor).
 */
function unitOf(
  s: string, t: Tokens, from: number, to: number, loneIsFloor: boolean,
): { floor: string | null; door: string | null } {
  let i = from;
  let doorFollows = false; // "lejl. 12", "dør 3": a number after these is a door, not a floor
  while (i < to && isFiller(t.norm[i])) doorFollows = isDoorFiller(t.norm[i++]);
  let floor: string | null = null;
  if (i < to && !doorFollows) {
    const token = t.norm[i];
    floor = floorOf(token);
    if (floor !== null && isDigits(token) && !numberIsFloor(s, t, i, to, loneIsFloor)) floor = null;
    if (floor !== null) {
      i++;
    } else {
      const glued = gluedFloorDoor(token); // "3tv", "stth"
      if (glued !== null) return glued;
    }
  }
  return { floor, door: doorFrom(t, i, to) };
}

/** The first door among tokens [from, to); "t.v.", "t.h.", "m.f." (two tokens) included. */
function doorFrom(t: Tokens, from: number, to: number): string | null {
  for (let i = from; i < to; i++) {
    const token = t.norm[i];
    if (token.length === 1 && i + 1 < to) {
      const pair = doorPair(token, t.norm[i + 1]);
      if (pair !== null) return pair;
    }
    const door = doorOf(token);
    if (door !== null) return door;
  }
  return null;
}

/**
 * The first token of the street of house number h: the start of h's line (`,`, `;` or a line
 * break end a line, care-of.ts), so that a line in front of the address (a name, a company, a
 * care-of line without its word) is set aside: no street name holds a comma. A house number first
 * on its line ("Ridehusgade, 49") takes the line before it.
 */
function lineStart(s: string, t: Tokens, from: number, h: number): number {
  let i = h;
  while (i > from && !hasLineEnd(s, t.end[i - 1], t.start[i])) i--;
  if (i < h) return i;
  i = h - 1;
  while (i > from && !hasLineEnd(s, t.end[i - 1], t.start[i])) i--;
  return i;
}

/** One address line from token `from` on: street, house number, floor/door, postal code, city. */
function parseLine(s: string, t: Tokens, from: number): Line | null {
  const n = t.count;
  let h = -1;
  for (let i = from + 1; i < n; i++) {
    const c = t.norm[i].charCodeAt(0);
    if (c >= 48 && c <= 57 && !isStreetOrdinal(s, t, i)) { h = i; break; }
  }
  if (h < 0) return null;
  let houseNumber = houseNumberOf(t.norm[h]);
  if (houseNumber === null) return null;
  const streetFrom = lineStart(s, t, from, h);
  let streetTo = h;
  if (streetTo - 1 > streetFrom && t.norm[streetTo - 1] === 'nr') streetTo--; // "Nørregade nr. 7"
  let k = h + 1;
  const next = k < n ? t.norm[k] : '';
  const isDoorPair = k + 1 < n && doorPair(next, t.norm[k + 1]) !== null; // "12, t.v."
  const afterComma = k < n && commaIn(s, t.end[h], t.start[k]); // "Vej 5, a": door a
  if (next.length === 1 && next >= 'a' && next <= 'z' && isDigits(houseNumber) && !isDoorPair && !afterComma) { // "12 A"
    houseNumber += next;
    k++;
  }
  let p = -1;
  for (let i = n - 1; i >= k; i--) {
    if (t.norm[i].length === 4 && isDigits(t.norm[i])) { p = i; break; }
  }
  // The town ends with the postal code's line: what follows ("Danmark", "c/o …", "att. …") is set aside.
  // Without a postal code in the line (most rows: it is in its own field) there is no town here;
  // the scan would start by reading t.end[-1], a slow property look-up on every such row.
  let cityTo = p + 1;
  let setAside = streetFrom > from;
  if (p >= 0) {
    while (cityTo < n && !hasLineEnd(s, t.end[cityTo - 1], t.start[cityTo])) cityTo++;
    for (let i = cityTo; i < n && !setAside; i++) setAside = !isCountry(t.norm[i]);
    while (cityTo > p + 1 && isCountry(t.norm[cityTo - 1])) cityTo--;
  }
  // "DK-5000 Odense C": the country prefix of the postal code is no door.
  const unitTo = p < 0 ? n : p > k && t.norm[p - 1] === 'dk' ? p - 1 : p;
  const townFrom = townStart(s, t, k, unitTo);
  const unit = unitOf(s, t, k, townFrom, false);
  return {
    streetFrom, streetTo, houseNumber, floor: unit.floor, door: unit.door,
    postalCode: p < 0 ? null : t.norm[p], cityFrom: p < 0 ? n : p + 1, cityTo: p < 0 ? n : cityTo,
    townFrom, townTo: unitTo, setAside,
  };
}

/** A field's text in NFC (normalize.ts `nfc`), '' when it is not a string. */
function text(value: unknown): string {
  return typeof value === 'string' ? nfc(value) : '';
}

/**
 * A field's text as given, '' when it is not a string: for readers that make it NFC themselves
 * when tokenize says it may change (fromLine, codeAndTown). Whether it is blank does not depend
 * on NFC (no character becomes or stops being whitespace under it).
 */
function rawText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function build(
  street: { words: string; key: string; spelling: string } | null, streetWritten: string | null,
  houseNumber: string | null, floor: string | null, door: string | null,
  postalCode: string | null, city: string | null, cityWritten: string | null, kvhx: string | null,
  town: string | null = null, loose = false, setAside = false, streetAsWritten = false, cityAsWritten = false,
): ParsedAddress | null {
  const hasText = street !== null && street.key !== '' && houseNumber !== null && postalCode !== null;
  if (!hasText && kvhx === null && !(loose && street !== null && street.key !== '' && houseNumber !== null)) return null;
  return {
    street: street === null || street.words === '' ? null : street.words,
    streetKey: street === null || street.key === '' ? null : street.key,
    streetSpelling: street === null || street.key === '' ? null : street.spelling,
    houseNumber, floor, door, postalCode, city, streetWritten, cityWritten, streetAsWritten, cityAsWritten, town,
    buildingKey: hasText ? street.key + '|' + houseNumber + '|' + postalCode : null,
    unitKey: unitKeyOf(floor, door),
    setAside,
    kvhxBuilding: kvhx === null ? null : kvhx.slice(0, KVHX_BUILDING_LENGTH),
    kvhxUnit: kvhx === null ? null : kvhx.slice(KVHX_BUILDING_LENGTH),
  };
}

/**
 * floor|door, '' for none. A unit named by one number alone, floor ("1.") or door ("1"), has one
 * key: people write "Vej 20, 1" for both, so the two must not be told apart (a wrong "other unit"
 * would let a list member through at stop level 5).
 */
export function unitKeyOf(floor: string | null, door: string | null): string {
  if (floor === null) return door === null ? '' : isDigits(door) ? '~' + door : '|' + door;
  if (door === null) return isDigits(floor) ? '~' + floor : floor + '|';
  return floor + '|' + door;
}

function cityOf(t: Tokens, from: number, to: number): string | null {
  if (from >= to) return null;
  let norm = t.norm[from];
  for (let i = from + 1; i < to; i++) norm += ' ' + t.norm[i];
  return norm;
}

/** The text of tokens [from, to) as written, from the first one's start to the last one's end. */
function writtenOf(s: string, t: Tokens, from: number, to: number): string | null {
  return from >= to ? null : s.slice(t.start[from], t.end[to - 1]);
}

const displayTokens = newTokens();

/** displayOf of a written span, read again into its own tokens (the parse's are reused). */
function displayOfWritten(written: string | null, expand: boolean): string | null {
  if (written === null) return null;
  if (isDisplayedAsWritten(written, expand)) return written;
  const t = tokenize(written, displayTokens);
  return displayOf(written, t, 0, t.count, expand);
}

/** A Latin-1 upper-case letter (A–Z, À–Þ but ×). */
function isUpperLatin1(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 0xc0 && c <= 0xde && c !== 0xd7);
}

/** A Latin-1 lower-case letter (a–z, ß–ÿ but ÷). */
function isLowerLatin1(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 0xdf && c <= 0xff && c !== 0xf7);
}

/**
 * Whether displayOf would give `written` back unchanged: words of Latin-1 letters each written
 * with a capital and then small letters ("Gammel Kongevej", "Odense C"; not "København SV", whose
 * "SV" is cased again), one space between them, no lone "S" (a king's ordinal, "Christian IX S"),
 * and (`expand`) none an abbreviation written out or a "…vj" made "…vej". Most addresses are written so; for them the display costs one scan
 * instead of a second tokenize and a string per word (every check without a register shows it).
 */
function isDisplayedAsWritten(written: string, expand: boolean): boolean {
  let wordStart = 0;
  for (let i = 0; i <= written.length; i++) {
    const c = i < written.length ? written.charCodeAt(i) : 32;
    if (i === wordStart) {
      if (!isUpperLatin1(c)) return false;
    } else if (c === 32) {
      if (i - wordStart === 1 && written.charCodeAt(wordStart) === 83) return false; // "S": perhaps a king's "IX S"
      if (expand && !keepsItsSpelling(written, wordStart, i)) return false;
      wordStart = i + 1;
    } else if (!isLowerLatin1(c)) {
      return false;
    }
  }
  return true;
}

/** A street word written[from, to) (a capital, then small letters) that displayOf does not expand. */
function keepsItsSpelling(written: string, from: number, to: number): boolean {
  const length = to - from;
  if (written.charCodeAt(to - 2) === 118 && written.charCodeAt(to - 1) === 106) return false; // "…vj"
  if (length > 4) return true; // every abbreviation has 1–4 letters (abbreviationOf)
  for (let i = from; i < to; i++) if (written.charCodeAt(i) > 127) return false; // "Ñr" folds to "nr": leave it to displayOf
  return abbreviationOf(written.slice(from, to).toLowerCase())?.display == null;
}

/**
 * isDisplayedAsWritten of the text of tokens [from, to) of s, from the tokenizer's case flags
 * (normalize.ts Tokens.cased) and the gaps instead of a scan of the written text: every word
 * capitalised, one space between words, no lone "S" and (`expand`) no word displayOf writes out
 * (keepsItsSpelling, asked of the token's fold). True only where that scan says true.
 */
function shownAsWritten(s: string, t: Tokens, from: number, to: number, expand: boolean): boolean {
  if (from >= to) return false;
  for (let i = from; i < to; i++) {
    if (!t.cased[i]) return false;
    const start = t.start[i];
    const end = t.end[i];
    if (i > from && (start - t.end[i - 1] !== 1 || s.charCodeAt(start - 1) !== 32)) return false;
    if (end - start === 1 && s.charCodeAt(start) === 83) return false; // "S": perhaps a king's "IX S"
    if (expand) {
      if (s.charCodeAt(end - 2) === 118 && s.charCodeAt(end - 1) === 106) return false; // "…vj"
      if (end - start <= 4) {
        for (let k = start; k < end; k++) if (s.charCodeAt(k) > 127) return false;
        if (abbreviationOf(t.norm[i])?.display != null) return false; // the fold of ASCII is its lower case
      }
    }
  }
  return true;
}

/** The street as ResolvedAddress shows it: the writer's spelling, cased, abbreviations expanded. */
export function streetDisplayOf(a: ParsedAddress): string | null {
  return a.streetAsWritten ? a.streetWritten : displayOfWritten(a.streetWritten, true);
}

/** The city as ResolvedAddress shows it: the writer's spelling, cased. */
export function cityDisplayOf(a: ParsedAddress): string | null {
  return a.cityAsWritten ? a.cityWritten : displayOfWritten(a.cityWritten, false);
}

/**
 * The postal code and town of one field: "5000", "5000 Odense C", "DK-5000 Odense C", "Odense C"
 * (no code), also the code behind the town ("Odense C 5000"). The town is the words other than
 * the code and its "DK" prefix; null when there are none.
 */
interface CodeAndTown {
  readonly code: string | null;
  readonly town: string | null;
  readonly townWritten: string | null;
  readonly townAsWritten: boolean;
}

/**
 * City fields read, by their text: a city column holds a few hundred towns written a few ways, and
 * codeAndTown is a function of the text alone, so most rows' city is read once per table instead of
 * once per row (docs/matching.md "Speed of the check path"). A customer may put any text in a city
 * column, a name or a note among them, so a table keeps only what is no personal data:
 * - a list index build's table (`places` null, createListIndexBuilder) keeps the list's own city
 *   texts for that build, and goes with the builder;
 * - a list index's table for its checks (ListIndexData.cityFields) keeps a text only when it reads
 *   as a town at a postal code where the list has an address with that town (`places`, the
 *   list's postal code and town pairs as fingerprints): the name of a place, never a text that
 *   reads as anything else; it goes with the index.
 * Emptied when full, so odd city texts cannot grow it.
 */
export interface CityFieldTable {
  readonly readings: Map<string, CodeAndTown>;
  /** The list's postal code and town pairs (`placeKeyOf`), or null: keep every text (a build). */
  readonly places: FingerprintTable | null;
}
const CITY_FIELDS_MAX = 4096;

export function newCityFieldTable(places: FingerprintTable | null = null): CityFieldTable {
  return { readings: new Map(), places };
}

/**
 * The key of a postal code and folded town in CityFieldTable.places: `placeKeyOf(code, town)` is
 * what the builder interns, `places.getJoined(code, town, '')` what a check asks.
 */
export function placeKeyOf(code: string, town: string): string {
  return code + '|' + town + '|';
}

/** The reading of city field `raw`, the postal code field's code `postalCode` (null: none) beside it. */
function cityFieldOf(raw: string, table: CityFieldTable | null, postalCode: string | null): CodeAndTown {
  if (table === null) return codeAndTown(raw);
  let read = table.readings.get(raw);
  if (read === undefined) {
    const text = copyOf(raw);
    read = codeAndTown(text);
    const code = postalCode ?? read.code;
    const places = table.places;
    if (places === null || (read.town !== null && code !== null && places.getJoined(code, read.town, '') >= 0)) {
      if (table.readings.size >= CITY_FIELDS_MAX) table.readings.clear();
      table.readings.set(text, read);
    }
  }
  return read;
}

/**
 * A string with the text of `s` that holds none of the text `s` may have been cut from. V8 keeps a
 * longer cut ("Frederiksberg C" sliced from a file's chunk) as a view of the whole chunk; a table
 * that outlives the row (CityFieldTable) must not keep the chunk alive with it.
 */
function copyOf(s: string): string {
  return (' ' + s).slice(1);
}

function codeAndTown(raw: string): CodeAndTown {
  // The postal code field of most rows is its four digits and nothing else: no tokens to read.
  if (raw.length === 4 && isDigits(raw)) return { code: raw, town: null, townWritten: null, townAsWritten: false };
  let field = raw;
  let t = tokenize(field, tokens);
  if (t.wide) { // NFC only when it may change something (normalize.ts Tokens.wide)
    field = nfc(raw);
    if (field !== raw) t = tokenize(field, tokens);
  }
  let code = -1;
  for (let i = 0; i < t.count; i++) {
    if (t.norm[i].length === 4 && isDigits(t.norm[i])) { code = i; break; }
  }
  if (code < 0) {
    return {
      code: null, town: cityOf(t, 0, t.count), townWritten: writtenOf(field, t, 0, t.count),
      townAsWritten: shownAsWritten(field, t, 0, t.count, false),
    };
  }
  let from = code + 1;
  let to = t.count;
  if (from >= to) { // the town in front of the code, or none
    from = 0;
    to = code > 0 && t.norm[code - 1] === 'dk' ? code - 1 : code;
  }
  return {
    code: t.norm[code], town: cityOf(t, from, to), townWritten: writtenOf(field, t, from, to),
    townAsWritten: shownAsWritten(field, t, from, to, false),
  };
}

/**
 * Postal code and city from the `postal_code` and `city` fields, and from `line` (the `address`
 * field when it did not read as an address line): a postal code with its town may be in any of
 * them ("5000 Odense C" in the city column and no postal code column). The `postal_code` field's
 * code wins, the `city` field's town.
 */
function postalAndCityOf(
  a: AddressSource, line: string | null, cityFields: CityFieldTable | null,
): { postalCode: string | null; city: string | null; cityWritten: string | null; cityAsWritten: boolean } {
  // Raw field texts: codeAndTown makes them NFC when they need it.
  const postal = codeAndTown(rawText(a.postal_code));
  let postalCode = postal.code;
  let city = postalCode === null ? null : postal.town;
  let cityWritten = postalCode === null ? null : postal.townWritten;
  let cityAsWritten = postalCode !== null && postal.townAsWritten;
  const cityText = rawText(a.city);
  if (cityText.trim() !== '') {
    const fromCity = cityFieldOf(cityText, cityFields, postal.code);
    postalCode ??= fromCity.code;
    if (fromCity.town !== null) {
      city = fromCity.town;
      cityWritten = fromCity.townWritten;
      cityAsWritten = fromCity.townAsWritten;
    }
  }
  if (postalCode === null && line !== null && line.trim() !== '') {
    const fromLineField = codeAndTown(line);
    if (fromLineField.code !== null) {
      postalCode = fromLineField.code;
      if (city === null) {
        city = fromLineField.town;
        cityWritten = fromLineField.townWritten;
        cityAsWritten = fromLineField.townAsWritten;
      }
    }
  }
  return { postalCode, city, cityWritten, cityAsWritten };
}

/**
 * Parses one address line; `kvhx` (canonical) is attached when given. A line without a postal code
 * takes it (and the city) from the `postal_code`/`city` fields of `rest`, the usual CSV layout.
 */
function fromLine(
  raw: string, kvhx: string | null, rest: AddressSource | null, loose = false, cityFields: CityFieldTable | null = null,
): ParsedAddress | null {
  // One pass for the common line: tokenize tells whether NFC may change the text and whether a
  // line may be a care-of line; only then is the text made NFC or blanked, and read again.
  let written = raw;
  let t = tokenize(written, tokens);
  if (t.wide) {
    written = nfc(raw);
    if (written !== raw) t = tokenize(written, tokens);
  }
  let s = written;
  if (t.careOf) {
    s = blankCareOfLines(written); // same length: positions are those of the written text
    if (s !== written) t = tokenize(s, tokens);
  }
  const from = postalFirstEnd(s, t);
  const line = parseLine(s, t, from);
  if (line === null) return null;
  if (from > 0 && line.postalCode === null) { // "1610 København V, Gammel Kongevej 12", "DK-1610 …"
    const code = t.norm[0] === 'dk' ? 1 : 0;
    line.postalCode = t.norm[code];
    line.cityFrom = code + 1;
    line.cityTo = from;
  }
  const street = streetOf(t, line.streetFrom, line.streetTo);
  const streetWritten = writtenOf(s, t, line.streetFrom, line.streetTo);
  const streetAsWritten = shownAsWritten(s, t, line.streetFrom, line.streetTo, true);
  const setAside = line.setAside || s !== written;
  if (line.postalCode === null && rest !== null) {
    const { houseNumber, floor, door } = line;
    const pc = postalAndCityOf(rest, null, cityFields); // reuses the token buffer: read the line first
    return build(street, streetWritten, houseNumber, floor, door, pc.postalCode, pc.city, pc.cityWritten, kvhx,
      null, false, setAside, streetAsWritten, pc.cityAsWritten);
  }
  return build(street, streetWritten, line.houseNumber, line.floor, line.door, line.postalCode,
    cityOf(t, line.cityFrom, line.cityTo), writtenOf(s, t, line.cityFrom, line.cityTo), kvhx,
    cityOf(t, line.townFrom, line.townTo), loose, setAside, streetAsWritten,
    shownAsWritten(s, t, line.cityFrom, line.cityTo, false));
}

/** Address given in parts (street, house_number, floor, door, postal_code, city). */
function fromParts(a: AddressSource, kvhx: string | null, cityFields: CityFieldTable | null): ParsedAddress | null {
  const streetText = blankCareOfLines(text(a.street));
  const numberText = text(a.house_number);
  let t = tokenize(streetText, tokens);
  if (numberText.trim() === '' && t.count > 1) {
    // The street field holds the whole line ("Gl. Kongevej 12A, 3. tv"): read it as one.
    // A floor field of digits is a floor: written with its full stop so the line reads it as one.
    const floorText = text(a.floor).trim();
    return fromLine([streetText, isDigits(floorText) ? floorText + '.' : floorText, text(a.door)].join(' '), kvhx, a, false, cityFields);
  }
  // The street is the field's last line: a line in front of it ("Ida Frølich, Ridehusgade") is set aside.
  let streetFrom = t.count - 1;
  while (streetFrom > 0 && !hasLineEnd(streetText, t.end[streetFrom - 1], t.start[streetFrom])) streetFrom--;
  const street = streetOf(t, Math.max(streetFrom, 0), t.count);
  const streetWritten = writtenOf(streetText, t, Math.max(streetFrom, 0), t.count);
  const streetAsWritten = shownAsWritten(streetText, t, Math.max(streetFrom, 0), t.count, true);

  t = tokenize(numberText, tokens);
  let houseNumber = t.count > 0 ? houseNumberOf(t.norm[0]) : null;
  if (houseNumber !== null && t.count > 1 && t.norm[1].length === 1 && isDigits(houseNumber)) {
    houseNumber += t.norm[1];
  }
  const floorText = text(a.floor);
  t = tokenize(floorText, tokens);
  const floorUnit = unitOf(floorText, t, 0, t.count, true);
  t = tokenize(text(a.door), tokens);
  const door = doorFrom(t, 0, t.count);

  const pc = postalAndCityOf(a, text(a.address), cityFields);
  return build(street, streetWritten, houseNumber, floorUnit.floor, door ?? floorUnit.door, pc.postalCode,
    pc.city, pc.cityWritten, kvhx, null, false, streetFrom > 0 || streetText !== text(a.street), streetAsWritten,
    pc.cityAsWritten);
}

/** Only a kvhx: the house number, floor and door it holds, no street. */
function fromKvhx(kvhx: string): ParsedAddress | null {
  const house = kvhx.slice(8, 12).replace(/_/g, '').toLowerCase();
  const floor = kvhx.slice(12, 15).replace(/_/g, '');
  const door = kvhx.slice(15, 19).replace(/_/g, '');
  return build(null, null, house, floor === '' ? null : floor, door === '' ? null : door, null, null, null,
    kvhx, null);
}

/**
 * One address line read even without a postal code (then `buildingKey` is null and `town` holds
 * the words after the unit): what the address register needs to accept a missing postal code
 * when the town name is exact (docs/decisions.md §13, datavask). Null without a street and house number.
 */
export function parseAddressLine(line: string): ParsedAddress | null {
  if (typeof line !== 'string' || line.trim() === '') return null;
  return fromLine(line, null, null, true); // fromLine makes it NFC when it may need it
}

/**
 * Reads the address of a person or list entry: the `address` string (completed by `postal_code`
 * and `city` when it holds no postal code), else the parts, else `kvhx` alone. Null when unreadable:
 * no street with a house number and a postal code, and no valid kvhx. `cityFields`: the table of
 * city fields read (CityFieldTable) of a list index build or of the index a check runs against.
 */
export function parseAddress(person: AddressSource, cityFields: CityFieldTable | null = null): ParsedAddress | null {
  if (person === null || typeof person !== 'object') return null;
  const kvhxText = person.kvhx; // read once (resolve.ts addressInputOf: inputs come in many shapes)
  const kvhx = typeof kvhxText === 'string' && kvhxText !== '' ? canonicalKvhx(kvhxText) : null;
  const line = rawText(person.address);
  if (line.trim() !== '') {
    const parsed = fromLine(line, kvhx, person, false, cityFields);
    if (parsed !== null && parsed.buildingKey !== null) return parsed;
  }
  if (text(person.street).trim() !== '') {
    const parsed = fromParts(person, kvhx, cityFields);
    if (parsed !== null) return parsed;
  }
  return kvhx === null ? null : fromKvhx(kvhx);
}
