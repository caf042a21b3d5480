import { readFileSync } from 'node:fs';
import { da } from '@faker-js/faker';
import type { RegisterAddress } from '../../services/domain/address-register.ts';
import { normalizeText, skeleton } from '../../services/domain/normalize.ts';
import type { ListEntry, PersonInput } from '../../services/domain/types.ts';
import { createRng, type Rng } from '../../services/synthetic/rng.ts';

/**
 * The matching-quality corpus (docs/matching.md "Names", docs/addresses.md): list members and
 * non-members at real addresses of the national address register, written as customer
 * spreadsheets write them, each row tagged with the level the docs say it gets.
 *
 * - Addresses: test/fixtures/addresses/dar-addresses.tsv, DAR unit addresses with their street
 *   codes and addressing names, derived from the public DanmarksAdresser/Dawa test data (its
 *   header names the source). None is invented.
 * - Names: the `da` locale of @faker-js/faker (Danish given names, surnames, middle names), picked
 *   with the project's seeded generator, so the corpus is the same on every run.
 * - The list writes a member as the CPR office does: "Surname,Given Middle", the register's
 *   addressing name, floor and door, postal code and town, and the legacy codes (kvhx).
 */

export interface DarAddress {
  unitId: string;
  accessId: string;
  kommunekode: string;
  vejkode: string;
  street: string;
  addressingName: string;
  houseNumber: string;
  floor: string;
  door: string;
  postalCode: string;
  postalName: string;
}

const FIXTURE = new URL('../fixtures/addresses/dar-addresses.tsv', import.meta.url);

export function loadDarAddresses(): DarAddress[] {
  const lines = readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const header = lines[0].split('\t');
  expectHeader(header);
  return lines.slice(1).map((line) => {
    const [unitId, accessId, kommunekode, vejkode, street, addressingName, houseNumber, floor, door, postalCode, postalName] = line.split('\t');
    return { unitId, accessId, kommunekode, vejkode, street, addressingName, houseNumber, floor, door, postalCode, postalName };
  });
}

function expectHeader(header: string[]): void {
  const want = ['unit_id', 'access_id', 'kommunekode', 'vejkode', 'street', 'addressing_name', 'house_number', 'floor', 'door', 'postal_code', 'postal_name'];
  if (header.join('\t') !== want.join('\t')) throw new Error(`dar-addresses.tsv: unexpected header ${header.join(',')}`);
}

/** The fixture as an address register (one RegisterAddress per unit). */
export function registerAddressesOf(addresses: DarAddress[]): RegisterAddress[] {
  return addresses.map((a) => ({
    accessId: a.accessId,
    street: a.street,
    addressingName: a.addressingName === a.street ? null : a.addressingName,
    houseNumber: a.houseNumber,
    floor: a.floor === '' ? null : a.floor,
    door: a.door === '' ? null : a.door,
    postalCode: a.postalCode,
    postalName: a.postalName,
    town: null,
    kommunekode: a.kommunekode,
    vejkode: a.vejkode,
  }));
}

/** A person of the corpus: given names, middle names (Danish mellemnavne), surname words. */
export interface CorpusName {
  given: string[];
  middle: string[];
  /** One surname, or the two of a hyphenated double surname. */
  surname: string[];
}

interface PersonNames {
  first_name: { female: string[]; male: string[] };
  last_name: { generic: string[] };
  middle_name: { generic: string[] };
}
const NAMES = (da as unknown as { person: PersonNames }).person;
const GIVEN = [...NAMES.first_name.female, ...NAMES.first_name.male];
const SURNAMES = NAMES.last_name.generic;
const MIDDLE = NAMES.middle_name.generic;

export function randomName(rng: Rng): CorpusName {
  const given = [rng.pick(GIVEN)];
  if (rng.chance(0.3)) given.push(rng.pick(GIVEN));
  const middle = rng.chance(0.25) ? [rng.pick(MIDDLE)] : [];
  // faker's own share of double surnames is 5 %; more here, so the rule is tried often.
  const surname = rng.chance(0.15) ? [rng.pick(SURNAMES), rng.pick(SURNAMES)] : [rng.pick(SURNAMES)];
  return { given: unique(given), middle, surname: unique(surname) };
}

