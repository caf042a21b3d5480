import { formatKvhx } from '../domain/index.ts';
import type { ListEntry } from '../domain/types.ts';
import { cprFileChunks, writeCprFile, type CprWriteRecord } from '../registers/lists/cpr-format.ts';
import { DOORS, FIRST_SURNAMES, GIVEN_NAMES, POSTAL_DISTRICTS, STREET_NAMES, SURNAMES, type PostalDistrict } from './danish-data.ts';
import { createRng, hashString, type Rng } from './rng.ts';

/**
 * Deterministic synthetic Robinson-list people. The "country" (which streets exist in which postal
 * district, which buildings have floors, the vejkode of each street) is fixed and independent of
 * the seed, so people generated from different seeds live in the same buildings, as real
 * customers' people and list members do. The seed only decides who lives where.
 *
 * A list entry looks like what the CPR file gives (cpr-format.ts): `name` = `Efternavn,Fornavn`,
 * `address` = `Gammel Kongevej 12A, 1. tv`, postal_code, city, kvhx, previous. About 10% of people
 * also have a previous address (a second entry with previous: true), as in the CPR file.
 */

export interface SyntheticAddress {
  street: string;
  /** Digits only, e.g. `12`. */
  number: string;
  /** Upper-case letter or ''. */
  letter: string;
  /** '' (no floors), `kl`, `st` or `1`..`5`. */
  floor: string;
  /** '' or `tv`/`th`/`mf` or a number. */
  door: string;
  postal_code: string;
  city: string;
  kommunekode: string;
  vejkode: string;
}

export interface SyntheticPerson {
  given: string[];
  /** One word, or two for a double surname (`Skov Jensen`). */
  surname: string;
  current: SyntheticAddress;
  previous: SyntheticAddress | null;
}

export const PREVIOUS_ADDRESS_SHARE = 0.1;
const STREETS_PER_DISTRICT = 40;
const HOUSE_NUMBERS = 90;
const CPR_NAME_WIDTH = 34;

export interface DistrictStreet {
  name: string;
  vejkode: string;
}

/** Streets of each postal district: fixed, derived from the district alone. */
const DISTRICT_STREETS: readonly (readonly DistrictStreet[])[] = POSTAL_DISTRICTS.map((d) => {
  const rng = createRng(`streets:${d.postal_code}`);
  const chosen = new Set<string>();
  while (chosen.size < STREETS_PER_DISTRICT) chosen.add(rng.pick(STREET_NAMES));
  return [...chosen].map((name) => ({
    name,
    vejkode: String(1 + (hashString(`${d.kommunekode}|${name}`) % 9998)).padStart(4, '0'),
  }));
});

const DISTRICT_STREET_NAMES = new Map<string, ReadonlySet<string>>(
  POSTAL_DISTRICTS.map((d, i) => [d.postal_code, new Set(DISTRICT_STREETS[i].map((s) => s.name))]),
);

/** The street names of a postal district (empty for a code the synthetic country does not have). */
export function districtStreetNames(postalCode: string): ReadonlySet<string> {
  return DISTRICT_STREET_NAMES.get(postalCode) ?? new Set();
}

