import type { ListEntry, PersonInput } from '../domain/types.ts';
import { GIVEN_NAMES } from './danish-data.ts';
import { floorDoorText, type SyntheticAddress } from './generate.ts';
import type { Rng } from './rng.ts';

/**
 * How a customer writes a list member: the same person at the same address, spelled the way real
 * customer files spell people. Each kind is one habit; `mixed` combines two to four of them.
 * Every kind here is one matching must see through: docs/decisions.md §1's spellings, and a slip of the
 * keyboard in the street (the §13 "corrected" street, docs/matching.md); BEYOND_CONTRACT_KINDS
 * are habits it does not promise (measured, not required).
 */
export const VARIATION_KINDS = [
  'exact',
  'danish_letters', // æ/ae, ø/oe, å/aa (both directions)
  'street_abbreviation', // Gl./Gammel, Skt./Sct./Sankt, Alle/Allé, Vj./Vej
  'floor_door_spelling', // "1. tv", "1 tv", "1.tv.", "1. sal tv", "stuen th", "0 th", "t.v."
  'house_letter', // "12A", "12 a", "12a"
  'surname_first', // "Hansen, Anne"
  'split_name', // first_name + last_name fields
  'extra_middle_name', // a given name the list does not have
  'letter_case', // UPPER, lower, rAndOm
  'stray_punctuation', // double spaces, trailing dots, missing or doubled commas
  'address_parts', // street, house_number, floor, door fields
  'address_one_line', // "…, 1. tv, 1850 Frederiksberg C" in one field
  'with_kvhx', // the legacy address key sent along
  'unit_omitted', // floor and door left out: the building matches, the unit cannot (level 4 at best)
  'given_name_initial', // "A. Hansen": the given name cannot agree (level 2 at best)
  'street_typo', // two letters swapped, one dropped or doubled (streets of 5 letters or more are corrected)
  'supplementary_town', // the register's supplementary town name before the postal code: "…, st., Skee, 4370 …"
  'mixed',
] as const;

export const BEYOND_CONTRACT_KINDS = [
  'letters_stripped', // ø→o, å→a, æ→ae: a system without Danish letters
  'postal_code_missing', // street, number and city only
] as const;

export type VariationKind = (typeof VARIATION_KINDS)[number] | (typeof BEYOND_CONTRACT_KINDS)[number];

/**
 * What `mixed` combines: the contract's spelling habits. The two that drop information
 * (unit_omitted, given_name_initial) are left out: together they leave only a surname in another
 * unit of the building, which docs/decisions.md §1 rightly calls no match.
 */
const INFORMATION_LOSS_KINDS: readonly VariationKind[] = ['unit_omitted', 'given_name_initial'];
const SIMPLE_KINDS = VARIATION_KINDS.filter((k) => k !== 'exact' && k !== 'mixed' && !INFORMATION_LOSS_KINDS.includes(k));

/** An entry taken apart: the generator's (and the CPR file's) own formats. */
type Parts = Omit<SyntheticAddress, 'kommunekode' | 'vejkode'> & {
  given: string[];
  surname: string;
  kvhx: string | undefined;
};

interface Style {
  nameForm: 'natural' | 'surname_first' | 'split';
  addressForm: 'one_string' | 'parts' | 'one_line';
  houseLetter: (number: string, letter: string) => string;
  unitText: ((floor: string, door: string) => string) | null;
  withKvhx: boolean;
  withoutPostalCode: boolean;
  /** A supplementary town name written after the unit (the register's own form). */
  town: string | null;
  textEdits: ((text: string, rng: Rng) => string)[];
}

