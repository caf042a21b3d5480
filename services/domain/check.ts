import { parseAddress, parseAddressLine, type CityFieldTable, type ParsedAddress } from './address.ts';
import type { AddressRegister } from './address-register.ts';
import {
  FLAG_PREVIOUS, KVHX_PREFIX, S_INFO, S_SIGNATURE, S_STRIDE, S_UNIT, registerBuildingOf, registerUnitIdOf, type ListIndex, type ListIndexData,
} from './list-index.ts';
import { registerAddress, resolveParsed, resolveParsedInto, type RegisterResolution } from './register-resolve.ts';
import {
  newNameHashes, newNameWords, readNameHashes, readNameInto, toParsedName, type NameHashes, type NameWords, type ParsedName,
} from './name.ts';
import {
  APPROXIMATE, givenAgreement, givenTolerant, NONE, personGivenBits, personSurnameBits, readPersonNameHashed, surnameAgreement,
  surnameTolerant,
} from './name-agreement.ts';
import { addressInputOf, toCorrectedAddress, toResolvedAddress } from './resolve.ts';
import { closestStreets } from './street-index.ts';
import { matchLabel, statusFor } from './status.ts';
import type {
  CheckOptions, CheckResult, DeprecatedLevel, MatchCode, MatchOn, PersonInput, Reason, ResolvedAddress,
} from './types.ts';

/** Level → code (docs/decisions.md §1). */
const CODE_OF_LEVEL: readonly MatchCode[] = ['none', 'household', 'surname', 'given_name', 'name_building', 'name_address'];

/**
 * What matched for a base level (the level before any previous-address raise), by base level.
 * Frozen and shared by every result: nothing changes a result's `on`, and one array a level
 * spares an allocation per check.
 */
const ON_OF_BASE: readonly MatchOn[][] = [
  [], ['address', 'unit'], ['last_name', 'address', 'unit'], ['first_name', 'address', 'unit'],
  ['first_name', 'last_name', 'address'], ['first_name', 'last_name', 'address', 'unit'],
].map((on) => Object.freeze(on) as MatchOn[]);

function reasonOf(base: number): Reason | null {
  switch (base) {
    case 5: return 'name_and_unit';
    case 4: return 'name_and_address';
    case 3: case 2: return 'partial_name';
    case 1: return 'household';
    default: return null;
  }
}

/**
 * One winning match: `base` is the level the entry gives at the unit (§1 rows 5..0), `level` the
 * final one (a name match at a previous address is raised to at least 4).
 */
export interface Winner {
  level: number;
  base: number;
  previous: boolean;
  sameFloor: boolean;
  /** The names agreed only through a tolerated slip or an initial (docs/matching.md "Names"). */
  approximate: boolean;
}

/**
 * The result for a person whose match is known. Under bdq, a person with level 0 and list entries
 * in the building is blocked with the reason `household` (someone on the list at the address).
 */
export function resultFor(
  id: string | null, winner: Winner, anyInBuilding: boolean, address: ResolvedAddress | null,
  options: CheckOptions,
): CheckResult {
  const { level, base, previous } = winner;
  const approximate = level > 0 && winner.approximate;
  const code = CODE_OF_LEVEL[level];
  const reasons: Reason[] = [];
  if (level > 0) {
    if (previous) reasons.push('previous_address');
    reasons.push(reasonOf(base) as Reason);
  } else if (options.policy === 'bdq' && anyInBuilding) {
    reasons.push('household');
  }
  let deprecated: DeprecatedLevel;
  if (level === 0) deprecated = 'none';
  else if (previous) deprecated = 'previous';
  else if (base === 4) deprecated = winner.sameFloor ? 'floor' : 'building';
  else deprecated = 'unit';
  return {
    id,
    status: statusFor(level, options.policy, options.stopLevel, anyInBuilding),
    reasons,
    level: deprecated,
    match: {
      level, code, label: matchLabel(code, options.locale, previous, approximate), on: ON_OF_BASE[level === 0 ? 0 : base],
      previous_address: previous,
      approximate,
    },
    stop_level: options.stopLevel,
    address,
    phone_lookup: null,
  };
}