/** A fixed pseudo-random number per building: decides its letter, floors and door style. */
function buildingHash(district: number, street: number, number: number): number {
  let h = Math.imul(district + 1, 0x9e3779b1) ^ Math.imul(street + 1, 0x85ebca6b) ^ Math.imul(number, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** What is fixed about one building of the synthetic country (the register generator lists them all). */
export interface SyntheticBuilding {
  district: PostalDistrict;
  street: DistrictStreet;
  houseNumber: number;
  letter: string;
  /** Floors kl, st, 1..5; else one unit without floor and door. */
  hasFloors: boolean;
  /** Doors 1..8 instead of tv/th/mf. */
  numberedDoors: boolean;
}

export function syntheticBuilding(districtIndex: number, streetIndex: number, houseNumber: number): SyntheticBuilding {
  const building = buildingHash(districtIndex, streetIndex, houseNumber);
  return {
    district: POSTAL_DISTRICTS[districtIndex],
    street: DISTRICT_STREETS[districtIndex][streetIndex],
    houseNumber,
    letter: building % 8 === 0 ? 'ABCD'[(building >>> 3) % 4] : '',
    hasFloors: (building >>> 5) % 100 < 55,
    numberedDoors: (building >>> 12) % 100 >= 85,
  };
}

/** Every building of the synthetic country, district by district, street by street. */
export function* syntheticBuildings(): Generator<SyntheticBuilding> {
  for (let d = 0; d < POSTAL_DISTRICTS.length; d++) {
    for (let s = 0; s < DISTRICT_STREETS[d].length; s++) {
      for (let n = 1; n <= HOUSE_NUMBERS; n++) yield syntheticBuilding(d, s, n);
    }
  }
}

export const SYNTHETIC_FLOORS: readonly string[] = ['kl', 'st', '1', '2', '3', '4', '5'];
export const SYNTHETIC_NUMBERED_DOORS: readonly string[] = ['1', '2', '3', '4', '5', '6', '7', '8'];

export function randomAddress(rng: Rng): SyntheticAddress {
  const districtIndex = rng.int(POSTAL_DISTRICTS.length);
  const district: PostalDistrict = POSTAL_DISTRICTS[districtIndex];
  const streets = DISTRICT_STREETS[districtIndex];
  const streetIndex = rng.int(streets.length);
  const houseNumber = 1 + Math.floor(rng.next() ** 1.6 * HOUSE_NUMBERS); // low numbers are commoner
  const { letter, hasFloors, numberedDoors } = syntheticBuilding(districtIndex, streetIndex, houseNumber);
  let floor = '';
  let door = '';
  if (hasFloors) {
    floor = rng.chance(0.02) ? 'kl' : rng.chance(0.2) ? 'st' : String(1 + rng.int(5));
    door = numberedDoors ? String(1 + rng.int(8)) : rng.pick(DOORS);
  }
  return {
    street: streets[streetIndex].name,
    number: String(houseNumber),
    letter,
    floor,
    door,
    postal_code: district.postal_code,
    city: district.city,
    kommunekode: district.kommunekode,
    vejkode: streets[streetIndex].vejkode,
  };
}

export function randomPerson(rng: Rng): SyntheticPerson {
  const given = [rng.pick(GIVEN_NAMES)];
  if (rng.chance(0.25)) {
    const second = rng.pick(GIVEN_NAMES);
    if (second !== given[0]) given.push(second);
  }
  let surname = rng.pick(SURNAMES);
  if (rng.chance(0.08)) {
    const first = rng.pick(FIRST_SURNAMES);
    if (first !== surname) surname = `${first} ${surname}`;
  }
  // The CPR name field is 34 characters: drop what does not fit, as the register abbreviates.
  if (surname.length + 1 + given.join(' ').length > CPR_NAME_WIDTH) given.length = 1;
  if (surname.length + 1 + given[0].length > CPR_NAME_WIDTH) surname = surname.split(' ').at(-1)!;
  const current = randomAddress(rng);
  const previous = rng.chance(PREVIOUS_ADDRESS_SHARE) ? randomAddress(rng) : null;
  return { given, surname, current, previous };
}

/** `count` people from `seed`: the same seed always gives the same people. */
export function* generateSyntheticPeople(count: number, seed: number | string): Generator<SyntheticPerson> {
  const rng = createRng(seed);
  for (let i = 0; i < count; i++) yield randomPerson(rng);
}

/** The floor and door as the CPR Standardadresse writes them: `st. th`, `1. tv`, `kl.`. */
export function floorDoorText(floor: string, door: string): string {
  if (floor === '') return door;
  const floorText = `${floor}.`;
  return door === '' ? floorText : `${floorText} ${door}`;
}

export function addressLine(a: SyntheticAddress): string {
  const unit = floorDoorText(a.floor, a.door);
  return `${a.street} ${a.number}${a.letter}${unit === '' ? '' : `, ${unit}`}`;
}

export function kvhxOf(a: SyntheticAddress): string {
  return formatKvhx({
    kommunekode: a.kommunekode,
    vejkode: a.vejkode,
    husnummer: a.number + a.letter,
    etage: a.floor,
    door: a.door,
  });
}

export function toListEntry(p: SyntheticPerson, a: SyntheticAddress, previous: boolean): ListEntry {
  return {
    name: `${p.surname},${p.given.join(' ')}`,
    address: addressLine(a),
    postal_code: a.postal_code,
    city: a.city,
    kvhx: kvhxOf(a),
    previous,
  };
}

export function toCprRecord(p: SyntheticPerson, a: SyntheticAddress, previous: boolean): CprWriteRecord {
  return {
    last_name: p.surname,
    first_name: p.given.join(' '),
    address: addressLine(a),
    postal_code: a.postal_code,
    city: a.city,
    previous,
    kommunekode: a.kommunekode,
    vejkode: a.vejkode,
    husnummer: a.number + a.letter,
    etage: a.floor,
    door: a.door,
  };
}

/** Exactly `count` records: each person's current address, then their previous one if any. */
function* entriesOf<T>(
  count: number,
  seed: number | string,
  to: (p: SyntheticPerson, a: SyntheticAddress, previous: boolean) => T,
): Generator<T> {
  const rng = createRng(seed);
  let produced = 0;
  while (produced < count) {
    const person = randomPerson(rng);
    yield to(person, person.current, false);
    produced++;
    if (person.previous !== null && produced < count) {
      yield to(person, person.previous, true);
      produced++;
    }
  }
}

/** `count` list entries (lazily, so 2,000,000 never need to be held at once). */
export function generateListEntries(count: number, seed: number | string): Generator<ListEntry> {
  return entriesOf(count, seed, toListEntry);
}

/** The same entries as generateListEntries(count, seed), as CPR file records. */
export function generateCprRecords(count: number, seed: number | string): Generator<CprWriteRecord> {
  return entriesOf(count, seed, toCprRecord);
}

export const SYNTHETIC_PUBLISHED_ON = '2026-01-01';

/**
 * A CPR list file whose entries parse back to exactly generateListEntries(count, seed). Unlike the
 * real file it is not sorted by name (sorting 2,000,000 would mean holding them); no reader relies
 * on the order.
 */
export function generateCprFile(count: number, seed: number | string, publishedOn = SYNTHETIC_PUBLISHED_ON): Buffer {
  return writeCprFile(publishedOn, generateCprRecords(count, seed));
}

/** The same file as latin1 chunks, for large lists. */
export function generateCprFileChunks(
  count: number,
  seed: number | string,
  publishedOn = SYNTHETIC_PUBLISHED_ON,
): Generator<Buffer> {
  return cprFileChunks(publishedOn, generateCprRecords(count, seed));
}

/**
 * The building of an address of the synthetic country (by postal code, street name and house
 * number), or null for an address the country does not have (a street of another district).
 */
export function syntheticBuildingOf(a: Pick<SyntheticAddress, 'postal_code' | 'street' | 'number'>): SyntheticBuilding | null {
  const d = POSTAL_DISTRICTS.findIndex((district) => district.postal_code === a.postal_code);
  if (d < 0) return null;
  const s = DISTRICT_STREETS[d].findIndex((street) => street.name === a.street);
  return s < 0 ? null : syntheticBuilding(d, s, Number(a.number));
}
