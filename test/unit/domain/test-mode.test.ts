import { describe, expect, it } from 'vitest';
import {
  TEST_LIST_VERSION, isTestProtectedCvr, testModeCheck, testModePhoneLookup,
} from '../../../services/domain/index.ts';
import type { CheckOptions, MatchPolicy } from '../../../services/domain/types.ts';

const ADDRESS = 'Testvej 1, 2. tv, 1000 København K';
const STANDARD: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'en' };

describe('testModeCheck (docs/decisions.md §3)', () => {
  it.each([
    ['Robinson', 5, 'name_address', ['name_and_unit'], 'unit', 'blocked'],
    ['Bygning', 4, 'name_building', ['name_and_address'], 'building', 'blocked'],
    ['Fornavn', 3, 'given_name', ['partial_name'], 'unit', 'blocked'],
    ['Efternavn', 2, 'surname', ['partial_name'], 'unit', 'blocked'],
    ['Husstand', 1, 'household', ['household'], 'unit', 'manual'],
    ['Jensen', 0, 'none', [], 'none', 'allowed'],
  ])('surname %s → level %i', (surname, level, code, reasons, deprecated, status) => {
    for (const person of [
      { id: 'x', name: `Anne ${surname}`, address: ADDRESS },
      { id: 'x', first_name: 'Anne', last_name: surname.toUpperCase(), address: ADDRESS },
      { id: 'x', name: `${surname}, Anne`, street: 'Testvej', house_number: '1', postal_code: '1000' },
    ]) {
      const result = testModeCheck(person, STANDARD);
      expect(result.match).toMatchObject({ level, code, previous_address: false, approximate: false });
      expect(result.match.label).toMatch(/\S/);
      expect(result.reasons).toEqual(reasons);
      expect(result.level).toBe(deprecated);
      expect(result.status).toBe(status);
      expect(result.id).toBe('x');
      expect(result.phone_lookup).toBeNull();
    }
  });

  it('address "?" or unparseable → null / address_unreadable, manual', () => {
    for (const address of ['?', ' ? ', 'Testvej']) {
      const result = testModeCheck({ name: 'Anne Robinson', address }, STANDARD);
      expect(result.match).toEqual({ level: null, code: null, label: null, on: [], previous_address: false, approximate: false });
      expect(result.reasons).toEqual(['address_unreadable']);
      expect(result.status).toBe('manual');
    }
  });

  it('no name → null / no_name, manual', () => {
    const result = testModeCheck({ address: ADDRESS }, STANDARD);
    expect(result.match.level).toBeNull();
    expect(result.reasons).toEqual(['no_name']);
    expect(result.status).toBe('manual');
  });

  it('status follows §2 for each policy and stop line', () => {
    const at = (surname: string, policy: MatchPolicy, stopLevel: number) =>
      testModeCheck({ name: `Anne ${surname}`, address: ADDRESS }, { policy, stopLevel, locale: 'da' });
    expect(at('Fornavn', 'standard', 4).status).toBe('allowed');
    expect(at('Bygning', 'standard', 4).status).toBe('blocked');
    expect(at('Husstand', 'standard', 2).status).toBe('allowed');
    expect(at('Husstand', 'strict', 5).status).toBe('blocked');
    expect(at('Jensen', 'strict', 5).status).toBe('allowed');
    expect(at('Husstand', 'bdq', 5).status).toBe('blocked');
    expect(at('Jensen', 'bdq', 1).status).toBe('allowed');
    expect(at('Jensen', 'bdq', 1).stop_level).toBe(1);
    expect(at('Robinson', 'standard', 5).stop_level).toBe(5);
  });

  it('the fixed test list version', () => {
    expect(TEST_LIST_VERSION).toEqual({ id: '00000000-0000-4000-8000-000000000001', source: 'cpr', published_on: '2026-01-01' });
  });
});

describe('testModePhoneLookup', () => {
  it.each([
    ['+45 12 34 00 00', 'not_found'],
    ['12340000', 'not_found'],
    ['+45 1234 1111', 'unlisted'],
    ['12345678', 'found'],
  ])('%s → %s', (phone, outcome) => {
    const lookup = testModePhoneLookup(phone);
    expect(lookup.outcome).toBe(outcome);
    if (outcome === 'found') {
      expect(lookup.name).toMatch(/\S+ \S+/);
      expect(lookup.address).toMatch(/\d{4}/);
    } else {
      expect(lookup.name).toBeUndefined();
    }
  });
});

describe('isTestProtectedCvr', () => {
  it.each([['00000000', true], ['00000099', true], ['0000 0042', true], ['00000100', false], ['12345678', false],
    ['0000009', false], ['', false]])('%j → %s', (cvr, protectedCompany) => {
    expect(isTestProtectedCvr(cvr)).toBe(protectedCompany);
  });
});