/** Another person's name that shares nothing with `avoid`. */
export function otherName(rng: Rng, avoid: CorpusName[], keepSurname = false): CorpusName {
  const taken = new Set(avoid.flatMap((n) => [...n.given, ...n.middle, ...n.surname]).flatMap(keys));
  for (;;) {
    const name = randomName(rng);
    if (keepSurname) name.surname = avoid[0].surname;
    const words = (keepSurname ? [...name.given, ...name.middle] : [...name.given, ...name.middle, ...name.surname]).flatMap(keys);
    // Different in more than a slip, so the docs' level for it is unambiguous.
    if (words.every((w) => [...taken].every((t) => distance(w, t) > 1))) return name;
  }
}

/** The comparison forms of the words of a name part ("Ditte-Marie": two words). */
function keys(part: string): string[] {
  return key(part).split(' ');
}

function unique(words: string[]): string[] {
  return [...new Set(words)];
}

/** A word's comparison form (normalize.ts): folded, Danish letters' second letter dropped. */
export function key(word: string): string {
  return normalizeText(word).split(' ').map(skeleton).join(' ');
}

/** Plain Levenshtein with swaps, for choosing names only (not the code under test). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** "st." / "1." / "kl." and the door, as the register writes a unit ("st. tv", "2. th", "1"). */
export function unitText(a: DarAddress): string {
  const floor = a.floor === '' ? '' : `${a.floor}.`;
  return [floor, a.door].filter((p) => p !== '').join(' ');
}

function kvhxOf(a: DarAddress): string {
  const pad = (s: string, n: number) => s.padEnd(n, '_');
  const hn = /^(\d+)([A-Z]?)$/.exec(a.houseNumber)!;
  return a.kommunekode + a.vejkode + pad(hn[1].padStart(3, '0') + hn[2], 4) + pad(a.floor, 3) + pad(a.door, 4);
}

/** The list's record of a member: the CPR file's "Surname,Given Middle" at the register's addressing name. */
export function listEntryOf(name: CorpusName, a: DarAddress): ListEntry {
  const unit = unitText(a);
  return {
    name: `${name.surname.join('-')},${[...name.given, ...name.middle].join(' ')}`,
    address: `${a.addressingName} ${a.houseNumber}${unit === '' ? '' : ', ' + unit}`,
    postal_code: a.postalCode,
    city: a.postalName,
    kvhx: kvhxOf(a),
  };
}

// ---------------------------------------------------------------------------------------------
// How customers write a name. Each returns the name as a PersonInput part, or null when the
// variant does not apply to this person.

export type NameForm = Pick<PersonInput, 'name' | 'first_name' | 'last_name'>;
export type NameVariant = (name: CorpusName, rng: Rng) => NameForm | null;

const full = (n: CorpusName): string => [...n.given, ...n.middle, n.surname.join('-')].join(' ');

/** A letter of a-z: slips are made among plain letters, so one slip is one edit after folding. */
const PLAIN = /^[a-z]$/i;

/** One slip (insertion, deletion, substitution, transposition) in a word of five or more letters, or null. */
export function slip(word: string, rng: Rng): string | null {
  if (key(word).length < 5 || word.includes('-')) return null;
  // A slip that makes or breaks an "oe" or "aa" (Villadsen → Villadoen, Søren → Søen) is two
  // edits in the comparison form, where ø = oe = o (docs/matching.md "Names"): not one slip.
  for (let attempt = 0; attempt < 8; attempt++) {
    const slipped = oneEdit(word, rng);
    if (slipped !== null && distance(key(slipped), key(word)) === 1) return slipped;
  }
  return null;
}

