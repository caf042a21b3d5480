import { parseAddress, parseAddressLine, type ParsedAddress } from './address.ts';
import {
  A_FIELDS, A_HOUSE, A_POSTAL, A_STREET, A_TOWN, A_UNIT_END, A_UNIT_FROM, U_DOOR, U_FIELDS, U_FLOOR, U_KEY, nameKey,
  type AddressRegister, type AddressRegisterData,
} from './address-register.ts';
import { spellingAgrees } from './address-words.ts';
import { closestStreets } from './street-index.ts';
import { toResolvedAddress } from './resolve.ts';
import type { ResolvedAddress } from './types.ts';

/**
 * Resolution against the address register the way DAWA's "datavask" does it (docs/decisions.md §13):
 * - `exact`: street (full name or the short addressing name), house number, postal code and unit
 *   are the register's, and no word is unknown (a city other than the postal district's name, or
 *   a supplementary town name other than the access address's, is an unknown word).
 *   The parser's spellings count as the same text: leading zeros in house numbers, floors and
 *   doors, "kld." = "kl", "2tv" = "2 sal tv" = "2. sAl tv", abbreviations (§1).
 *   A missing postal code is accepted when the words after the unit name exactly one postal
 *   district ("Skeevej 39, Skee, Store Merløse").
 * - `corrected`: house number, floor, door and postal code agree exactly and the street is the one
 *   closest street of the postal code within the edit distance of the street fallback
 *   (street-index.ts); two access addresses at the same distance are ambiguous: unresolved. An
 *   exact address with an unknown word is corrected too (the register's spelling replaces it).
 * - `unresolved`: anything else. `notFound` says the address parsed but the register has no such
 *   access address (the reason `address_not_found`); an access address found without the unit
 *   written is unresolved but found (matching can still use the building).
 */
export interface RegisterMatch {
  /** Access address (register position) or -1. */
  access: number;
  /** Unit address (register position) or -1. */
  unit: number;
  confidence: 'exact' | 'corrected' | 'unresolved';
  notFound: boolean;
}

const closest: number[] = [];

/** The unit of `access` with the parsed unit key; a single unit when none was written. */
function unitOf(d: AddressRegisterData, access: number, unitKey: string): number {
  const from = d.accesses[access * A_FIELDS + A_UNIT_FROM];
  const to = d.accesses[access * A_FIELDS + A_UNIT_END];
  const units = d.units;
  if (unitKey === '') {
    if (to - from === 1) return from;
    const none = d.unitKeys.get('') ?? -2;
    for (let u = from; u < to; u++) if (units[u * U_FIELDS + U_KEY] === none) return u;
    return -1;
  }
  const key = d.unitKeys.get(unitKey);
  if (key === undefined) return -1;
  for (let u = from; u < to; u++) if (units[u * U_FIELDS + U_KEY] === key) return u;
  return -1;
}

/**
 * Postal code and supplementary town of a line without a postal code, from its trailing words;
 * `changed` when the district's name was found only with a letter changed ("Arhus C").
 */
function postalFromTown(
  d: AddressRegisterData, town: string,
): { postal: string; town: string | null; changed: boolean } | null {
  const words = town.split(' ');
  for (let k = 0; k < words.length; k++) {
    const name = words.slice(k).join(' ');
    const ids = d.postalByName.get(nameKey(name));
    if (ids === undefined) continue;
    if (ids.length !== 1) return null; // a name several postal districts share: not exact
    return {
      postal: d.postalCodes[ids[0]], town: k === 0 ? null : words.slice(0, k).join(' '),
      changed: !sameWords(name, d.postalCities[ids[0]]),
    };
  }
  return null;
}

/**
 * Whether two folded texts (words separated by one space) are the same but for spacing: what
 * `exact` allows a city or town ("Odense C" = "OdenseC"); a changed letter ("Arhus" for "Aarhus",
 * which the skeleton of nameKey would accept) is not the same.
 */
