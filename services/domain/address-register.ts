import { parseAddress, unitKeyOf } from './address.ts';
import { createFingerprintMap, type FingerprintMap } from './fingerprint-table.ts';
import { normalizeText, skeleton } from './normalize.ts';
import { createStreetIndexBuilder, type StreetIndex } from './street-index.ts';
import { growableInt32 } from './growable-int32.ts';

/**
 * The national address register (DAR) in memory, for resolution (docs/decisions.md §13) and for matching
 * on register identities. Pure: the importer (services/registers/addresses) reads DAR's entity files and
 * hands over one RegisterAddress per unit address; this module never sees a file or a store.
 *
 * Built for the whole country (some 2.5 million access addresses, 3-4 million unit addresses):
 * nothing is kept as an object per address. Access addresses (DAR Husnummer) are numbered 0..A-1,
 * their units (DAR Adresse) stored access by access in typed arrays; strings that repeat (street
 * names, house numbers, floors, doors, postal names, town names) are interned once. Positions are
 * the identities matching uses: stable within one register version, never stored.
 */

/** One unit address (DAR Adresse) with what it inherits from its access address, street and postal code. */
export interface RegisterAddress {
  /** DAR Husnummer id: units with the same id are one access address (one building entrance). */
  accessId: string;
  /** NavngivenVej.vejnavn: "Borgmester Christiansens Gade". */
  street: string;
  /** NavngivenVej.vejadresseringsnavn, the short addressing name: "Borgm Christiansens Gade". */
  addressingName: string | null;
  /** Husnummer.husnummertekst: "12A". */
  houseNumber: string;
  /** Adresse.etagebetegnelse: "st", "1", "kl", "k2"; null for none. */
  floor: string | null;
  /** Adresse.dørbetegnelse: "tv", "th", "mf", "1", "a"; null for none. */
  door: string | null;
  /** Postnummer.postnr (large recipients included, e.g. "0800"). */
  postalCode: string;
  /** Postnummer.navn: "København V". */
  postalName: string;
  /** SupplerendeBynavn.navn: "Skee"; null for none. */
  town: string | null;
  /** NavngivenVejKommunedel.kommune and .vejkode: the legacy codes of the KVHX key; null when unknown. */
  kommunekode: string | null;
  vejkode: string | null;
}

export interface AddressRegister {
  /** Number of access addresses and of unit addresses. */
  readonly accessCount: number;
  readonly unitCount: number;
  readonly data: AddressRegisterData;
}

export interface AddressRegisterData {
  /** street key|house number|postal code (full street name and addressing name) → access. */
  buildings: FingerprintMap;
  /** KVHX building (12 characters) → access, for list entries that carry only the legacy codes. */
  kvhxBuildings: FingerprintMap;
  /**
   * Per access, A_FIELDS numbers side by side (A_STREET ... A_UNIT_END): street id, house number
   * id, postal id, town id (-1: none), and its units as unit positions [A_UNIT_FROM, A_UNIT_END).
   * One record per access, not one array per field: a check reads all of them for its access,
   * and at national size each separate array is one more cache miss per input.
   */
  accesses: Int32Array;
  /** Per unit, U_FIELDS numbers: the unitKeyOf(floor, door) id (address.ts), floor id, door id (-1: none). */
  units: Int32Array;
  /**
   * Interned strings the ids above point at. A street id is one (full name, addressing name)
   * pair: `streetNames` its full name, `streetSpellings`/`addressingSpellings` the two as
   * ParsedAddress.streetSpelling reads them (null: no other addressing name), for `exact`.
   */
  streetNames: string[];
  streetSpellings: string[];
  addressingSpellings: (string | null)[];
  houseNumbers: string[];
  floors: string[];
  doors: string[];
  postalCodes: string[];
  postalNames: string[];
  towns: string[];
  /** Town and postal names as the parser reads a city (parsedCityOf), compared by `exact`. */
  townCities: string[];
  postalCities: string[];
  /** unitKeyOf(...) → id. */
  unitKeys: Map<string, number>;
  /** Streets by postal code (full and addressing names), for the closest-street rule. */
  streets: StreetIndex;
  /** Skeleton of a folded postal name ("koebenhavn v") → postal ids with that name. */
  postalByName: Map<string, number[]>;
  /** Postal code as a number (0800 → 800) → postal id, -1 for none: no string hashing per resolution. */
  postalIdOfCode: Int32Array;
}

export const A_STREET = 0;
export const A_HOUSE = 1;
export const A_POSTAL = 2;
export const A_TOWN = 3;
export const A_UNIT_FROM = 4;
export const A_UNIT_END = 5;
export const A_FIELDS = 6;
export const U_KEY = 0;
export const U_FLOOR = 1;
export const U_DOOR = 2;
export const U_FIELDS = 3;