function oneEdit(word: string, rng: Rng): string | null {
  const plain: number[] = [];
  for (let i = 1; i < word.length; i++) if (PLAIN.test(word[i])) plain.push(i);
  if (plain.length === 0) return null;
  const at = rng.pick(plain);
  const letter = String.fromCharCode(97 + rng.int(26));
  switch (rng.int(4)) {
    case 0: return word.slice(0, at) + letter + word.slice(at);
    case 1: return word.slice(0, at) + word.slice(at + 1);
    case 2: return word.slice(0, at) + (letter === word[at].toLowerCase() ? 'x' : letter) + word.slice(at + 1);
    default: {
      const next = at + 1 < word.length && PLAIN.test(word[at + 1]) && word[at + 1] !== word[at] ? at : -1;
      return next < 0 ? word.slice(0, at) + word.slice(at + 1) : word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
    }
  }
}

export const NAME_VARIANTS: Record<string, NameVariant> = {
  name_exact: (n) => ({ name: full(n) }),
  name_upper: (n) => ({ name: full(n).toUpperCase() }),
  surname_first: (n) => ({ name: `${n.surname.join('-')}, ${[...n.given, ...n.middle].join(' ')}` }),
  first_last_columns: (n) => ({ first_name: n.given.join(' '), last_name: [...n.middle, n.surname.join('-')].join(' ') }),
  first_given_only: (n) => ({ name: `${n.given[0]} ${n.surname.join('-')}` }),
  initial: (n) => ({ name: `${n.given[0][0]}. ${n.surname.join('-')}` }),
  slip_given: (n, rng) => {
    const slipped = slip(n.given[0], rng);
    return slipped === null ? null : { name: `${slipped} ${n.surname.join('-')}` };
  },
  slip_surname: (n, rng) => {
    if (n.surname.length > 1) return null;
    const slipped = slip(n.surname[0], rng);
    return slipped === null ? null : { name: `${n.given[0]} ${slipped}` };
  },
  hyphen_as_space: (n) => (n.surname.length > 1 ? { name: `${n.given[0]} ${n.surname.join(' ')}` } : null),
  hyphen_last_part: (n) => (n.surname.length > 1 ? { name: `${n.given[0]} ${n.surname[1]}` } : null),
  hyphen_first_part: (n) => (n.surname.length > 1 ? { name: `${n.given[0]} ${n.surname[0]}` } : null),
  middle_as_surname: (n) => (n.middle.length > 0 ? { name: `${n.given[0]} ${n.middle[0]}` } : null),
  middle_hyphenated: (n) => (n.middle.length > 0 && n.surname.length === 1 ? { name: `${n.given[0]} ${n.middle[0]}-${n.surname[0]}` } : null),
  name_nfd: (n) => (/[åÅéüöä]/.test(full(n)) ? { name: full(n).normalize('NFD') } : null),
};

// ---------------------------------------------------------------------------------------------
// How customers write an address (the member's own unit).

export type AddressForm = Pick<PersonInput, 'address' | 'street' | 'house_number' | 'floor' | 'door' | 'postal_code' | 'city'>;
export type AddressVariant = (a: DarAddress, rng: Rng) => AddressForm | null;

/** Street-name words and how Danish spreadsheets abbreviate them (the register and the CPR office write these too). */
const ABBREVIATIONS: Array<[RegExp, string]> = [
  [/^Østre /, 'Ø. '], [/^Vestre /, 'V. '], [/^Nørre /, 'Nr. '], [/^Søndre /, 'Sdr. '], [/^Nordre /, 'Ndr. '],
  [/^Store /, 'St. '], [/^Lille /, 'Ll. '], [/^Gammel /, 'Gl. '], [/^Sankt /, 'Skt. '], [/^Borgmester /, 'Borgm. '],
  [/^Kongens /, 'Kgs. '],
];

const line = (street: string, a: DarAddress): string => {
  const unit = unitText(a);
  return `${street} ${a.houseNumber}${unit === '' ? '' : ', ' + unit}`;
};