function partsOf(entry: ListEntry): Parts {
  const name = /^([^,]+),(.+)$/.exec(entry.name ?? '');
  const address = /^(.+?) (\d+)([A-Z]?)(?:, (kl|st|\d+)\.(?: (\S+))?)?$/.exec(entry.address ?? '');
  if (!name || !address || !entry.postal_code) throw new Error('variantOf takes entries in the synthetic/CPR format');
  return {
    given: name[2].trim().split(/\s+/),
    surname: name[1].trim(),
    street: address[1],
    number: address[2],
    letter: address[3],
    floor: address[4] ?? '',
    door: address[5] ?? '',
    postal_code: entry.postal_code,
    city: entry.city ?? '',
    kvhx: entry.kvhx,
  };
}

/** Whether `kind` changes anything for this entry (e.g. no house letter: house_letter does not). */
export function variationApplies(entry: ListEntry, kind: VariationKind): boolean {
  const p = partsOf(entry);
  const text = `${entry.name} ${entry.address} ${entry.city}`;
  switch (kind) {
    case 'danish_letters':
      return /[æøåÆØÅ]|aa/i.test(text);
    case 'letters_stripped':
      return /[æøåÆØÅ]/.test(text);
    case 'street_abbreviation':
      return /^(Gammel|Sankt) | Allé$| Vej$/.test(p.street);
    case 'floor_door_spelling':
      return p.floor !== '';
    case 'house_letter':
      return p.letter !== '';
    case 'with_kvhx':
      return p.kvhx !== undefined;
    case 'unit_omitted':
      return p.floor !== '' || p.door !== '';
    default:
      return true;
  }
}

/**
 * The entry as a customer might send it. Without `kind`, a random kind of VARIATION_KINDS (or a
 * mix) is chosen. Deterministic for a given rng state.
 */
export function variantOf(entry: ListEntry, rng: Rng, kind?: VariationKind): PersonInput {
  const parts = partsOf(entry);
  const style: Style = {
    nameForm: 'natural',
    addressForm: 'one_string',
    houseLetter: (n, l) => n + l,
    unitText: null,
    withKvhx: false,
    withoutPostalCode: false,
    town: null,
    textEdits: [],
  };
  const chosen = kind ?? rng.pick(VARIATION_KINDS);
  const kinds: VariationKind[] =
    chosen === 'mixed' ? pickDistinct(rng, SIMPLE_KINDS, 2 + rng.int(3)) : [chosen];
  for (const k of kinds) applyKind(k, parts, style, rng);
  return render(parts, style, rng);
}

function pickDistinct<T>(rng: Rng, items: readonly T[], n: number): T[] {
  const out = new Set<T>();
  while (out.size < n) out.add(rng.pick(items));
  return [...out];
}

function applyKind(kind: VariationKind, p: Parts, s: Style, rng: Rng): void {
  switch (kind) {
    case 'exact':
    case 'mixed':
      return;
    case 'danish_letters':
      s.textEdits.push(swapDanishLetters);
      return;
    case 'letters_stripped':
      s.textEdits.push(stripDanishLetters);
      return;
    case 'street_abbreviation':
      p.street = abbreviateStreet(p.street, rng);
      return;
    case 'floor_door_spelling': {
      // Some spellings coincide with the list's for some units ("st. th"); pick one that differs.
      const canonical = floorDoorText(p.floor, p.door);
      const differing = UNIT_SPELLINGS.filter((spell) => spell(p.floor, p.door) !== canonical);
      s.unitText = rng.pick(differing.length > 0 ? differing : UNIT_SPELLINGS);
      return;
    }
    case 'house_letter':
      s.houseLetter = rng.pick(HOUSE_LETTER_SPELLINGS);
      return;
    case 'surname_first':
      s.nameForm = 'surname_first';
      return;
    case 'split_name':
      s.nameForm = 'split';
      return;
    case 'extra_middle_name': {
      const extra = rng.pick(GIVEN_NAMES.filter((g) => !p.given.includes(g)));
      p.given = rng.chance(0.5) ? [...p.given, extra] : [p.given[0], extra, ...p.given.slice(1)];
      return;
    }
    case 'letter_case':
      s.textEdits.push(rng.pick(CASE_EDITS));
      return;
    case 'stray_punctuation':
      s.textEdits.push(addStrayPunctuation);
      return;
    case 'address_parts':
      s.addressForm = 'parts';
      return;
    case 'address_one_line':
      s.addressForm = 'one_line';
      return;
    case 'with_kvhx':
      s.withKvhx = true;
      return;
    case 'unit_omitted':
      p.floor = '';
      p.door = '';
      return;
    case 'given_name_initial':
      p.given = [`${p.given[0][0]}.`];
      return;
    case 'postal_code_missing':
      s.withoutPostalCode = true;
      return;
    case 'street_typo':
      p.street = withTypo(p.street, rng);
      return;
    case 'supplementary_town':
      s.town = rng.pick(SUPPLEMENTARY_TOWNS);
      return;
  }
}

