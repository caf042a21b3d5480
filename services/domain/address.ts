import {
  ROMAN_NUMERALS, abbreviationOf, displayWord, doorOf, floorOf, gluedFloorDoor, houseNumberOf, isDigits, isDoorFiller,
  isFiller, isNumeralPossessive, isStreetOrdinal, isTownWord, postalFirstEnd,
} from './address-words.ts';
import { KVHX_BUILDING_LENGTH, canonicalKvhx } from './kvhx.ts';
import { newTokens, tokenize, type Tokens } from './normalize.ts';
import type { ListEntry, PersonInput } from './types.ts';

/**
 * An address as matching sees it (DECISIONS §1). Normalised fields are folded text (see
 * normalize.ts); `streetWritten`/`cityWritten` keep the writer's text, which streetDisplayOf and
 * cityDisplayOf turn into the spelling ResolvedAddress shows.
 * A building is street + house number + postal code; a unit is floor + door inside it.
 */
export interface ParsedAddress {
  /** Folded street words, abbreviations expanded: "gammel kongevej". */
  street: string | null;
  /** The street words joined without spaces ("gammelkongevej"): the street part of `buildingKey`. */
  streetKey: string | null;
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
   * Folded supplementary town name written between the unit and the postal code ("skee"); in a
   * line without a postal code (parseAddressLine), the words after the unit (the town, or the
   * postal district's name). Null when none.
   */
  town: string | null;
  /** street (without spaces) | house number | postal code; null when only a kvhx was given. */
  buildingKey: string | null;
  /** floor|door; '' for a building without floor and door (one unit); see unitKeyOf. */
  unitKey: string;
  /** First 12 characters of the canonical kvhx (kommune, vej, husnummer). */
  kvhxBuilding: string | null;
  /** Last 7 characters of the canonical kvhx (etage, door). */
  kvhxUnit: string | null;
}

type AddressSource = Omit<PersonInput, 'id' | 'phone'> | ListEntry;

const tokens = newTokens();
const NO_COUNTRY: Record<string, true> = { danmark: true, denmark: true, dk: true };

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
}

/**
 * Folded street of tokens [from, to): abbreviations expanded, "…vj" → "…vej", a roman ordinal
 * before a possessive "s" in digits ("Christian IX's Gade" = "Christian 9.s Gade").
 */
function streetOf(t: Tokens, from: number, to: number): { words: string; key: string } {
  let words = '';
  let key = '';
  for (let i = from; i < to; i++) {
    let word = t.norm[i];
    const abbreviation = abbreviationOf(word);
    const roman = i + 1 < to && t.norm[i + 1] === 's' ? ROMAN_NUMERALS[word] : undefined;
    if (roman !== undefined) word = roman;
    else if (abbreviation !== undefined) word = abbreviation.norm;
    else if (word.length > 3 && word.endsWith('vj')) word = word.slice(0, -1) + 'ej'; // "Kongevj." 
    words = i === from ? word : words + ' ' + word;
    key += word;
  }
  return { words, key };
}