export const ADDRESS_VARIANTS: Record<string, AddressVariant> = {
  address_exact: (a) => ({ address: line(a.street, a), postal_code: a.postalCode, city: a.postalName }),
  one_line: (a) => ({ address: `${line(a.street, a)}, ${a.postalCode} ${a.postalName}` }),
  parts: (a) => ({
    street: a.street, house_number: a.houseNumber, floor: a.floor || undefined, door: a.door || undefined,
    postal_code: a.postalCode, city: a.postalName,
  }),
  addressing_name: (a) => (a.addressingName !== a.street
    ? { address: `${line(a.addressingName, a)}, ${a.postalCode} ${a.postalName}` } : null),
  abbreviation: (a) => {
    const rule = ABBREVIATIONS.find(([re]) => re.test(a.street));
    return rule ? { address: line(a.street.replace(rule[0], rule[1]), a), postal_code: a.postalCode, city: a.postalName } : null;
  },
  co_line: (a, rng) => ({
    address: `c/o ${rng.pick(GIVEN)} ${rng.pick(SURNAMES)}, ${line(a.street, a)}, ${a.postalCode} ${a.postalName}`,
  }),
  postal_town_in_city: (a) => ({ address: line(a.street, a), city: `${a.postalCode} ${a.postalName}` }),
  address_nfd: (a) => (/[åÅéüöä]/.test(a.street + a.postalName)
    ? { address: `${line(a.street, a)}, ${a.postalCode} ${a.postalName}`.normalize('NFD') } : null),
};

/**
 * Variant tags that need rules of docs/addresses.md beyond plain reading (c/o lines, postal code
 * and town in one field, NFC, Danish abbreviations); with a register, its addressing names.
 */
export const NEEDS_REGISTER: ReadonlySet<string> = new Set(['addressing_name']);

// ---------------------------------------------------------------------------------------------
// The corpus: rows of a person, a tag, and the level the docs say it gets.

export interface CorpusRow {
  tag: string;
  member: boolean;
  person: PersonInput;
  /** The docs' level; for members the level a covered way must reach. */
  expected: number;
  /** Only with an address register loaded (the register's addressing names). */
  registerOnly: boolean;
  /** A non-member in another building than any list entry with a name of theirs. */
  otherBuilding: boolean;
}

export interface Corpus {
  addresses: DarAddress[];
  entries: ListEntry[];
  rows: CorpusRow[];
}