/** No level: the address is unreadable and/or there is no name. Never allowed. */
function unreadResult(
  id: string | null, reasons: Reason[], address: ResolvedAddress | null, options: CheckOptions,
): CheckResult {
  return {
    id,
    status: statusFor(null, options.policy, options.stopLevel),
    reasons,
    level: null,
    match: { level: null, code: null, label: null, on: [], previous_address: false, approximate: false },
    stop_level: options.stopLevel,
    address,
    phone_lookup: null,
  };
}

/** A person as every check reads it, or the final result of one that cannot be matched. */
export type ReadPerson =
  | { unread: CheckResult }
  | { unread: null; id: string | null; parsed: ParsedAddress; name: ParsedName; address: ResolvedAddress | null };

/**
 * Reads a person's id, address and name. Without a readable address or a name the person gets no
 * level (`unread`). `addressUnreadable` lets test mode declare an address unreadable by its text.
 */
export function readPerson(
  person: PersonInput, options: CheckOptions, addressUnreadable?: (addressText: string) => boolean,
): ReadPerson {
  const read = readPersonText(person, options, addressUnreadable, null, false, null);
  if (read.unread) return read;
  const { id, parsed, addressText } = read;
  return { unread: null, id, parsed, name: toParsedName(nameWords), address: toResolvedAddress(parsed, addressText) };
}

/** The name of the person readPersonText read last: for readPerson as words, for checkPerson as hashes. */
const nameWords: NameWords = newNameWords();
const nameHashes: NameHashes = newNameHashes();

/**
 * readPerson without the parse-only ResolvedAddress of a readable address (checkPerson makes it
 * only when the register does not answer with its own), the name in `nameHashes` (`hashed`) or
 * `nameWords`.
 */
function readPersonText(
  person: PersonInput, options: CheckOptions, addressUnreadable: ((addressText: string) => boolean) | undefined,
  register: AddressRegister | null, hashed: boolean, cityFields: CityFieldTable | null,
): { unread: CheckResult } | { unread: null; id: string | null; parsed: ParsedAddress; addressText: string } {
  const input = inputOf(person);
  const idField = input.id; // read once (resolve.ts addressInputOf: inputs come in many shapes)
  const id = typeof idField === 'string' ? idField : null;
  const addressText = addressInputOf(input);
  const parsed = addressUnreadable?.(addressText) ? null : readAddress(input, addressText, register, cityFields);
  const named = hashed ? readNameHashes(input, nameHashes) : readNameInto(input, nameWords);
  if (parsed === null || !named) return { unread: unreadOf(id, parsed, named, addressText, options) };
  return { unread: null, id, parsed, addressText };
}

function inputOf(person: PersonInput): PersonInput {
  return person !== null && typeof person === 'object' ? person : {};
}

/** The person's address as read, or null when unreadable. */
function readAddress(
  input: PersonInput, addressText: string, register: AddressRegister | null, cityFields: CityFieldTable | null,
): ParsedAddress | null {
  const parsed = parseAddress(input, cityFields);
  if (parsed !== null || register === null) return parsed;
  // The city field completes an address line the way the postal code field would (CSV layout).
  const city = typeof input.address === 'string' && input.address.trim() !== '' && typeof input.city === 'string'
    ? input.city.trim() : '';
  return readWithoutPostalCode(register, city === '' ? addressText : addressText + ', ' + city);
}

/** The result of a person without a readable address or a name (no level). */
function unreadOf(
  id: string | null, parsed: ParsedAddress | null, named: boolean, addressText: string, options: CheckOptions,
): CheckResult {
  const reasons: Reason[] = [];
  if (parsed === null) reasons.push('address_unreadable');
  if (!named) reasons.push('no_name');
  const address = addressText === '' && parsed === null ? null : toResolvedAddress(parsed, addressText);
  return unreadResult(id, reasons, address, options);
}

/**
 * A line without a postal code whose town name is exact (datavask, register-resolve.ts): read as
 * the register writes that address, so it has a building key like any other. Null otherwise.
 */
function readWithoutPostalCode(register: AddressRegister, text: string): ParsedAddress | null {
  const loose = parseAddressLine(text);
  if (loose === null || loose.postalCode !== null) return null;
  const match = resolveParsed(register, loose);
  if (match.unit < 0 || match.confidence === 'unresolved') return null;
  return parseAddress({ address: registerAddress(register, match.access, match.unit, text, match.confidence).formatted! });
}