/** The writer's spelling of tokens [from, to), cased for display, abbreviations optionally expanded. */
function displayOf(s: string, t: Tokens, from: number, to: number, expand: boolean): string {
  let out = '';
  let previousExpanded = false;
  for (let i = from; i < to; i++) {
    const raw = s.slice(t.start[i], t.end[i]);
    const abbreviation = expand ? abbreviationOf(t.norm[i]) : undefined;
    if (i > from) {
      const gap = s.slice(t.end[i - 1], t.start[i]);
      const previousShort = t.end[i - 1] - t.start[i - 1] <= 2;
      if (previousExpanded || gap.includes(',')) out += ' ';
      else if (gap === '-' || gap === "'" || gap === '’') out += gap;
      else if (gap.charCodeAt(0) === 46 /* . */ && previousShort) out += gap.length === 1 ? '.' : '. '; // "H.C. Andersens"
      else out += ' ';
    }
    let word = abbreviation !== undefined ? abbreviation.display : displayWord(raw);
    if (isNumeralPossessive(t, i, from)) word = 's'; // "9.s", "VII's"
    else if (i + 1 < to && t.norm[i + 1] === 's' && ROMAN_NUMERALS[t.norm[i]] !== undefined) {
      word = raw.toUpperCase();
    }
    if (expand && abbreviation === undefined && t.norm[i].length > 3 && t.norm[i].endsWith('vj')) {
      word = word.slice(0, -1) + 'ej';
    }
    out += word;
    previousExpanded = abbreviation !== undefined;
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
    while (k > from && !s.slice(t.end[k - 1], t.start[k]).includes(',')) {
      k--;
      if (!isLettersOnly(t.norm[k])) lettersOnly = false;
    }
    if (lettersOnly && s.slice(t.end[k - 1], t.start[k]).includes(',')) return k;
    k = j;
    while (k > from && isFiller(t.norm[k - 1]) && !isDoorFiller(t.norm[k - 1])) k--;
    return k;
  }
  return to;
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
      const pair = token + t.norm[i + 1];
      if (pair === 'tv' || pair === 'th' || pair === 'mf') return pair;
    }
    const door = doorOf(token);
    if (door !== null) return door;
  }
  return null;
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
  let streetTo = h;
  if (streetTo - 1 > from && t.norm[streetTo - 1] === 'nr') streetTo--; // "Nørregade nr. 7"
  let k = h + 1;
  const next = k < n ? t.norm[k] : '';
  const pair = k + 1 < n ? next + t.norm[k + 1] : '';
  const isDoorPair = pair === 'tv' || pair === 'th' || pair === 'mf'; // "12, t.v."
  const afterComma = k < n && s.slice(t.end[h], t.start[k]).includes(','); // "Vej 5, a": door a
  if (next.length === 1 && next >= 'a' && next <= 'z' && isDigits(houseNumber) && !isDoorPair && !afterComma) { // "12 A"
    houseNumber += next;
    k++;
  }
  let p = -1;
  for (let i = n - 1; i >= k; i--) {
    if (t.norm[i].length === 4 && isDigits(t.norm[i])) { p = i; break; }
  }
  let cityTo = n;
  while (cityTo > p + 1 && NO_COUNTRY[t.norm[cityTo - 1]] === true) cityTo--;
  const unitTo = p < 0 ? n : p;
  const townFrom = townStart(s, t, k, unitTo);
  const unit = unitOf(s, t, k, townFrom, false);
  return {
    streetFrom: from, streetTo, houseNumber, floor: unit.floor, door: unit.door,
    postalCode: p < 0 ? null : t.norm[p], cityFrom: p < 0 ? n : p + 1, cityTo: p < 0 ? n : cityTo,
    townFrom, townTo: unitTo,
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function build(
  street: { words: string; key: string } | null, streetWritten: string | null,
  houseNumber: string | null, floor: string | null, door: string | null,
  postalCode: string | null, city: string | null, cityWritten: string | null, kvhx: string | null,
  town: string | null = null, loose = false,
): ParsedAddress | null {
  const hasText = street !== null && street.key !== '' && houseNumber !== null && postalCode !== null;
  if (!hasText && kvhx === null && !(loose && street !== null && street.key !== '' && houseNumber !== null)) return null;
  return {
    street: street === null || street.words === '' ? null : street.words,
    streetKey: street === null || street.key === '' ? null : street.key,
    houseNumber, floor, door, postalCode, city, streetWritten, cityWritten, town,
    buildingKey: hasText ? street.key + '|' + houseNumber + '|' + postalCode : null,
    unitKey: unitKeyOf(floor, door),
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
  const t = tokenize(written, displayTokens);
  return displayOf(written, t, 0, t.count, expand);
}

/** The street as ResolvedAddress shows it: the writer's spelling, cased, abbreviations expanded. */
export function streetDisplayOf(a: ParsedAddress): string | null {
  return displayOfWritten(a.streetWritten, true);
}

/** The city as ResolvedAddress shows it: the writer's spelling, cased. */
export function cityDisplayOf(a: ParsedAddress): string | null {
  return displayOfWritten(a.cityWritten, false);
}

/** Postal code and city from the `postal_code` ("1610" or "1610 København V") and `city` fields. */
function postalAndCityOf(a: AddressSource): { postalCode: string | null; city: string | null; cityWritten: string | null } {
  const postalText = text(a.postal_code);
  let t = tokenize(postalText, tokens);
  let postalCode: string | null = null;
  let city: string | null = null;
  let cityWritten: string | null = null;
  for (let i = 0; i < t.count; i++) {
    if (t.norm[i].length === 4 && isDigits(t.norm[i])) {
      postalCode = t.norm[i];
      city = cityOf(t, i + 1, t.count);
      cityWritten = writtenOf(postalText, t, i + 1, t.count);
      break;
    }
  }
  const cityText = text(a.city);
  if (cityText.trim() !== '') {
    t = tokenize(cityText, tokens);
    city = cityOf(t, 0, t.count);
    cityWritten = writtenOf(cityText, t, 0, t.count);
  }
  return { postalCode, city, cityWritten };
}

/**
 * Parses one address line; `kvhx` (canonical) is attached when given. A line without a postal code
 * takes it (and the city) from the `postal_code`/`city` fields of `rest`, the usual CSV layout.
 */
function fromLine(s: string, kvhx: string | null, rest: AddressSource | null, loose = false): ParsedAddress | null {
  const t = tokenize(s, tokens);
  const from = postalFirstEnd(s, t);
  const line = parseLine(s, t, from);
  if (line === null) return null;
  if (from > 0 && line.postalCode === null) { // "1610 København V, Gammel Kongevej 12"
    line.postalCode = t.norm[0];
    line.cityFrom = 1;
    line.cityTo = from;
  }
  const street = streetOf(t, line.streetFrom, line.streetTo);
  const streetWritten = writtenOf(s, t, line.streetFrom, line.streetTo);
  if (line.postalCode === null && rest !== null) {
    const { houseNumber, floor, door } = line;
    const pc = postalAndCityOf(rest); // reuses the token buffer: read the line first
    return build(street, streetWritten, houseNumber, floor, door, pc.postalCode, pc.city, pc.cityWritten, kvhx);
  }
  return build(street, streetWritten, line.houseNumber, line.floor, line.door, line.postalCode,
    cityOf(t, line.cityFrom, line.cityTo), writtenOf(s, t, line.cityFrom, line.cityTo), kvhx,
    cityOf(t, line.townFrom, line.townTo), loose);
}

/** Address given in parts (street, house_number, floor, door, postal_code, city). */
function fromParts(a: AddressSource, kvhx: string | null): ParsedAddress | null {
  const streetText = text(a.street);
  const numberText = text(a.house_number);
  let t = tokenize(streetText, tokens);
  if (numberText.trim() === '' && t.count > 1) {
    // The street field holds the whole line ("Gl. Kongevej 12A, 3. tv"): read it as one.
    // A floor field of digits is a floor: written with its full stop so the line reads it as one.
    const floorText = text(a.floor).trim();
    return fromLine([streetText, isDigits(floorText) ? floorText + '.' : floorText, text(a.door)].join(' '), kvhx, a);
  }
  const street = streetOf(t, 0, t.count);
  const streetWritten = writtenOf(streetText, t, 0, t.count);

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

  const pc = postalAndCityOf(a);
  return build(street, streetWritten, houseNumber, floorUnit.floor, door ?? floorUnit.door, pc.postalCode,
    pc.city, pc.cityWritten, kvhx);
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
 * when the town name is exact (DECISIONS §13, datavask). Null without a street and house number.
 */
export function parseAddressLine(line: string): ParsedAddress | null {
  if (typeof line !== 'string' || line.trim() === '') return null;
  return fromLine(line, null, null, true);
}

/**
 * Reads the address of a person or list entry: the `address` string (completed by `postal_code`
 * and `city` when it holds no postal code), else the parts, else `kvhx` alone. Null when unreadable:
 * no street with a house number and a postal code, and no valid kvhx.
 */
export function parseAddress(person: AddressSource): ParsedAddress | null {
  if (person === null || typeof person !== 'object') return null;
  const kvhx = typeof person.kvhx === 'string' && person.kvhx !== '' ? canonicalKvhx(person.kvhx) : null;
  const line = text(person.address);
  if (line.trim() !== '') {
    const parsed = fromLine(line, kvhx, person);
    if (parsed !== null && parsed.buildingKey !== null) return parsed;
  }
  if (text(person.street).trim() !== '') {
    const parsed = fromParts(person, kvhx);
    if (parsed !== null) return parsed;
  }
  return kvhx === null ? null : fromKvhx(kvhx);
}
