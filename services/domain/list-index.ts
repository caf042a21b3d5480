import { newCityFieldTable, parseAddress, placeKeyOf, streetDisplayOf, type CityFieldTable } from './address.ts';
import type { AddressRegister } from './address-register.ts';
import { resolveParsed } from './register-resolve.ts';
import { createFingerprintTable, type FingerprintTable } from './fingerprint-table.ts';
import { newNameWords, readNameInto } from './name.ts';
import { createNameTextsBuilder, type NameTexts } from './name-texts.ts';
import { createStreetIndexBuilder, type StreetIndex } from './street-index.ts';
import type { ListEntry } from './types.ts';
import { growableInt32 } from './growable-int32.ts';

/**
 * The in-memory index of one list version. Built for 2,000,000 entries: entries are not kept as
 * objects; every name word, unit and floor is interned once and an entry becomes a record of a few
 * integers. Records are stored building by building in one Int32Array, so checking a person reads
 * one contiguous run of memory (at national size, cache misses are what cost). An entry with both a
 * text address and a kvhx has a record under each of its two building keys.
 * Fields other than `size` are for checkPerson only.
 */
export interface ListIndex {
  /** Number of entries added (with or without a readable address). */
  readonly size: number;
  /** Number of buildings: distinct text and kvhx keys, and register access addresses with entries. */
  readonly buildingCount: number;
  readonly data: ListIndexData;
  /**
   * The address register the entries were resolved in, or null. With one, an entry whose address
   * (text or KVHX codes) is an access address of the register is also filed under that access
   * address (`registerBuildings`) and unit, and checkPerson resolves the input in the same
   * register: spelling, abbreviations and word order no longer decide the building and unit.
   */
  readonly register: AddressRegister | null;
}

/**
 * A building's run (ListIndexData.records): [record count n, n summaries, n records]. A summary is
 * S_STRIDE ints: [unit id, name signature, info]; a record is [floor id, name word ids...], the
 * name's words in the three runs of NameWords (name.ts), so given names and surnames are compared
 * each on their own. info packs the flags (bit 0), the word count (bits 1-8) and where the middle
 * and the surname runs start among the words (bits 9-16, 17-24). The scan of a building reads the
 * summaries, next to each other, and reads a record only when its unit is the person's or its
 * signature says both names may agree exactly (docs/matching.md "Speed of the check path").
 */
export const S_UNIT = 0;
export const S_SIGNATURE = 1;
export const S_INFO = 2;
export const S_STRIDE = 3;
export const FLAG_PREVIOUS = 1;

/**
 * A name word's bit in a record's signature: the low 16 bits hold its given and middle names
 * (words before the surname run), the high 16 its possible middle names and surnames (words from
 * the middle run on). A record whose given names agree exactly with a person's shares a low bit
 * with the person's signature, one whose surname agrees a high bit; ids are spread over the bits
 * by a multiplicative hash. (Words of both halves set a bit in each.)
 */
export function givenBit(id: number): number {
  return 1 << (Math.imul(id, 0x9e3779b1) >>> 28);
}

export function surnameBit(id: number): number {
  return 1 << (16 + (Math.imul(id, 0x9e3779b1) >>> 28));
}

export interface ListIndexData {
  /** Text building key ("gammelkongevej|12a|1610") or KVHX_PREFIX + kvhx building → building (see `records`). */
  buildings: FingerprintTable;
  /**
   * Register access address (its position) → building (registerBuildingOf); null without a
   * register. Not keys in `buildings`: every input with a register address looks here, and an
   * index by position costs no hashing and keeps `buildings` small. An array as long as the
   * register for a list that covers much of it, a Map for a small (private) list, which would
   * otherwise carry ~10 MB of array at national size for a few entries.
   */
  registerBuildings: Int32Array | Map<number, number> | null;
  /**
   * Building by building, a run (layout above S_UNIT): records[b] is building b's record count, its
   * summaries and records follow from b + 1. A building is known by where its run starts, so a
   * check reads the count and the first summaries from one place in memory, not a separate table
   * of starts first (docs/matching.md "Speed of the check path").
   */
  records: Int32Array;
  /**
   * Name word → id, compared by skeleton (normalize.ts): a FingerprintTable, not a Map of skeleton
   * strings, so a check neither builds the skeleton string nor follows a pointer to a key.
   */
  names: FingerprintTable;
  /** The spelling of each name word id, for one-slip and initial comparisons (name-texts.ts). */
  nameTexts: NameTexts;
  /**
   * Text unit key ("3|tv", '') or KVHX_PREFIX + kvhx unit → id. A record under a text building
   * holds the text unit id, one under a kvhx building the kvhx unit id.
   */
  units: Map<string, number>;
  floors: Map<string, number>;
  /** The streets of each postal code, for the fuzzy street fallback (street-index.ts). */
  streets: StreetIndex;
  /**
   * The city fields checks against this index read, by text: only those that read as a postal code
   * and town of the list's addresses (address.ts CityFieldTable); it goes with the index.
   */
  cityFields: CityFieldTable;
}