/** checkPerson's best match so far (scanBuilding), reset for each input: not one object per input. */
const best: Winner & { score: number } = {
  score: -1, level: 0, base: 0, previous: false, sameFloor: false, approximate: false,
};

/**
 * The score of a match: the highest level wins; on a tie an exact name beats one found through a
 * slip or an initial, the current address beats a previous one, and the same floor beats
 * elsewhere in the building.
 */
function scoreOf(level: number, approximate: boolean, previous: boolean, sameFloor: boolean): number {
  return level * 8 + (approximate ? 0 : 4) + (previous ? 0 : 2) + (sameFloor ? 1 : 0);
}
/** An exact level-5 match at the current address: nothing can beat it. */
const BEST_POSSIBLE = scoreOf(5, false, false, false);

/**
 * Scans the records of building `b`, keeping the best match in `best` (see `scoreOf`). The
 * person's name is the one readPersonNameHashed prepared (name-agreement.ts). The building's
 * summaries are read in order (list-index.ts S_UNIT); a record is read only at the person's unit
 * or when its signature shares a given-name bit and a surname bit with the person's: elsewhere in
 * the building only both names agreeing exactly give a level (4), so a record that cannot is
 * skipped on two integers (docs/matching.md "Speed of the check path").
 */
function scanBuilding(d: ListIndexData, b: number, personUnit: number, floorId: number, best: Winner & { score: number }): void {
  const records = d.records;
  const texts = d.nameTexts;
  const givenBits = personGivenBits;
  const surnameBits = personSurnameBits;
  let s = b + 1;
  const summariesEnd = s + S_STRIDE * records[b];
  /** Where the record of summary s starts: [floor id, name word ids...]. */
  let o = summariesEnd;
  // Once an exact level-5 match at the current address is found no record can beat it (`scoreOf`):
  // the rest of the building's records are not read.
  while (s < summariesEnd && best.score < BEST_POSSIBLE) {
    const sameUnit = records[s + S_UNIT] === personUnit;
    const signature = records[s + S_SIGNATURE];
    const info = records[s + S_INFO];
    s += S_STRIDE;
    const floorAt = o;
    const words = o + 1;
    o = words + ((info >>> 1) & 0xff);
    if (!sameUnit && ((signature & givenBits) === 0 || (signature & surnameBits) === 0)) continue;
    const next = o;
    const middle = words + ((info >>> 9) & 0xff);
    const surnames = words + (info >>> 17);
    const previous = (info & FLAG_PREVIOUS) !== 0;
    // The exact comparison first; a slip or an initial is looked for only where it failed, at the
    // person's own unit only (docs/matching.md "Names": there every agreement raises the level;
    // elsewhere in the building it would run for every neighbour sharing a common given name or
    // surname, a cost on every input), and only when the best it could give, an approximate level
    // 5, would beat the best match so far.
    let given = givenAgreement(texts, records, words, surnames, false);
    let surname = surnameAgreement(texts, records, middle, surnames, next, false);
    if (sameUnit && (given === NONE || surname === NONE) && scoreOf(5, true, previous, false) > best.score) {
      if (given === NONE && givenTolerant(texts, records, words, surnames)) given = APPROXIMATE;
      if (surname === NONE && surnameTolerant(texts, records, middle, surnames, next)) surname = APPROXIMATE;
    }
    const approximate = given === APPROXIMATE || surname === APPROXIMATE;
    let base: number;
    if (given !== NONE && surname !== NONE) base = sameUnit ? 5 : 4;
    else if (!sameUnit) base = 0;
    else base = given !== NONE ? 3 : surname !== NONE ? 2 : 1;
    const level = previous ? (base >= 2 ? (base > 4 ? base : 4) : 0) : base;
    if (level > 0) {
      const sameFloor = !previous && base === 4 && floorId >= 0 && records[floorAt] === floorId;
      const nameApproximate = base >= 2 && approximate;
      const score = scoreOf(level, nameApproximate, previous, sameFloor);
      if (score > best.score) {
        best.score = score;
        best.level = level;
        best.base = base;
        best.previous = previous;
        best.sameFloor = sameFloor;
        best.approximate = nameApproximate;
      }
    }
  }
}

