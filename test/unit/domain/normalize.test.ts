import { describe, expect, it } from 'vitest';
import { normalizeText, parseName } from '../../../services/domain/index.ts';

describe('normalizeText (docs/decisions.md §1)', () => {
  it.each([
    ['Søren', 'soeren'],
    ['Soeren', 'soeren'],
    ['Åbenrå', 'aabenraa'],
    ['Aabenraa', 'aabenraa'],
    ['ÆBLE', 'aeble'],
    ['René', 'rene'],
    ['Jörgensen', 'joergensen'],
    ['  Gl.   Kongevej,\t12A  ', 'gl kongevej 12a'],
    ['Hansen,Anne', 'hansen anne'],
    ['a--b__c', 'a b c'],
    ['', ''],
    ['...', ''],
    ['Çığ Łódź', 'cig lodz'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  it('treats both Danish spellings alike', () => {
    expect(normalizeText('Åbenrå')).toBe(normalizeText('Aabenraa'));
    expect(normalizeText('Søren Kærgård')).toBe(normalizeText('Soeren Kaergaard'));
  });

  it('keeps letters of other scripts', () => {
    expect(normalizeText('Ωμέγα 東京')).toBe('ωμεγα 東京');
  });
});

describe('parseName (docs/decisions.md §1)', () => {
  it.each([
    [{ name: 'Anne Hansen' }, ['anne'], 'hansen'],
    [{ name: 'Anne Marie Hansen' }, ['anne', 'marie'], 'hansen'],
    [{ name: 'Hansen, Anne' }, ['anne'], 'hansen'],
    [{ name: 'Hansen,Anne Marie' }, ['anne', 'marie'], 'hansen'],
    [{ name: 'Møller Hansen,Anne' }, ['anne', 'moeller'], 'hansen'],
    [{ name: 'Anne Møller-Hansen' }, ['anne', 'moeller'], 'hansen'],
    [{ first_name: 'Anne', last_name: 'Hansen' }, ['anne'], 'hansen'],
    [{ first_name: 'Anne Marie', last_name: 'Møller Hansen' }, ['anne', 'marie', 'moeller'], 'hansen'],
    [{ first_name: 'Søren', last_name: 'KIERKEGAARD' }, ['soeren'], 'kierkegaard'],
    [{ name: 'Madonna' }, [], 'madonna'],
    [{ first_name: 'Anne' }, ['anne'], ''],
    [{ first_name: 'Anne', name: 'Anne Hansen' }, ['anne'], 'hansen'],
    [{ name: ', Anne Hansen' }, ['anne'], 'hansen'],
  ])('%j', (person, given, surname) => {
    expect(parseName(person)).toEqual({ given, surname });
  });

  it('prefers last_name/first_name over name', () => {
    expect(parseName({ name: 'Peter Jensen', first_name: 'Anne', last_name: 'Hansen' }))
      .toEqual({ given: ['anne'], surname: 'hansen' });
  });

  it.each([[{}], [{ name: '' }], [{ name: ' , ' }], [{ first_name: '', last_name: '...' }], [{ name: '—' }]])(
    'no name in %j', (person) => {
      expect(parseName(person)).toBeNull();
    });

  it('"Søren" = "Soeren"', () => {
    expect(parseName({ name: 'Søren Sørensen' })).toEqual(parseName({ name: 'Soeren Soerensen' }));
  });
});