export function buildCorpus(seed: string, memberShare = 0.45): Corpus {
  const rng = createRng(seed);
  const addresses = loadDarAddresses();
  const byAccess = new Map<string, DarAddress[]>();
  for (const a of addresses) byAccess.set(a.accessId, [...(byAccess.get(a.accessId) ?? []), a]);
  const accesses = [...byAccess.keys()];
  const entries: ListEntry[] = [];
  const rows: CorpusRow[] = [];
  const occupied = new Set<string>();
  const members: Array<{ name: CorpusName; a: DarAddress }> = [];
  /** The names of the list members of each building: non-members are made to share none of them. */
  const namesAt = new Map<string, CorpusName[]>();
  for (const a of addresses) {
    if (!rng.chance(memberShare)) continue;
    const name = randomName(rng);
    entries.push(listEntryOf(name, a));
    members.push({ name, a });
    occupied.add(a.accessId);
    namesAt.set(a.accessId, [...(namesAt.get(a.accessId) ?? []), name]);
  }
  const nameTags = Object.keys(NAME_VARIANTS);
  const addressTags = Object.keys(ADDRESS_VARIANTS);
  for (const { name, a } of members) {
    // The list writes the register's addressing name: where it is not the street's name, only a
    // register makes the two one street (docs/addresses.md).
    const listShort = a.addressingName !== a.street;
    const exactAddress = ADDRESS_VARIANTS.address_exact(a, rng)!;
    for (const tag of nameTags) {
      const form = NAME_VARIANTS[tag](name, rng);
      if (form) rows.push(memberRow(tag, { ...form, ...exactAddress }, 5, listShort));
    }
    const exactName = NAME_VARIANTS.name_exact(name, rng)!;
    for (const tag of addressTags) {
      if (tag === 'address_exact') continue;
      const form = ADDRESS_VARIANTS[tag](a, rng);
      if (form) rows.push(memberRow(tag, { ...exactName, ...form }, 5, listShort && tag !== 'addressing_name' || NEEDS_REGISTER.has(tag)));
    }
    // Combinations: a random name way with a random address way, twice per member.
    for (let k = 0; k < 2; k++) {
      const nameTag = rng.pick(nameTags);
      const addressTag = rng.pick(addressTags);
      const nameForm = NAME_VARIANTS[nameTag](name, rng);
      const addressForm = ADDRESS_VARIANTS[addressTag](a, rng);
      if (nameForm && addressForm) {
        rows.push(memberRow(`combo ${nameTag}+${addressTag}`, { ...nameForm, ...addressForm }, 5, listShort || NEEDS_REGISTER.has(addressTag)));
      }
    }
    // Another flat of the building (moved within it, or the customer's data is older): level 4.
    const others = byAccess.get(a.accessId)!.filter((u) => u.floor !== a.floor || u.door !== a.door);
    if (others.length > 0) {
      const other = rng.pick(others);
      rows.push(memberRow('other_flat_same_building', { ...exactName, ...ADDRESS_VARIANTS.address_exact(other, rng)! }, 4, listShort));
    }
  }
  // Non-members.
  for (const { name, a } of members) {
    const address = ADDRESS_VARIANTS.address_exact(a, rng)!;
    const neighbours = namesAt.get(a.accessId)!.filter((n) => n !== name);
    if (rng.chance(0.5)) {
      const relative = otherName(rng, [name, ...neighbours], true);
      rows.push(nonMemberRow('household_same_surname', { name: full(relative), ...address }, 2, false));
    } else {
      rows.push(nonMemberRow('household_other_name', { name: full(otherName(rng, [name, ...neighbours])), ...address }, 1, false));
    }
    const others = byAccess.get(a.accessId)!.filter((u) => u.floor !== a.floor || u.door !== a.door);
    if (others.length > 0) {
      // Another flat may hold another list member (then a household match there is level 1).
      const flat = rng.pick(others);
      const listed = members.some((m) => m.a === flat);
      rows.push(nonMemberRow('other_flat_other_name', { name: full(otherName(rng, [name, ...neighbours])), ...ADDRESS_VARIANTS.address_exact(flat, rng)! }, listed ? 1 : 0, false));
    }
    // The member's namesake in a building with no list entry: on the same street when there is one.
    const free = accesses.filter((id) => !occupied.has(id));
    const sameStreet = free.filter((id) => byAccess.get(id)![0].street === a.street);
    const elsewhere = rng.pick(sameStreet.length > 0 ? sameStreet : free);
    const target = rng.pick(byAccess.get(elsewhere)!);
    rows.push(nonMemberRow(sameStreet.length > 0 ? 'namesake_other_building_same_street' : 'namesake_other_building',
      { ...NAME_VARIANTS.name_exact(name, rng)!, ...ADDRESS_VARIANTS.address_exact(target, rng)! }, 0, true));
    // The namesake with a slip, also elsewhere.
    const slipped = NAME_VARIANTS.slip_surname(name, rng);
    if (slipped) rows.push(nonMemberRow('namesake_slip_other_building', { ...slipped, ...ADDRESS_VARIANTS.one_line(target, rng)! }, 0, true));
  }
  return { addresses, entries, rows };
}

function memberRow(tag: string, person: PersonInput, expected: number, registerOnly: boolean): CorpusRow {
  return { tag, member: true, person, expected, registerOnly, otherBuilding: false };
}

function nonMemberRow(tag: string, person: PersonInput, expected: number, otherBuilding: boolean): CorpusRow {
  return { tag, member: false, person, expected, registerOnly: false, otherBuilding };
}