const closest: number[] = [];
/** The street id behind the last building correctedBuilding returned. */
let correctedStreet = -1;

/**
 * The building a person with a misspelt street means (docs/decisions.md §13 "corrected"): house number and
 * postal code as given, the street the closest of the postal code's list streets within a small
 * edit distance (street-index.ts). On a tie, the one of the closest streets with list entries at
 * that house number; two such streets are ambiguous and give -1, as does no close street.
 */
function correctedBuilding(d: ListIndexData, parsed: ParsedAddress): number {
  const count = closestStreets(d.streets, parsed.streetKey!, parsed.postalCode!, closest);
  let found = -1;
  for (let i = 0; i < count; i++) {
    const b = d.buildings.getJoined(d.streets.keys[closest[i]], parsed.houseNumber!, parsed.postalCode!);
    if (b < 0 || b === found) continue; // a street's key and its words (street-index.ts) are one building
    if (found >= 0) return -1;
    found = b;
    correctedStreet = closest[i];
  }
  return found;
}

/** checkPerson's register answer for the current input (one object, not one per input). */
const resolution: RegisterResolution = { access: -1, unit: -1, confidence: 'unresolved', notFound: false, byBuildingKey: false };

export function checkPerson(index: ListIndex, person: PersonInput, options: CheckOptions): CheckResult {
  const read = readPersonText(person, options, undefined, index.register, true, index.data.cityFields);
  if (read.unread) return read.unread;
  return matchRead(index, read.id, read.parsed, read.addressText, NOT_LOOKED_UP, options);
}

/** Rows per phase of checkPeople (docs/matching.md "Speed of the check path"). */
const BATCH = 128;
const batchInputs: PersonInput[] = [];
const batchIds: (string | null)[] = [];
const batchTexts: string[] = [];
const batchParsed: (ParsedAddress | null)[] = [];
/** Per row: its text building key's fingerprint (two ints), then its building (NOT_LOOKED_UP: none to look up). */
const batchFingerprints = new Int32Array(2 * BATCH);
const batchBuildings = new Int32Array(BATCH);
/** matchRead's textBuilding when the text building key has not been looked up yet. */
const NOT_LOOKED_UP = -3;
const EMPTY_INPUT: PersonInput = {};
/**
 * What checkPeople read from the batch's building runs before the scans, kept so that the reads are
 * not dropped as unused: their point is to bring the runs into the cache, several at once.
 */
let runsTouched = 0;

/**
 * checkPerson for each person, answers in input order, in phases per batch of rows: every row's
 * address is read and its text building key hashed, then every key is looked up in the building
 * table, then each found building's run start (record count, first summary) is read, then every
 * row is matched. A table slot and a run start are each a cache miss at national size; row by row
 * each miss waits for the row's reading and the one before it, in one loop of independent loads
 * several are in flight together (docs/matching.md "Speed of the check path").
 */
export function checkPeople(index: ListIndex, people: readonly PersonInput[], options: CheckOptions): CheckResult[] {
  const results: CheckResult[] = new Array(people.length);
  const batch = BATCH;
  const register = index.register;
  const cityFields = index.data.cityFields;
  const buildings = index.data.buildings;
  const records = index.data.records;
  let touched = 0;
  for (let from = 0; from < people.length; from += batch) {
    const n = Math.min(batch, people.length - from);
    for (let i = 0; i < n; i++) {
      const input = inputOf(people[from + i]);
      const idField = input.id; // read once (resolve.ts addressInputOf: inputs come in many shapes)
      const addressText = addressInputOf(input);
      batchInputs[i] = input;
      batchIds[i] = typeof idField === 'string' ? idField : null;
      batchTexts[i] = addressText;
      const parsed = readAddress(input, addressText, register, cityFields);
      batchParsed[i] = parsed;
      if (parsed !== null && parsed.buildingKey !== null) {
        buildings.fingerprintJoinedInto(parsed.streetKey!, parsed.houseNumber!, parsed.postalCode!, batchFingerprints, 2 * i);
        batchBuildings[i] = 0;
      } else {
        batchBuildings[i] = NOT_LOOKED_UP;
      }
    }
    for (let i = 0; i < n; i++) {
      if (batchBuildings[i] !== NOT_LOOKED_UP) batchBuildings[i] = buildings.getFingerprint(batchFingerprints[2 * i], batchFingerprints[2 * i + 1]);
    }
    for (let i = 0; i < n; i++) {
      const b = batchBuildings[i];
      if (b >= 0) touched += records[b] + records[b + 1 + S_SIGNATURE]; // the run's count and first signature (list-index.ts S_UNIT)
    }
    for (let i = 0; i < n; i++) {
      const parsed = batchParsed[i];
      const named = readNameHashes(batchInputs[i], nameHashes);
      results[from + i] = parsed === null || !named
        ? unreadOf(batchIds[i], parsed, named, batchTexts[i], options)
        : matchRead(index, batchIds[i], parsed, batchTexts[i], batchBuildings[i], options);
      batchInputs[i] = EMPTY_INPUT; // a batch keeps no person after it
      batchParsed[i] = null;
      batchTexts[i] = '';
    }
  }
  runsTouched += touched;
  return results;
}

