import { describe, expect, it } from 'vitest';
import { normalizeText, parseName } from '../../../services/domain/index.ts';
import { parseAddress } from '../../../services/domain/address.ts';
import { blankCareOfLines } from '../../../services/domain/care-of.ts';
import { nfc, tokenize } from '../../../services/domain/normalize.ts';

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

// The address reader makes a text NFC and blanks its care-of lines only when tokenize's one pass
// says it may be needed (docs/matching.md "Speed of the check path"): a flag that missed a case
// would read such an address as if the line were part of it.
describe('tokenize: the NFC and care-of flags never miss', () => {
  const careOfLines = ['c/o Ida', 'C / O Ida', 'c.o. Ida', 'v/ Ida', 'V / Ida', 'att. Økonomi', 'Attn Ida', 'ATTENTION Ida',
    'hos Jensen', '\u2105 Ida', '\u00a0c/o Ida', ' \tatt Ida', '\u3000hos Ida', '\u2028att Ida'];
  const streets = ['Ridehusgade 49, st. tv', 'Vester Vej 2', 'Attrupvej 3', 'Hovedgaden 4', 'A\u030abyvej 5',
    'Cikorievej 7', 'Havnegade 1', '(c/o) Vej 8'];
  const ends = [',', ';', '\n', '\r\n', ', ', ',\u00a0'];
  const texts: string[] = [];
  for (const careOf of careOfLines) {
    for (const street of streets) {
      for (const end of ends) {
        texts.push(careOf + end + street + ', 5000 Odense C', street + end + careOf + end + '5000 Odense C',
          street + ', 5000 Odense C' + end + careOf);
      }
    }
  }
  // Cut at 40 tokens: the rest was not read, so both flags are set.
  texts.push(Array.from({ length: 45 }, (_, i) => 'Ord' + i).join(' ') + ', c/o Ida, A\u030ase');

  it('careOf is set on every text whose care-of lines blankCareOfLines blanks', () => {
    let blanked = 0;
    for (const text of texts) {
      if (blankCareOfLines(text) === text) continue;
      blanked++;
      expect(tokenize(text).careOf, text).toBe(true);
    }
    expect(blanked).toBeGreaterThan(texts.length / 2);
  });

  it('careOf is not set on plain addresses (a street starting "Att" or "Hos" may set it: blankCareOfLines decides)', () => {
    for (const street of ['Vester Vej 2', 'Hovedgaden 4', 'Cikorievej 7', 'Havnegade 1']) expect(tokenize(street + ', 5000 Odense C').careOf, street).toBe(false);
  });

  it('wide is set on every text NFC changes, and the address reads as its NFC form', () => {
    for (const text of texts) {
      if (nfc(text) !== text) expect(tokenize(text).wide, text).toBe(true);
      expect(parseAddress({ address: text }), text).toEqual(parseAddress({ address: text.normalize('NFC') }));
    }
    expect(parseAddress({ address: 'A\u030abyvej 5, 8000 A\u030arhus C' })?.street).toBe('aabyvej');
    expect(parseAddress({ address: 'Vej 5', postal_code: '8000', city: 'A\u030arhus C' })?.cityWritten).toBe('Århus C');
  });
});
