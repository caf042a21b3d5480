import { describe, expect, it } from 'vitest';
import { createFingerprintMap, createFingerprintTable } from '../../../services/domain/fingerprint-table.ts';

/**
 * getJoined(a, b, c) is get(a + '|' + b + '|' + c) without making the string (docs/matching.md
 * "Speed of the check path"): the check path looks building keys up by their parts.
 */

const STREETS = ['gammelkongevej', 'noerregade', 'norregade', 'aaboulevard', 'abouleevard', 'o', 'e', 'a', 'store', ''];
const HOUSES = ['1', '12a', 'e', 'a', ''];
const POSTALS = ['1610', '8000', 'aa', ''];

describe('fingerprint table: a key looked up by its parts', () => {
  it('every joined key is found under the id its string has, also where the skeleton rule meets a join', () => {
    const table = createFingerprintTable(4);
    const map = createFingerprintMap(4);
    for (const s of STREETS) for (const h of HOUSES) for (const p of POSTALS) {
      const key = `${s}|${h}|${p}`;
      map.setIfAbsent(key, table.intern(key) * 3);
    }
    for (const s of STREETS) for (const h of HOUSES) for (const p of POSTALS) {
      const key = `${s}|${h}|${p}`;
      expect(table.getJoined(s, h, p), key).toBe(table.get(key));
      expect(map.getJoined(s, h, p), key).toBe(map.get(key));
      expect(table.getJoined(s, h, p), key).toBeGreaterThanOrEqual(0);
    }
    // The skeleton rule holds across parts as in the string: "noerregade" is "norregade".
    expect(table.getJoined('noerregade', '1', '8000')).toBe(table.get('norregade|1|8000'));
  });

  it('a key that is not in the table is not found by its parts either', () => {
    const table = createFingerprintTable();
    table.intern('gammelkongevej|12a|1610');
    expect(table.getJoined('gammelkongevej', '12a', '1610')).toBe(0);
    expect(table.getJoined('gammelkongevej', '12', '1610')).toBe(-1);
    expect(table.getJoined('gammelkongevej|12a', '', '1610')).toBe(-1);
    expect(table.getJoined('gammelkongevej', '12a|1610', '')).toBe(-1);
    expect(table.getJoined('gammelkongevej', '12a', '1610|')).toBe(-1);
  });

  it('replaceIds: every key answers the value of its id from then on, and nothing more is interned', () => {
    const table = createFingerprintTable(2);
    const keys = Array.from({ length: 50 }, (_, i) => `vej${i}|${i}|1000`); // grows the table on the way
    for (const key of keys) table.intern(key);
    table.replaceIds(Int32Array.from(keys, (_, id) => 7 * id + 3));
    keys.forEach((key, id) => expect(table.get(key), key).toBe(7 * id + 3));
    expect(table.getJoined('vej4', '4', '1000')).toBe(31);
    expect(table.get('vej50|50|1000')).toBe(-1);
    expect(() => table.intern('vej51|51|1000')).toThrow(/intern after replaceIds/);
    expect(() => table.replaceIds(new Int32Array(50))).toThrow(/already replaced/);
  });
});