export const KVHX_PREFIX = '#';

/**
 * The record unit id of a register unit: negative, below the sentinels -1 (no unit) and -2 (a
 * person's unit the list does not have), so millions of register units need no Map of keys.
 */
export function registerUnitIdOf(unit: number): number {
  return -3 - unit;
}

/** The building id of register access address `access` in `d`, -1 for none. */
export function registerBuildingOf(d: ListIndexData, access: number): number {
  const buildings = d.registerBuildings;
  if (buildings === null) return -1;
  if (buildings instanceof Int32Array) return buildings[access];
  return buildings.get(access) ?? -1;
}

/**
 * Access address → building while the index is built: a Map until the list has buildings at more
 * than 1/16 of the register's access addresses, where an array becomes the smaller of the two.
 */
function createAccessBuildings(accessCount: number): {
  get(access: number): number;
  set(access: number, building: number): void;
  /** Every building id moved by `offset`. */
  done(offset: number): Int32Array | Map<number, number>;
} {
  let map: Map<number, number> | null = new Map();
  let array: Int32Array | null = null;
  return {
    get: (access) => (array !== null ? array[access] : map!.get(access) ?? -1),
    set(access, building) {
      if (array !== null) {
        array[access] = building;
        return;
      }
      map!.set(access, building);
      if (map!.size * 16 > accessCount) {
        array = new Int32Array(accessCount).fill(-1);
        for (const [a, b] of map!) array[a] = b;
        map = null;
      }
    },
    done(offset) {
      if (array !== null) {
        for (let a = 0; a < array.length; a++) if (array[a] >= 0) array[a] += offset;
        return array;
      }
      for (const [a, b] of map!) map!.set(a, b + offset);
      return map!;
    },
  };
}

function intern(map: Map<string, number>, key: string): number {
  let id = map.get(key);
  if (id === undefined) {
    id = map.size;
    map.set(key, id);
  }
  return id;
}

export interface ListIndexBuilder {
  add(entry: ListEntry): void;
  build(): ListIndex;
}