/**
 * The match of a person whose address and name (in nameHashes) are read. `textBuilding` is the
 * building of the text building key when already looked up (-1: none), else NOT_LOOKED_UP.
 */
function matchRead(
  index: ListIndex, id: string | null, parsed: ParsedAddress, addressText: string, textBuilding: number, options: CheckOptions,
): CheckResult {
  const register = index.register;
  let address: ResolvedAddress | null = null;

  const d = index.data;
  readPersonNameHashed(nameHashes, d.names);
  const floorId = parsed.floor === null ? -2 : d.floors.get(parsed.floor) ?? -2;
  best.score = -1;
  best.level = 0;
  best.base = 0;
  best.previous = false;
  best.sameFloor = false;
  best.approximate = false;
  let anyInBuilding = false;

  // With a register, the person's register address (when it resolves) is what the building and
  // unit are compared by; the text keys still find entries the register could not place.
  let access = -1;
  let notFound = false;
  // Every entry under the person's text building key is also under this access address, with a
  // unit compared at least as leniently (see RegisterResolution): the text building adds nothing.
  let textBuildingCovered = false;
  if (register !== null) {
    const match = resolveParsedInto(register, parsed, resolution);
    access = match.access;
    notFound = match.notFound;
    textBuildingCovered = match.byBuildingKey;
    if (match.unit >= 0 && match.confidence !== 'unresolved') {
      address = registerAddress(register, match.access, match.unit, addressText, match.confidence);
    }
    const b = access >= 0 ? registerBuildingOf(d, access) : -1;
    if (b >= 0) {
      anyInBuilding = true;
      const unit = match.unit >= 0 ? registerUnitIdOf(match.unit) : d.units.get(parsed.unitKey) ?? -2;
      scanBuilding(d, b, unit, floorId, best);
    }
  }
  if (parsed.buildingKey !== null && !textBuildingCovered) {
    // buildingKey is streetKey|houseNumber|postalCode (address.ts): looked up by its parts (fingerprint-table.ts getJoined).
    let b = textBuilding !== NOT_LOOKED_UP ? textBuilding : d.buildings.getJoined(parsed.streetKey!, parsed.houseNumber!, parsed.postalCode!);
    // The list's streets correct a misspelt street only when the register has not placed it.
    if (b < 0 && access < 0) {
      b = correctedBuilding(d, parsed);
      if (b >= 0) {
        address = toCorrectedAddress(parsed, toResolvedAddress(parsed, addressText), d.streets.displays[correctedStreet]);
      }
    }
    if (b >= 0) {
      anyInBuilding = true;
      scanBuilding(d, b, d.units.get(parsed.unitKey) ?? -2, floorId, best);
    }
  }
  if (parsed.kvhxBuilding !== null && best.score < BEST_POSSIBLE) {
    const b = d.buildings.get(KVHX_PREFIX + parsed.kvhxBuilding);
    if (b >= 0) {
      anyInBuilding = true;
      const unit = d.units.get(KVHX_PREFIX + parsed.kvhxUnit) ?? -2;
      scanBuilding(d, b, unit, floorId, best);
    }
  }
  const result = resultFor(id, best, anyInBuilding, address ?? toResolvedAddress(parsed, addressText), options);
  // docs/decisions.md §2: added as a reason; matching still ran on the normalised text.
  if (notFound) result.reasons.push('address_not_found');
  return result;
}
