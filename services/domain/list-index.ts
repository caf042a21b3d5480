import { parseAddress } from './address.ts';
import { createFingerprintTable, type FingerprintTable } from './fingerprint-table.ts';
import { parseName } from './name.ts';
import type { ListEntry } from './types.ts';

/**
 * The in-memory index of one list version. Built for 2,000,000 entries: entries are not kept as
 * objects; every name word, unit and building key is interned once and an entry is a handful of
 * integers in typed arrays, grouped by building (CSR: `postStart[b]..postStart[b+1]` of `posting`).
 * Fields other than `size` are for checkPerson only.
 */
export interface ListIndex {
  /** Number of entries added (with or without a readable address). */
  readonly size: number;
  /** Number of distinct building keys (text keys and kvhx keys). */
  readonly buildingCount: number;
  readonly data: ListIndexData;
}

export interface ListIndexData {
  /** Text building key ("gammelkongevej|12a|1610") or KVHX_PREFIX + kvhx building → building id. */
  buildings: FingerprintTable;
  postStart: Int32Array;
  posting: Int32Array;
  /** Name word → id. */
  names: Map<string, number>;
  /** Text unit key ("3|tv", '') or KVHX_PREFIX + kvhx unit → id. */
  units: Map<string, number>;
  floors: Map<string, number>;
  /** Per entry: surname id or -1. */
  surname: Int32Array;
  /** Per entry e: given-name ids are givenPool[givenStart[e] .. givenStart[e + 1]). */
  givenStart: Int32Array;
  givenPool: Int32Array;
  /** Per entry: text unit id, kvhx unit id, floor id; -1 when absent. */
  unit: Int32Array;
  kvhxUnit: Int32Array;
  floor: Int32Array;
  /** Per entry: 1 when the entry is a previous address of the listed person. */
  previous: Uint8Array;
}

export const KVHX_PREFIX = '#';

/** An Int32Array that grows by doubling, trimmed to its length at the end. */
function growable(initial = 1024): { push(v: number): void; length(): number; done(): Int32Array } {
  let array = new Int32Array(initial);
  let length = 0;
  return {
    push(v: number): void {
      if (length === array.length) {
        const bigger = new Int32Array(array.length * 2);
        bigger.set(array);
        array = bigger;
      }
      array[length++] = v;
    },
    length: () => length,
    done: () => array.slice(0, length),
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

export function createListIndexBuilder(): ListIndexBuilder {
  const buildings = createFingerprintTable();
  const names = new Map<string, number>();
  const units = new Map<string, number>();
  const floors = new Map<string, number>();
  const surname = growable();
  const givenStart = growable();
  const givenPool = growable();
  const unit = growable();
  const kvhxUnit = growable();
  const floor = growable();
  const previous = growable();
  const textBuilding = growable();
  const kvhxBuilding = growable();
  let built = false;

  return {
    add(entry: ListEntry): void {
      if (built) throw new Error('list index already built');
      const name = parseName(entry);
      givenStart.push(givenPool.length());
      if (name === null) {
        surname.push(-1);
      } else {
        surname.push(name.surname === '' ? -1 : intern(names, name.surname));
        for (const given of name.given) givenPool.push(intern(names, given));
      }
      const address = parseAddress(entry);
      textBuilding.push(address?.buildingKey ? buildings.intern(address.buildingKey) : -1);
      kvhxBuilding.push(address?.kvhxBuilding ? buildings.intern(KVHX_PREFIX + address.kvhxBuilding) : -1);
      unit.push(address ? intern(units, address.unitKey) : -1);
      kvhxUnit.push(address?.kvhxUnit ? intern(units, KVHX_PREFIX + address.kvhxUnit) : -1);
      floor.push(address?.floor ? intern(floors, address.floor) : -1);
      previous.push(entry?.previous === true ? 1 : 0);
    },

    build(): ListIndex {
      if (built) throw new Error('list index already built');
      built = true;
      givenStart.push(givenPool.length());
      const size = surname.length();
      const text = textBuilding.done();
      const kvhx = kvhxBuilding.done();
      const buildingCount = buildings.size;
      const postStart = new Int32Array(buildingCount + 1);
      for (let e = 0; e < size; e++) {
        if (text[e] >= 0) postStart[text[e] + 1]++;
        if (kvhx[e] >= 0) postStart[kvhx[e] + 1]++;
      }
      for (let b = 0; b < buildingCount; b++) postStart[b + 1] += postStart[b];
      const fill = postStart.slice(0, buildingCount);
      const posting = new Int32Array(postStart[buildingCount]);
      for (let e = 0; e < size; e++) {
        if (text[e] >= 0) posting[fill[text[e]]++] = e;
        if (kvhx[e] >= 0) posting[fill[kvhx[e]]++] = e;
      }
      return {
        size,
        buildingCount,
        data: {
          buildings, postStart, posting, names, units, floors,
          surname: surname.done(),
          givenStart: givenStart.done(),
          givenPool: givenPool.done(),
          unit: unit.done(),
          kvhxUnit: kvhxUnit.done(),
          floor: floor.done(),
          previous: Uint8Array.from(previous.done()),
        },
      };
    },
  };
}

export function buildListIndex(entries: Iterable<ListEntry>): ListIndex {
  const builder = createListIndexBuilder();
  for (const entry of entries) builder.add(entry);
  return builder.build();
}