/** Folded, spaces dropped: the form names are compared in ("St. Merløse" = "st merloese"). */
export function nameKey(text: string): string {
  return skeleton(normalizeText(text).replace(/ /g, ''));
}

/** A name as ParsedAddress.city (and .town) holds it: its folded words. */
function parsedCityOf(name: string): string {
  return parseAddress({ street: 'x', house_number: '1', postal_code: '0000', city: name })?.city ?? '';
}

function intern(map: Map<string, number>, list: string[], value: string): number {
  let id = map.get(value);
  if (id === undefined) {
    id = list.length;
    list.push(value);
    map.set(value, id);
  }
  return id;
}

export interface AddressRegisterBuilder {
  /**
   * Adds one unit address. Units of one access address may come in any order; an address whose
   * street, house number or postal code does not read is skipped and counted in `skipped`.
   */
  add(address: RegisterAddress): void;
  readonly skipped: number;
  build(): AddressRegister;
}

/** The building key and house number of a street name + house number + postal code, as parseAddress reads them. */
function buildingOf(
  street: string, houseNumber: string, postalCode: string,
): { key: string; house: string; spelling: string; words: string | null } | null {
  const parsed = parseAddress({ street, house_number: houseNumber, postal_code: postalCode });
  return parsed?.buildingKey
    ? { key: parsed.buildingKey, house: parsed.houseNumber!, spelling: parsed.streetSpelling!, words: parsed.street }
    : null;
}