function render(p: Parts, s: Style, rng: Rng): PersonInput {
  const person: PersonInput = {};
  const given = p.given.join(' ');
  if (s.nameForm === 'split') {
    person.first_name = given;
    person.last_name = p.surname;
  } else person.name = s.nameForm === 'surname_first' ? `${p.surname}, ${given}` : `${given} ${p.surname}`;

  const house = s.houseLetter(p.number, p.letter);
  const unit = p.floor === '' && p.door === '' ? '' : (s.unitText ?? floorDoorText)(p.floor, p.door);
  if (s.addressForm === 'parts') {
    person.street = p.street;
    person.house_number = house;
    if (p.floor !== '') person.floor = s.unitText ? unitFloorOnly(s.unitText(p.floor, '')) : p.floor;
    if (p.door !== '') person.door = p.door;
  } else {
    const line = `${p.street} ${house}${unit === '' ? '' : `, ${unit}`}${s.town === null ? '' : `, ${s.town}`}`;
    person.address = s.addressForm === 'one_line' ? `${line}, ${p.postal_code} ${p.city}` : line;
  }
  if (s.addressForm === 'one_line') {
    if (s.withoutPostalCode) person.address = person.address!.replace(`, ${p.postal_code} `, ', ');
  } else {
    if (!s.withoutPostalCode) person.postal_code = p.postal_code;
    person.city = p.city;
  }
  if (s.withKvhx && p.kvhx !== undefined) person.kvhx = p.kvhx;

  for (const edit of s.textEdits) {
    for (const key of TEXT_FIELDS) {
      const value = person[key];
      if (value !== undefined) person[key] = edit(value, rng);
    }
  }
  return person;
}

const TEXT_FIELDS = ['name', 'first_name', 'last_name', 'address', 'street', 'city'] as const;

function unitFloorOnly(text: string): string {
  return text.trim().replace(/[,.\s]+$/, '');
}

// --- the habits ------------------------------------------------------------------------------

function swapDanishLetters(text: string): string {
  if (/[æøåÆØÅ]/.test(text)) {
    return text
      .replace(/Æ(?=[a-zæøå])/g, 'Ae').replace(/Ø(?=[a-zæøå])/g, 'Oe').replace(/Å(?=[a-zæøå])/g, 'Aa')
      .replace(/Æ/g, 'AE').replace(/Ø/g, 'OE').replace(/Å/g, 'AA')
      .replace(/æ/g, 'ae').replace(/ø/g, 'oe').replace(/å/g, 'aa');
  }
  return text.replace(/Aa/g, 'Å').replace(/aa/g, 'å').replace(/AA/g, 'Å');
}

function stripDanishLetters(text: string): string {
  return text.replace(/æ/g, 'ae').replace(/Æ/g, 'Ae').replace(/ø/g, 'o').replace(/Ø/g, 'O').replace(/å/g, 'a').replace(/Å/g, 'A');
}

