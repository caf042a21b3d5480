import { describe, expect, it } from 'vitest';
import { buildListIndex, checkPerson } from '../../../services/domain/index.ts';
import { parseNameWords } from '../../../services/domain/name.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../../services/domain/types.ts';

/**
 * Names as Danes write them (docs/matching.md "Names"): one slip, initials, compound and
 * hyphenated surnames, middle names written as part of the surname, and given names and surnames
 * compared each on their own. The issue's own inputs are among them.
 */

const FLAT = 'Ridehusgade 49, 2. th, 5000 Odense C';
const OTHER_FLAT = 'Ridehusgade 49, 1. tv, 5000 Odense C';
const entries: ListEntry[] = [
  { name: 'Østergaard,Steen Knud', address: FLAT },
  { name: 'Møller-Nielsen,Ida Jette', address: 'Eliasgade 3, st. tv, 2300 København S' },
  { name: 'Holm-Jensen,Anne', address: 'Vibevej 12, 1. th, 2400 København NV' },
  { name: 'Hansen,Bo', address: 'Algade 4, 9000 Aalborg' },
  { name: 'Kjær,Else Marie Bach', address: 'Torvet 9, 1. th, 4000 Roskilde' },
  { name: 'Berg,A', address: 'Havnegade 2, 3. tv, 8000 Aarhus C' },
];
const index = buildListIndex(entries);
const STOP_5: CheckOptions = { policy: 'standard', stopLevel: 5, locale: 'en' };

function check(person: PersonInput, options: CheckOptions = STOP_5) {
  return checkPerson(index, person, options);
}

describe('reading a name into given names, possible middle names and surname words', () => {
  it.each([
    ['Steen Knud Østergaard', ['steen'], ['knud'], ['oestergaard']],
    ['Preben Møller-Nielsen', ['preben'], [], ['moeller', 'nielsen']],
    ['Anne-Marie Holm Jensen', ['anne', 'marie'], ['holm'], ['jensen']],
    ['Møller-Nielsen, Ida Jette', ['ida'], ['jette'], ['moeller', 'nielsen']],
    ['Madonna', [], [], ['madonna']],
  ])('%s', (name, given, middle, surname) => {
    const words = parseNameWords({ name })!;
    expect(words.words.slice(0, words.middleFrom)).toEqual(given);
    expect(words.words.slice(words.middleFrom, words.surnameFrom)).toEqual(middle);
    expect(words.words.slice(words.surnameFrom)).toEqual(surname);
  });

  it('hyphens are read in the NFC text (positions of a decomposed name are those of its NFC form)', () => {
    const words = parseNameWords({ name: 'Åse Møller-Ågård'.normalize('NFD') })!;
    expect(words.words.slice(words.surnameFrom)).toEqual(['moeller', 'aagaard']);
    expect(words.words.slice(0, words.middleFrom)).toEqual(['aase']);
  });

  it('first_name and last_name: the first given name, the rest possible middle names, every last-name word a surname', () => {
    const words = parseNameWords({ first_name: 'Else Marie', last_name: 'Bach Kjær' })!;
    expect(words).toMatchObject({ words: ['else', 'marie', 'bach', 'kjaer'], middleFrom: 1, surnameFrom: 2 });
  });
});

describe('one slip in a name of five or more letters', () => {
  it.each([
    ['transposition', 'Steen Knud Øtsergaard'],
    ['deletion', 'Steen Knud Østrgaard'],
    ['insertion', 'Steen Knud Østergaarrd'],
    ['substitution', 'Steen Knud Østergaerd'],
    ['slip in the given name', 'Sten Østergaard'],
  ])('%s: level 5 at the member\'s own flat, blocked at stop 5, approximate', (_kind, name) => {
    const result = check({ name, address: FLAT });
    expect(result.match).toMatchObject({ level: 5, code: 'name_address', approximate: true });
    expect(result.match.label).toBe('Same name and address (name differs: a slip or an initial)');
    expect(result.status).toBe('blocked');
  });

  it('the Danish label says so too', () => {
    expect(check({ name: 'Steen Knud Øtsergaard', address: FLAT }, { ...STOP_5, locale: 'da' }).match.label)
      .toBe('Samme navn og adresse (navnet afviger: stavefejl eller forbogstav)');
  });

  it('an exact name is not approximate', () => {
    expect(check({ name: 'Steen Knud Østergaard', address: FLAT }).match).toMatchObject({ level: 5, approximate: false });
    expect(check({ name: 'Steen Østergaard', address: OTHER_FLAT }).match).toMatchObject({ level: 4, approximate: false });
  });

  it('a slip or an initial is looked for at the person\'s own flat only: elsewhere in the building both names must be exact', () => {
    expect(check({ name: 'Steen Øtsergaard', address: OTHER_FLAT }).match.level).toBe(0);
    expect(check({ name: 'S. Østergaard', address: OTHER_FLAT }).match.level).toBe(0);
  });

  it('two slips, or a slip in a name of under five letters, do not agree', () => {
    expect(check({ name: 'Steen Øtsregaard', address: FLAT }).match.level).toBe(3);
    expect(check({ name: 'Bi Hansen', address: 'Algade 4, 9000 Aalborg' }).match).toMatchObject({ level: 2, approximate: false });
    expect(check({ name: 'Bo Hanson', address: 'Algade 4, 9000 Aalborg' }).match).toMatchObject({ level: 5, approximate: true });
  });

});