export function createAddressRegisterBuilder(): AddressRegisterBuilder {
  const accessIndex = new Map<string, number>();
  const accessStreet = growableInt32(1 << 12);
  const accessHouse = growableInt32(1 << 12);
  const accessPostal = growableInt32(1 << 12);
  const accessTown = growableInt32(1 << 12);
  const accessFullKey: string[] = [];
  const accessShortKey: (string | null)[] = [];
  const accessKvhx: (string | null)[] = [];
  // Units in arrival order; grouped by access in build().
  const unitAccess = growableInt32(1 << 12);
  const unitKeyColumn = growableInt32(1 << 12);
  const unitFloor = growableInt32(1 << 12);
  const unitDoor = growableInt32(1 << 12);
  const strings = {
    streetNames: [] as string[], houseNumbers: [] as string[], floors: [] as string[], doors: [] as string[],
    postalCodes: [] as string[], postalNames: [] as string[], towns: [] as string[],
  };
  const maps = {
    streetNames: new Map<string, number>(), houseNumbers: new Map<string, number>(), floors: new Map<string, number>(),
    doors: new Map<string, number>(), postalCodes: new Map<string, number>(), towns: new Map<string, number>(),
  };
  const streetSpellings: string[] = [];
  const addressingSpellings: (string | null)[] = [];
  const unitKeys = new Map<string, number>();
  const unitKeyList: string[] = [];
  /** Raw "floor|door" as the register writes it → unit key id: a few thousand distinct at most. */
  const unitKeyOfRaw = new Map<string, number>();
  const streets = createStreetIndexBuilder();
  let skipped = 0;
  let built = false;

  function addAccess(a: RegisterAddress): number {
    const full = buildingOf(a.street, a.houseNumber, a.postalCode);
    if (full === null) return -1;
    const fullKey = full.key;
    const short = a.addressingName && a.addressingName !== a.street
      ? buildingOf(a.addressingName, a.houseNumber, a.postalCode) : null;
    const shortKey = short?.key ?? null;
    const id = accessStreet.length();
    accessIndex.set(a.accessId, id);
    const streetPair = short === null ? a.street : a.street + '\u0000' + a.addressingName;
    let streetId = maps.streetNames.get(streetPair);
    if (streetId === undefined) {
      streetId = strings.streetNames.length;
      maps.streetNames.set(streetPair, streetId);
      strings.streetNames.push(a.street);
      streetSpellings.push(full.spelling);
      addressingSpellings.push(short?.spelling ?? null);
    }
    accessStreet.push(streetId);
    accessHouse.push(intern(maps.houseNumbers, strings.houseNumbers, a.houseNumber));
    const postalId = intern(maps.postalCodes, strings.postalCodes, a.postalCode);
    if (strings.postalNames.length <= postalId) strings.postalNames.push(a.postalName);
    accessPostal.push(postalId);
    accessTown.push(a.town ? intern(maps.towns, strings.towns, a.town) : -1);
    accessFullKey.push(fullKey);
    accessShortKey.push(shortKey);
    accessKvhx.push(
      a.kommunekode && a.vejkode
        ? a.kommunekode.padStart(4, '0') + a.vejkode.padStart(4, '0') + full.house.toUpperCase().padStart(4, '_')
        : null,
    );
    streets.add(fullKey.slice(0, fullKey.indexOf('|')), a.street, a.postalCode, full.words);
    if (shortKey !== null) streets.add(shortKey.slice(0, shortKey.indexOf('|')), a.street, a.postalCode, short!.words);
    return id;
  }

  return {
    add(a: RegisterAddress): void {
      if (built) throw new Error('address register already built');
      let access = accessIndex.get(a.accessId);
      if (access === undefined) {
        access = addAccess(a);
        if (access < 0) {
          skipped++;
          return;
        }
      }
      const floor = a.floor === null || a.floor === '' ? null : a.floor;
      const door = a.door === null || a.door === '' ? null : a.door;
      const raw = (floor ?? '') + '|' + (door ?? '');
      let keyId = unitKeyOfRaw.get(raw);
      if (keyId === undefined) {
        // The unit key as the parser makes it from the register's own spelling ("st", "TV" → "tv").
        const parsed = parseAddress({ street: 'x', house_number: '1', floor: floor ?? '', door: door ?? '', postal_code: '0000' });
        keyId = intern(unitKeys, unitKeyList, unitKeyOf(parsed?.floor ?? null, parsed?.door ?? null));
        unitKeyOfRaw.set(raw, keyId);
      }
      unitAccess.push(access);
      unitKeyColumn.push(keyId);
      unitFloor.push(floor === null ? -1 : intern(maps.floors, strings.floors, floor));
      unitDoor.push(door === null ? -1 : intern(maps.doors, strings.doors, door));
    },
    get skipped() {
      return skipped;
    },
    build(): AddressRegister {
      if (built) throw new Error('address register already built');
      built = true;
      const accessCount = accessStreet.length();
      const buildings = createFingerprintMap(1 << 16);
      const kvhxBuildings = createFingerprintMap(1 << 16);
      // A key two accesses share (a data error) keeps the first.
      for (let a = 0; a < accessCount; a++) {
        buildings.setIfAbsent(accessFullKey[a], a);
        const short = accessShortKey[a];
        if (short !== null) buildings.setIfAbsent(short, a);
        const kvhx = accessKvhx[a];
        if (kvhx !== null) kvhxBuildings.setIfAbsent(kvhx, a);
      }
      accessFullKey.length = 0;
      accessShortKey.length = 0;
      accessKvhx.length = 0;
      const owners = unitAccess.done();
      const unitCount = owners.length;
      const unitStart = new Int32Array(accessCount + 1);
      for (let u = 0; u < unitCount; u++) unitStart[owners[u] + 1]++;
      for (let a = 0; a < accessCount; a++) unitStart[a + 1] += unitStart[a];
      const fill = unitStart.slice(0, accessCount);
      const keys = unitKeyColumn.done();
      const floors = unitFloor.done();
      const doors = unitDoor.done();
      const units = new Int32Array(unitCount * U_FIELDS);
      for (let u = 0; u < unitCount; u++) {
        const at = fill[owners[u]]++ * U_FIELDS;
        units[at + U_KEY] = keys[u];
        units[at + U_FLOOR] = floors[u];
        units[at + U_DOOR] = doors[u];
      }
      const streetOf = accessStreet.done();
      const houseOf = accessHouse.done();
      const postalOf = accessPostal.done();
      const townOf = accessTown.done();
      const accesses = new Int32Array(accessCount * A_FIELDS);
      for (let a = 0; a < accessCount; a++) {
        const o = a * A_FIELDS;
        accesses[o + A_STREET] = streetOf[a];
        accesses[o + A_HOUSE] = houseOf[a];
        accesses[o + A_POSTAL] = postalOf[a];
        accesses[o + A_TOWN] = townOf[a];
        accesses[o + A_UNIT_FROM] = unitStart[a];
        accesses[o + A_UNIT_END] = unitStart[a + 1];
      }
      const postalByName = new Map<string, number[]>();
      const postalIdOfCode = new Int32Array(10_000).fill(-1);
      strings.postalCodes.forEach((code, id) => {
        if (/^\d{4}$/.test(code)) postalIdOfCode[Number(code)] = id;
        const key = nameKey(strings.postalNames[id]);
        const ids = postalByName.get(key);
        if (ids === undefined) postalByName.set(key, [id]);
        else ids.push(id);
      });
      return {
        accessCount,
        unitCount,
        data: {
          buildings, kvhxBuildings,
          accesses, units,
          ...strings, streetSpellings, addressingSpellings,
          townCities: strings.towns.map(parsedCityOf), postalCities: strings.postalNames.map(parsedCityOf),
          unitKeys, streets: streets.build(), postalByName,
          postalIdOfCode,
        },
      };
    },
  };
}

export function buildAddressRegister(addresses: Iterable<RegisterAddress>): AddressRegister {
  const builder = createAddressRegisterBuilder();
  for (const a of addresses) builder.add(a);
  return builder.build();
}