function sameWords(a: string, b: string): boolean {
  if (a === b) return true;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && a.charCodeAt(i) === 32) i++;
    while (j < b.length && b.charCodeAt(j) === 32) j++;
    if (i === a.length || j === b.length) return i === a.length && j === b.length;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) return false;
    i++;
    j++;
  }
}

/**
 * Whether the written street names access `access`'s street: its full name or its addressing
 * name, letter for letter after folding (spellingAgrees). The building key is more lenient (the
 * skeleton, the word classes of address-words.ts): "Abenravej" finds Åbenråvej, but is not exact.
 */
function streetSpelledAsRegister(d: AddressRegisterData, access: number, spelling: string): boolean {
  const street = d.accesses[access * A_FIELDS + A_STREET];
  if (spellingAgrees(spelling, d.streetSpellings[street])) return true;
  const addressing = d.addressingSpellings[street];
  return addressing !== null && spellingAgrees(spelling, addressing);
}

function accessByText(d: AddressRegisterData, streetKey: string, house: string, postal: string): number {
  return d.buildings.getJoined(streetKey, house, postal);
}

/** The one access address at the closest street of the postal code, or -1 (none, or ambiguous). */
function correctedAccess(d: AddressRegisterData, streetKey: string, house: string, postal: string): number {
  const count = closestStreets(d.streets, streetKey, postal, closest);
  let found = -1;
  for (let i = 0; i < count; i++) {
    const a = accessByText(d, d.streets.keys[closest[i]], house, postal);
    if (a < 0 || a === found) continue;
    if (found >= 0) return -1;
    found = a;
  }
  return found;
}

/**
 * A RegisterMatch written into the caller's object (checkPerson resolves every input: no object
 * per input), with how the access address was found.
 */
export interface RegisterResolution extends RegisterMatch {
  /**
   * The access address is the one the parsed `buildingKey` names in the register: not by the
   * closest street, not by postal district name, not by KVHX. Every list entry with that building
   * key resolved to the same access address (same key, same lookup), so its records under the
   * access address stand for those under the text key.
   */
  byBuildingKey: boolean;
}

/** Resolves a parsed address (parseAddress or parseAddressLine) in the register. Never throws. */
export function resolveParsed(register: AddressRegister, parsed: ParsedAddress | null): RegisterMatch {
  const { access, unit, confidence, notFound } = resolveParsedInto(register, parsed, scratch);
  return { access, unit, confidence, notFound };
}

const scratch: RegisterResolution = { access: -1, unit: -1, confidence: 'unresolved', notFound: false, byBuildingKey: false };

function answer(
  out: RegisterResolution, access: number, unit: number, confidence: RegisterMatch['confidence'], notFound: boolean,
  byBuildingKey: boolean,
): RegisterResolution {
  out.access = access;
  out.unit = unit;
  out.confidence = confidence;
  out.notFound = notFound;
  out.byBuildingKey = byBuildingKey;
  return out;
}