/** One slip of the keyboard inside the street's longest word, never its first letter. */
function withTypo(street: string, rng: Rng): string {
  const word = street.split(' ').reduce((a, b) => (b.length > a.length ? b : a));
  if (word.length < 4) return street;
  const at = 1 + rng.int(word.length - 2);
  const slip = rng.int(3);
  const typo =
    slip === 0
      ? word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2) // swapped
      : slip === 1
        ? word.slice(0, at) + word.slice(at + 1) // dropped
        : word.slice(0, at) + word[at] + word.slice(at); // doubled
  return street.replace(word, typo);
}

function abbreviateStreet(street: string, rng: Rng): string {
  return street
    .replace(/^Gammel /, () => rng.pick(['Gl. ', 'Gl ', 'Gml. ']))
    .replace(/^Sankt /, () => rng.pick(['Skt. ', 'Sct. ', 'Skt ']))
    .replace(/ Allé$/, () => rng.pick([' Alle', ' allé', ' Allè']))
    .replace(/ Vej$/, () => rng.pick([' Vj.', ' vej']));
}

const UNIT_SPELLINGS: readonly ((floor: string, door: string) => string)[] = [
  (f, d) => `${f} ${d}`, // "1 tv", "st th"
  (f, d) => `${f}.${d}${d === '' ? '' : '.'}`, // "1.tv."
  (f, d) => (/^\d+$/.test(f) ? `${f}. sal ${d}` : `${f}. ${d}`), // "1. sal tv"
  (f, d) => (/^\d+$/.test(f) ? `${f}. sal, ${d}.` : `${f}., ${d}.`), // "1. sal, tv."
  (f, d) => `${f === 'st' ? 'stuen' : f === 'kl' ? 'kælder' : `${f}.`} ${d}`, // "stuen th"
  (f, d) => `${f === 'st' ? 'stuePlan' : f === 'kl' ? 'kld.' : `${f}.`}${d === '' ? '' : ` ${d}`}`, // "stuePlan th"
  (f, d) => `${f === 'st' ? '0' : f}, ${d.toUpperCase()}`, // "0, TH"
  (f, d) => `${f}. ${/^(tv|th)$/.test(d) ? `${d[0]}.${d[1]}.` : d}`, // "1. t.v."
];

/**
 * Real supplementary town names (DAR SupplerendeBynavn), including the forms that look like a door
 * (four letters) or start with an abbreviation ("Nr.", "St.").
 */
const SUPPLEMENTARY_TOWNS: readonly string[] = [
  'Skee', 'Bred', 'Tved', 'Kås', 'Ålum', 'Nr. Asmindrup', 'St. Rørbæk', 'Sdr. Bjert', 'Vester Skerninge',
  'Over Jerstal', 'Øster Hurup', 'Gl. Rye', 'Ll. Næstved', 'Hedehusene', 'Tune',
];

const HOUSE_LETTER_SPELLINGS: readonly ((number: string, letter: string) => string)[] = [
  (n, l) => `${n} ${l.toLowerCase()}`,
  (n, l) => `${n}${l.toLowerCase()}`,
  (n, l) => `${n} ${l}`,
];

const CASE_EDITS: readonly ((text: string, rng: Rng) => string)[] = [
  (t) => t.toUpperCase(),
  (t) => t.toLowerCase(),
  // oxlint-disable-next-line typescript/no-misused-spread -- per code point is what a typist's case slip changes
  (t, rng) => [...t].map((c) => (rng.chance(0.5) ? c.toUpperCase() : c.toLowerCase())).join(''),
];

function addStrayPunctuation(text: string, rng: Rng): string {
  let out = text;
  if (rng.chance(0.5)) out = out.replace(/ /, '  ');
  if (rng.chance(0.3)) out = out.replace(/, /, ',');
  if (rng.chance(0.3)) out = out.replace(/, /, ',, ');
  if (rng.chance(0.4)) out += rng.pick(['.', ',', ' .', ';']);
  if (rng.chance(0.3)) out = ` ${out} `;
  return out;
}