export function createListIndexBuilder(register: AddressRegister | null = null): ListIndexBuilder {
  const buildings = createFingerprintTable();
  const streets = createStreetIndexBuilder();
  const names = createFingerprintTable();
  const nameTexts = createNameTextsBuilder();
  const nameWords = newNameWords();
  const internName = (word: string): number => {
    const before = names.size;
    const id = names.intern(word);
    if (names.size > before) nameTexts.add(word);
    return id;
  };
  const wordRuns = growableInt32();
  const unitIds = new Map<string, number>();
  const floorIds = new Map<string, number>();
  const wordStart = growableInt32();
  const wordPool = growableInt32();
  const unit = growableInt32();
  const kvhxUnit = growableInt32();
  const floor = growableInt32();
  const previous = growableInt32();
  const textBuilding = growableInt32();
  const kvhxBuilding = growableInt32();
  /** Access address → its building, numbered 0.. here and placed after the text and kvhx buildings in build(). */
  const accessBuilding = register === null ? null : createAccessBuildings(register.accessCount);
  let registerBuildingCount = 0;
  const registerBuilding = growableInt32();
  const registerUnit = growableInt32();
  // The city fields read in this build, let go when it is built (address.ts CityFieldTable).
  let cityFields: CityFieldTable | null = newCityFieldTable();
  /** The list's postal code and town pairs (address.ts placeKeyOf), for the checks' CityFieldTable. */
  const places = createFingerprintTable(1 << 10);
  let built = false;

  return {
    add(entry: ListEntry): void {
      if (built) throw new Error('list index already built');
      wordStart.push(wordPool.length());
      if (readNameInto(entry, nameWords)) {
        for (let i = 0; i < nameWords.count; i++) wordPool.push(internName(nameWords.words[i]));
        wordRuns.push(nameWords.middleFrom | (nameWords.surnameFrom << 8));
      } else {
        wordRuns.push(0);
      }
      const address = parseAddress(entry, cityFields);
      let textId = -1;
      if (address?.buildingKey) {
        const before = buildings.size;
        textId = buildings.intern(address.buildingKey);
        // A street is registered with its postal code once per new building, not per entry.
        if (buildings.size > before) streets.add(address.streetKey!, streetDisplayOf(address)!, address.postalCode!, address.street);
      }
      if (address?.postalCode && address.city !== null) places.intern(placeKeyOf(address.postalCode, address.city));
      textBuilding.push(textId);
      kvhxBuilding.push(address?.kvhxBuilding ? buildings.intern(KVHX_PREFIX + address.kvhxBuilding) : -1);
      unit.push(address ? intern(unitIds, address.unitKey) : -1);
      kvhxUnit.push(address?.kvhxUnit ? intern(unitIds, KVHX_PREFIX + address.kvhxUnit) : -1);
      floor.push(address?.floor ? intern(floorIds, address.floor) : -1);
      let registerId = -1;
      let registerUnitId = -1;
      if (accessBuilding !== null && address !== null) {
        const match = resolveParsed(register!, address);
        if (match.access >= 0) {
          registerId = accessBuilding.get(match.access);
          if (registerId < 0) {
            registerId = registerBuildingCount++;
            accessBuilding.set(match.access, registerId);
          }
          // A unit the register lacks keeps its text key: the input's will be the same text key.
          registerUnitId = match.unit >= 0 ? registerUnitIdOf(match.unit) : intern(unitIds, address.unitKey);
        }
      }
      registerBuilding.push(registerId);
      registerUnit.push(registerUnitId);
      previous.push(entry?.previous === true ? FLAG_PREVIOUS : 0);
    },

    build(): ListIndex {
      if (built) throw new Error('list index already built');
      built = true;
      cityFields = null;
      wordStart.push(wordPool.length());
      const size = wordRuns.length();
      const text = textBuilding.done();
      const kvhx = kvhxBuilding.done();
      const reg = registerBuilding.done();
      const regUnits = registerUnit.done();
      const starts = wordStart.done();
      // Register buildings follow the text and kvhx ones.
      const firstRegister = buildings.size;
      const buildingCount = firstRegister + registerBuildingCount;
      const registerBuildings = accessBuilding === null ? null : accessBuilding.done(firstRegister);
      for (let e = 0; e < reg.length; e++) if (reg[e] >= 0) reg[e] += firstRegister;
      // Building b's run: its record count, its summaries, its records; runStart[b] is where it starts.
      const runStart = new Int32Array(buildingCount + 1);
      const count = new Int32Array(buildingCount);
      for (let b = 0; b < buildingCount; b++) runStart[b + 1] = 1;
      for (let e = 0; e < size; e++) {
        const length = S_STRIDE + 1 + starts[e + 1] - starts[e];
        if (text[e] >= 0) { runStart[text[e] + 1] += length; count[text[e]]++; }
        if (kvhx[e] >= 0) { runStart[kvhx[e] + 1] += length; count[kvhx[e]]++; }
        if (reg[e] >= 0) { runStart[reg[e] + 1] += length; count[reg[e]]++; }
      }
      for (let b = 0; b < buildingCount; b++) runStart[b + 1] += runStart[b];
      const records = new Int32Array(runStart[buildingCount]);
      /** Where building b's next summary and next record go. */
      const nextSummary = new Int32Array(buildingCount);
      const nextRecord = new Int32Array(buildingCount);
      for (let b = 0; b < buildingCount; b++) {
        records[runStart[b]] = count[b];
        nextSummary[b] = runStart[b] + 1;
        nextRecord[b] = runStart[b] + 1 + S_STRIDE * count[b];
      }
      const runs = wordRuns.done();
      const pool = wordPool.done();
      const units = unit.done();
      const kvhxUnits = kvhxUnit.done();
      const floors_ = floor.done();
      const flags = previous.done();
      const write = (b: number, e: number, unitId: number): void => {
        // A name has at most 80 words (name.ts: two fields of 40 tokens): each count fits its 8 bits.
        const wordCount = starts[e + 1] - starts[e];
        const middleFrom = runs[e] & 0xff;
        const surnameFrom = runs[e] >>> 8;
        let signature = 0;
        for (let i = 0; i < wordCount; i++) {
          const id = pool[starts[e] + i];
          if (i < surnameFrom) signature |= givenBit(id);
          if (i >= middleFrom) signature |= surnameBit(id);
        }
        const s = nextSummary[b];
        records[s + S_UNIT] = unitId;
        records[s + S_SIGNATURE] = signature;
        records[s + S_INFO] = flags[e] | (wordCount << 1) | (middleFrom << 9) | (surnameFrom << 17);
        nextSummary[b] = s + S_STRIDE;
        let w = nextRecord[b];
        records[w++] = floors_[e];
        for (let g = starts[e]; g < starts[e + 1]; g++) records[w++] = pool[g];
        nextRecord[b] = w;
      };
      for (let e = 0; e < size; e++) {
        if (text[e] >= 0) write(text[e], e, units[e]);
        if (kvhx[e] >= 0) write(kvhx[e], e, kvhxUnits[e]);
        if (reg[e] >= 0) write(reg[e], e, regUnits[e]);
      }
      // From here a building is known by where its run starts (see ListIndexData.records).
      buildings.replaceIds(runStart);
      if (registerBuildings instanceof Int32Array) {
        for (let a = 0; a < registerBuildings.length; a++) if (registerBuildings[a] >= 0) registerBuildings[a] = runStart[registerBuildings[a]];
      } else if (registerBuildings !== null) {
        for (const [a, b] of registerBuildings) registerBuildings.set(a, runStart[b]);
      }
      return {
        size,
        buildingCount,
        register,
        data: {
          buildings, registerBuildings, records, names, nameTexts: nameTexts.build(), units: unitIds, floors: floorIds, streets: streets.build(),
          cityFields: newCityFieldTable(places),
        },
      };
    },
  };
}

export function buildListIndex(entries: Iterable<ListEntry>, register: AddressRegister | null = null): ListIndex {
  const builder = createListIndexBuilder(register);
  for (const entry of entries) builder.add(entry);
  return builder.build();
}