/** resolveParsed into `out` (returned). */
export function resolveParsedInto(
  register: AddressRegister, parsed: ParsedAddress | null, out: RegisterResolution,
): RegisterResolution {
  if (parsed === null) return answer(out, -1, -1, 'unresolved', false, false);
  const d = register.data;
  let access = -1;
  let corrected = false;
  // A word the register does not write (a city other than the district's), or a changed letter.
  let unknownWords = parsed.setAside; // the register's form would drop the set-aside line
  let byBuildingKey = false;
  if (parsed.streetKey !== null && parsed.houseNumber !== null) {
    let postal = parsed.postalCode;
    let town = parsed.town;
    if (postal === null) {
      if (town === null) return answer(out, -1, -1, 'unresolved', false, false);
      const found = postalFromTown(d, town);
      if (found === null) return answer(out, -1, -1, 'unresolved', false, false);
      postal = found.postal;
      town = found.town;
      if (found.changed) unknownWords = true;
      access = accessByText(d, parsed.streetKey, parsed.houseNumber, postal);
    } else {
      if (parsed.city !== null) {
        const id = d.postalIdOfCode[postalNumberOf(postal)];
        if (id < 0 || !sameWords(parsed.city, d.postalCities[id])) unknownWords = true;
      }
      // buildingKey is streetKey|houseNumber|postalCode (address.ts): looked up by its parts.
      access = d.buildings.getJoined(parsed.streetKey, parsed.houseNumber, postal);
      byBuildingKey = access >= 0;
    }
    if (access < 0) {
      access = correctedAccess(d, parsed.streetKey, parsed.houseNumber, postal);
      corrected = access >= 0;
    } else if (!streetSpelledAsRegister(d, access, parsed.streetSpelling!)) {
      corrected = true; // found by the lenient key, written with a changed letter or word
    }
    if (access >= 0 && town !== null) {
      const t = d.accesses[access * A_FIELDS + A_TOWN];
      if (t < 0 || !sameWords(town, d.townCities[t])) unknownWords = true;
    }
  } else if (parsed.kvhxBuilding !== null) {
    access = d.kvhxBuildings.get(parsed.kvhxBuilding);
  }
  if (access < 0) return answer(out, -1, -1, 'unresolved', true, false);
  const unit = unitOf(d, access, parsed.unitKey);
  if (unit < 0) return answer(out, access, -1, 'unresolved', false, byBuildingKey);
  return answer(out, access, unit, corrected || unknownWords ? 'corrected' : 'exact', false, byBuildingKey);
}

/** A parsed postal code (four digits, address.ts) as a number. */
function postalNumberOf(code: string): number {
  return (code.charCodeAt(0) - 48) * 1000 + (code.charCodeAt(1) - 48) * 100 + (code.charCodeAt(2) - 48) * 10
    + code.charCodeAt(3) - 48;
}

/** The register's spelling of a resolved unit address, as the API answers it. */
export function registerAddress(
  register: AddressRegister, access: number, unit: number, input: string, confidence: 'exact' | 'corrected',
): ResolvedAddress {
  const d = register.data;
  const o = access * A_FIELDS;
  const street = d.streetNames[d.accesses[o + A_STREET]];
  const house = d.houseNumbers[d.accesses[o + A_HOUSE]];
  const floorId = d.units[unit * U_FIELDS + U_FLOOR];
  const doorId = d.units[unit * U_FIELDS + U_DOOR];
  const floor = floorId < 0 ? null : d.floors[floorId];
  const door = doorId < 0 ? null : d.doors[doorId];
  const townId = d.accesses[o + A_TOWN];
  const postal = d.accesses[o + A_POSTAL];
  const postalCode = d.postalCodes[postal];
  const city = d.postalNames[postal];
  // "Skeevej 39B, st. tv, Skee, 4370 Store Merløse"
  let formatted = street + ' ' + house;
  if (floor !== null || door !== null) {
    formatted += ', ';
    if (floor !== null) formatted += floor + '.';
    if (door !== null) formatted += (floor !== null ? ' ' : '') + door;
  }
  if (townId >= 0) formatted += ', ' + d.towns[townId];
  formatted += ', ' + postalCode + ' ' + city;
  return {
    input, ok: true, street, house_number: house, floor, door, postal_code: postalCode, city, formatted, confidence,
  };
}

/**
 * POST /v2/addresses/resolve with a register loaded: the register's spelling when the address
 * resolves, else the parse-only answer (confidence `unresolved`). `notFound` is the
 * `address_not_found` condition.
 */
export function resolveWithRegister(
  register: AddressRegister, text: string,
): { address: ResolvedAddress; match: RegisterMatch } {
  const input = typeof text === 'string' ? text : '';
  const parsed = parseAddress({ address: input });
  const match = resolveParsed(register, parsed ?? parseAddressLine(input));
  if (match.unit >= 0 && match.confidence !== 'unresolved') {
    return { address: registerAddress(register, match.access, match.unit, input, match.confidence), match };
  }
  return { address: toResolvedAddress(parsed, input), match };
}