describe('initials', () => {
  it('"S. Østergaard" and "I. Møller-Nielsen" agree on the given name alike: level 5, approximate', () => {
    const steen = check({ name: 'S. Østergaard', address: FLAT });
    const ida = check({ name: 'I. Møller-Nielsen', address: 'Eliasgade 3, st. tv, 2300 København S' });
    for (const result of [steen, ida]) {
      expect(result.match).toMatchObject({ level: 5, approximate: true });
      expect(result.status).toBe('blocked');
    }
  });

  it('an initial of a middle name agrees too; a wrong initial does not', () => {
    expect(check({ name: 'K. Østergaard', address: FLAT }).match).toMatchObject({ level: 5, approximate: true });
    expect(check({ name: 'P. Østergaard', address: FLAT }).match).toMatchObject({ level: 2, approximate: false });
  });

  it('"A. Holm-Jensen", and a list that writes the initial', () => {
    expect(check({ name: 'A. Holm-Jensen', address: 'Vibevej 12, 1. th, 2400 København NV' }).match)
      .toMatchObject({ level: 5, approximate: true });
    expect(check({ name: 'Anders Berg', address: 'Havnegade 2, 3. tv, 8000 Aarhus C' }).match)
      .toMatchObject({ level: 5, approximate: true });
  });
});

describe('given names and surnames each on their own', () => {
  const ELIAS = 'Eliasgade 3, st. tv, 2300 København S';

  it('"Preben Møller-Nielsen" at the flat of "Møller-Nielsen, Ida Jette" agrees only on the surname: level 2', () => {
    const result = check({ name: 'Preben Møller-Nielsen', address: ELIAS });
    expect(result.match).toMatchObject({ level: 2, code: 'surname', approximate: false });
    expect(result.status).toBe('allowed');
  });

  it('the same without the hyphen, and with first_name/last_name', () => {
    expect(check({ name: 'Preben Møller Nielsen', address: ELIAS }).match.level).toBe(2);
    expect(check({ first_name: 'Preben', last_name: 'Møller-Nielsen', address: ELIAS }).match.level).toBe(2);
  });

  it('the member herself however the surname is written', () => {
    for (const name of ['Ida Møller-Nielsen', 'Ida Møller Nielsen', 'Ida Nielsen', 'Ida Møller', 'Jette Møller-Nielsen']) {
      expect(check({ name, address: ELIAS }).match, name).toMatchObject({ level: 5, approximate: false });
    }
  });
});

describe('compound and hyphenated surnames, middle names written as part of the surname', () => {
  const VIBEVEJ = 'Vibevej 12, 1. th, 2400 København NV';
  const TORVET = 'Torvet 9, 1. th, 4000 Roskilde';

  it.each(['Anne Holm-Jensen', 'Anne Holm Jensen', 'Anne Jensen', 'Anne Holm'])('%s is "Holm-Jensen, Anne"', (name) => {
    expect(check({ name, address: VIBEVEJ }).match).toMatchObject({ level: 5, approximate: false });
  });

  it.each(['Else Bach Kjær', 'Else Bach-Kjær', 'Else Marie Bach', 'Else Kjær', 'Marie Bach'])(
    '%s is "Kjær, Else Marie Bach" (Bach a middle name)', (name) => {
      expect(check({ name, address: TORVET }).match).toMatchObject({ level: 5, approximate: false });
    });

  it('someone else of the household with the middle name as surname agrees on the surname only', () => {
    expect(check({ name: 'Jens Bach', address: TORVET }).match.level).toBe(2);
  });
});
