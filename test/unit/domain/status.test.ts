import { describe, expect, it } from 'vitest';
import { buildListIndex, checkPerson, matchLabel, statusFor } from '../../../services/domain/index.ts';
import type { MatchCode, MatchPolicy, Status } from '../../../services/domain/types.ts';

/**
 * docs/decisions.md §2, written out by hand for every policy × stop line 1..5 × level (null, 0..5):
 * one letter per level in the order null 0 1 2 3 4 5 (B blocked, M manual, A allowed).
 */
const EXPECTED: Record<'standard' | 'strict', Record<number, string>> = {
  standard: { 1: 'MAMBBBB', 2: 'MAABBBB', 3: 'MAAABBB', 4: 'MAAAABB', 5: 'MAAAAAB' },
  strict: { 1: 'MABBBBB', 2: 'MABBBBB', 3: 'MABBBBB', 4: 'MABBBBB', 5: 'MABBBBB' },
};
const LEVELS = [null, 0, 1, 2, 3, 4, 5] as const;
const LETTER: Record<Status, string> = { blocked: 'B', manual: 'M', allowed: 'A' };

describe('statusFor (docs/decisions.md §2)', () => {
  for (const policy of ['standard', 'strict'] as const) {
    for (const stop of [1, 2, 3, 4, 5]) {
      it(`${policy}, stop line ${stop}: ${EXPECTED[policy][stop]}`, () => {
        const got = LEVELS.map((level) => LETTER[statusFor(level, policy, stop)]).join('');
        expect(got).toBe(EXPECTED[policy][stop]);
      });
    }
  }

  for (const stop of [1, 2, 3, 4, 5]) {
    it(`bdq, stop line ${stop}: entries in the building block whatever the level`, () => {
      const inBuilding = LEVELS.map((level) => LETTER[statusFor(level, 'bdq', stop, true)]).join('');
      expect(inBuilding).toBe('MBBBBBB');
      const empty = LEVELS.map((level) => LETTER[statusFor(level, 'bdq', stop, false)]).join('');
      expect(empty).toBe('MABBBBB');
      expect(statusFor(0, 'bdq', stop)).toBe('allowed');
    });
  }

  it('null is never allowed, under any policy or stop line 0..5', () => {
    for (const policy of ['standard', 'strict', 'bdq'] as MatchPolicy[]) {
      for (let stop = 0; stop <= 5; stop++) {
        expect(statusFor(null, policy, stop)).toBe('manual');
        expect(statusFor(null, policy, stop, true)).toBe('manual');
        expect(statusFor(null, policy, stop, false)).toBe('manual');
      }
    }
  });
});

describe('unreadable and no name through checkPerson: never allowed', () => {
  const index = buildListIndex([{ name: 'Hansen,Anne', address: 'Nørregade 7, 5000 Odense' }]);
  const people = [
    { name: 'Anne Hansen', address: '?' },
    { name: 'Anne Hansen' },
    { address: 'Nørregade 7, 5000 Odense' },
    { name: '', address: 'Vestergade 3, 5000 Odense' },
    {},
  ];
  for (const policy of ['standard', 'strict', 'bdq'] as MatchPolicy[]) {
    for (const stop of [0, 1, 2, 3, 4, 5]) {
      it(`${policy}, stop line ${stop}`, () => {
        for (const person of people) {
          const result = checkPerson(index, person, { policy, stopLevel: stop, locale: 'da' });
          expect(result.status).toBe('manual');
          expect(result.match.level).toBeNull();
          expect(result.stop_level).toBe(stop);
        }
      });
    }
  }
});

describe('checkPerson applies the policy and stop line', () => {
  const index = buildListIndex([{ name: 'Hansen,Anne', address: 'Nørregade 7, 2. th, 5000 Odense' }]);
  const people: Array<[number, object]> = [
    [5, { name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense' }],
    [4, { name: 'Anne Hansen', address: 'Nørregade 7, 1. th, 5000 Odense' }],
    [3, { name: 'Anne Jensen', address: 'Nørregade 7, 2. th, 5000 Odense' }],
    [2, { name: 'Peter Hansen', address: 'Nørregade 7, 2. th, 5000 Odense' }],
    [1, { name: 'Peter Jensen', address: 'Nørregade 7, 2. th, 5000 Odense' }],
    [0, { name: 'Peter Jensen', address: 'Nørregade 9, 2. th, 5000 Odense' }],
  ];
  for (const policy of ['standard', 'strict'] as const) {
    for (const stop of [1, 2, 3, 4, 5]) {
      it(`${policy}, stop line ${stop}`, () => {
        const letters = people.map(([level, person]) => {
          const result = checkPerson(index, person, { policy, stopLevel: stop, locale: 'en' });
          expect(result.match.level).toBe(level);
          return LETTER[result.status];
        });
        // EXPECTED is in level order null, 0..5; people are 5..0.
        expect(letters.reverse().join('')).toBe(EXPECTED[policy][stop].slice(1));
      });
    }
  }
});

describe('matchLabel', () => {
  const codes: MatchCode[] = ['none', 'household', 'surname', 'given_name', 'name_building', 'name_address'];
  it('has a distinct da and en text for every code, null for null', () => {
    for (const locale of ['da', 'en'] as const) {
      const labels = codes.map((code) => matchLabel(code, locale));
      expect(new Set(labels).size).toBe(codes.length);
      for (const label of labels) expect(label).toMatch(/\S/);
    }
    expect(matchLabel('none', 'da')).not.toBe(matchLabel('none', 'en'));
    expect(matchLabel(null, 'da')).toBeNull();
    expect(matchLabel('name_address', 'da', true)).toBe('Samme navn og adresse (tidligere adresse)');
  });
});
