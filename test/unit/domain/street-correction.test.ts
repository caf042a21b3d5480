import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildListIndex, checkPerson } from '../../../services/domain/index.ts';
import { skeleton } from '../../../services/domain/normalize.ts';
import { boundedEditDistance } from '../../../services/domain/edit-distance.ts';
import {
  closestStreets, createStreetIndexBuilder, lettersOf, maxStreetDistance,
} from '../../../services/domain/street-index.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../../services/domain/types.ts';

/** The fuzzy street fallback (docs/decisions.md §13 "corrected") and street names with numbers. */

const STANDARD: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'en' };

const entries: ListEntry[] = [
  { name: 'Hansen,Anne', address: 'Vestergade 12, 1. tv', postal_code: '1610', city: 'København V' },
  { name: 'Olsen,Ole', address: 'Nørregade 7', postal_code: '5000', city: 'Odense C' },
  { name: 'Berg,Lise', address: 'Søndergade 3, st. th', postal_code: '8000', city: 'Aarhus C' },
  { name: 'Dam,Eva', address: 'Gammel Kongevej 40', postal_code: '1850', city: 'Frederiksberg C' },
  { name: 'Dam,Eva', address: 'Frederiksberg Allé 40', postal_code: '1850', city: 'Frederiksberg C' },
  // Two streets one letter apart in one postal code, and a third close to both.
  { name: 'Lund,Karen', address: 'Havnevej 3', postal_code: '4000', city: 'Roskilde' },
  { name: 'Holm,Jens', address: 'Havevej 5', postal_code: '4000', city: 'Roskilde' },
  { name: 'Friis,Bo', address: 'Rosevej 4', postal_code: '4000', city: 'Roskilde' },
  { name: 'Friis,Tove', address: 'Mosevej 4', postal_code: '4000', city: 'Roskilde' },
  { name: 'Bach,Per', address: 'Parkvej 9', postal_code: '4000', city: 'Roskilde' },
  { name: 'Bach,Ida', address: 'Markvej 2', postal_code: '4000', city: 'Roskilde' },
  { name: 'Juul,Finn', address: "Christian IX's Gade 3, 2. th", postal_code: '1111', city: 'København K' },
  { name: 'Juul,Ane', address: "Kong Christian X's Allé 12", postal_code: '2900', city: 'Hellerup' },
  { name: 'Krogh,Mads', address: 'Gl. Kongevej 12A, 3. tv', postal_code: '1610', city: 'København V' },
];
const index = buildListIndex(entries);

function check(person: PersonInput, options: CheckOptions = STANDARD) {
  return checkPerson(index, person, options);
}

/** Optimal string alignment distance, the whole table: the reference for the banded version. */
function referenceDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

describe('edit distance', () => {
  it('the banded, bounded distance agrees with the whole table', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'e', 'o', 'ø', 'v', 'j'), maxLength: 14 });
    fc.assert(fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, bound) => {
      expect(boundedEditDistance(a, b, bound)).toBe(Math.min(referenceDistance(a, b), bound + 1));
    }), { numRuns: 3000 });
  });

  it.each([
    ['vestergade', 'vestergade', 0],
    ['vestergdae', 'vestergade', 1], // swapped
    ['vestrgade', 'vestergade', 1], // dropped
    ['vesterrgade', 'vestergade', 1], // doubled
    ['vestregdae', 'vestergade', 2],
    ['havnevej', 'havevej', 1],
    ['abc', 'cba', 2],
  ])('%s ~ %s = %i', (a, b, d) => {
    expect(boundedEditDistance(a, b, 3)).toBe(d);
    expect(boundedEditDistance(b, a, 3)).toBe(d);
  });

  it('stops at the bound', () => {
    expect(boundedEditDistance('vestergade', 'oestergade', 0)).toBe(1);
    expect(boundedEditDistance('kongevej', 'vesterbrogade', 2)).toBe(3);
  });

  it('counts a Danish letter as one letter', () => {
    expect(lettersOf('noerregade')).toBe('nørregade');
    expect(lettersOf('aabenraavej')).toBe('åbenråvej');
    expect(lettersOf('vestergade')).toBe('vestergade');
  });

  it('accepts 0 edits under 4 letters, 1 up to 14, 2 from 15', () => {
    expect([3, 4, 14, 15].map(maxStreetDistance)).toEqual([0, 1, 1, 2]);
  });
});

describe('closestStreets', () => {
  /** The definition, street by street and spelling by spelling, without any of the shortcuts. */
  function bruteForce(streets: string[], input: string): string[] {
    if (streets.some((street) => skeleton(street) === skeleton(input))) return [];
    const spellings = (key: string) => [lettersOf(key), key, skeleton(key)];
    let best = Infinity;
    let found: string[] = [];
    for (const street of new Map(streets.map((street) => [skeleton(street), street])).values()) {
      const bound = maxStreetDistance(Math.min(lettersOf(input).length, lettersOf(street).length));
      const d = Math.min(...spellings(input).map((a, k) => boundedEditDistance(a, spellings(street)[k], bound)));
      if (d > bound || d > best) continue;
      if (d < best) found = [];
      best = d;
      found.push(skeleton(street));
    }
    return found.sort();
  }

  it('finds exactly the closest streets within the distance, as the definition does', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'e', 'o', 'r', 'v', 'j', 'g', 'n'), minLength: 2, maxLength: 16 });
    // The input is often one or two slips from a street, so that there is something to find.
    const slip = (w: string, at: number, kind: number) =>
      kind === 0 ? w.slice(0, at) + w.slice(at + 1) : kind === 1 ? w.slice(0, at) + w[at] + w.slice(at) : w.slice(0, at) + (w[at + 1] ?? '') + w[at] + w.slice(at + 2);
    const near = fc.tuple(fc.array(word, { minLength: 1, maxLength: 12 }), fc.nat(), fc.nat(15), fc.nat(2), fc.nat(15), fc.nat(3))
      .map(([streets, which, at, kind, at2, kind2]) => {
        const once = slip(streets[which % streets.length], at % 16, kind);
        return [streets, kind2 === 3 ? once : slip(once, at2, kind2)] as const;
      });
    const arbitrary = fc.tuple(fc.array(word, { minLength: 1, maxLength: 12 }), word);
    fc.assert(fc.property(fc.oneof(near, arbitrary), ([streets, input]) => {
      const builder = createStreetIndexBuilder();
      for (const street of streets) builder.add(street, street, '1000');
      builder.add('andenvej', 'Andenvej', '2000'); // another postal code is never a candidate
      const index = builder.build();
      const into: number[] = [];
      const count = closestStreets(index, input, '1000', into);
      expect(into.slice(0, count).map((id) => index.keys[id]).sort()).toEqual(bruteForce(streets, input));
    }), { numRuns: 3000 });
  });
});

describe('a misspelt street is corrected to the list street (§13 corrected)', () => {
  it.each([
    'Vestergdae 12, 1. tv, 1610 København V',
    'Vestrgade 12, 1. tv, 1610 København V',
    'Vesterrgade 12, 1. tv, 1610 København V',
    'VESTERGDAE 12 1 TV 1610',
  ])('%j is level 5, as the exact spelling', (address) => {
    const result = check({ name: 'Anne Hansen', address });
    expect(result.match).toMatchObject({ level: 5, code: 'name_address' });
    expect(result.status).toBe('blocked');
    expect(result.address).toMatchObject({
      street: 'Vestergade', house_number: '12', floor: '1', door: 'tv', postal_code: '1610', confidence: 'corrected',
    });
    expect(result.address?.formatted).toMatch(/^Vestergade 12, 1\. tv, 1610/);
  });

  it('keeps the input as written and names the street found', () => {
    const result = check({ name: 'Ole Olsen', address: 'Nørregde 7, 5000 Odense C' });
    expect(result.match.level).toBe(5);
    expect(result.address).toMatchObject({
      input: 'Nørregde 7, 5000 Odense C', street: 'Nørregade', formatted: 'Nørregade 7, 5000 Odense C',
      confidence: 'corrected',
    });
  });

  it('sees through a slip on a Danish letter, however the letter is written', () => {
    for (const street of ['Sndergade', 'Sødnergade', 'Soendergde', 'Sondergde', 'Sønderagde']) {
      const result = check({ name: 'Lise Berg', address: `${street} 3, st. th`, postal_code: '8000' });
      expect(result.match.level, street).toBe(5);
      expect(result.address?.confidence, street).toBe('corrected');
    }
    // "Søndre"/"Sønder" are one word class of the street key ("Sdr." is either, docs/matching.md
    // "Addresses"): found as the same street, nothing to correct.
    expect(check({ name: 'Lise Berg', address: 'Søndregade 3, st. th', postal_code: '8000' }).match.level).toBe(5);
  });

  it('allows two slips in a long street name, one in a shorter', () => {
    expect(check({ name: 'Eva Dam', address: 'Frederiksbrg Allée 40, 1850' }).match.level).toBe(5);
    expect(check({ name: 'Eva Dam', address: 'Gamel Kongvej 40, 1850' }).match.level).toBe(0);
    expect(check({ name: 'Ole Olsen', address: 'Nøregde 7, 5000' }).match.level).toBe(0);
  });

  it('other units and household levels follow as for an exact address; bdq sees the building', () => {
    expect(check({ name: 'Anne Hansen', address: 'Vestergdae 12, 2. th, 1610' }).match.level).toBe(4);
    expect(check({ name: 'Bo Bak', address: 'Vestergdae 12, 1. tv, 1610' }).match.level).toBe(1);
    const bdq = check({ name: 'Bo Bak', address: 'Vestergdae 12, 3. th, 1610' }, { ...STANDARD, policy: 'bdq' });
    expect(bdq).toMatchObject({ status: 'blocked', reasons: ['household'] });
  });

  it('needs the same house number and postal code', () => {
    for (const address of ['Vestergdae 14, 1. tv, 1610', 'Vestergdae 12, 1. tv, 1620', 'Vestergdae 12B, 1. tv, 1610']) {
      const result = check({ name: 'Anne Hansen', address });
      expect(result.match.level, address).toBe(0);
      expect(result.address?.confidence, address).toBe('unresolved');
    }
  });

  it('never corrects a street the list knows in that postal code', () => {
    // "Havevej" is a list street of 4000: Havevej 3 is not Havnevej 3.
    const result = check({ name: 'Karen Lund', address: 'Havevej 3, 4000 Roskilde' });
    expect(result.match.level).toBe(0);
    expect(result.address?.confidence).toBe('unresolved');
  });

  it('a tie of closest streets is settled by the house number, else nothing is corrected', () => {
    // "Nosevej" is one letter from Rosevej and from Mosevej, both with an entry at number 4.
    expect(check({ name: 'Bo Friis', address: 'Nosevej 4, 4000' }).match.level).toBe(0);
    // "Narkvej" is one letter from Parkvej and Markvej; only Parkvej has number 9.
    const settled = check({ name: 'Per Bach', address: 'Narkvej 9, 4000' });
    expect(settled.match.level).toBe(5);
    expect(settled.address?.street).toBe('Parkvej');
  });

  it('an exact address is not marked corrected', () => {
    expect(check({ name: 'Anne Hansen', address: 'Vestergade 12, 1. tv, 1610' }).address?.confidence).toBe('unresolved');
  });
});

describe('street names with numbers and the postal-code-first form match the list', () => {
  it.each([
    ['Finn Juul', 'Christian 9.s Gade 3, 2. th, 1111 København K'],
    ['Finn Juul', "Chr. IX's Gade 3, 2. th, 1111"],
    ['Ane Juul', 'Kong Christian 10.s Allé 12, 2900 Hellerup'],
    ['Ane Juul', "Kong Christian X's Alle 12, 2900"],
    ['Mads Krogh', '1610 København V, Gammel Kongevej 12A, 3. tv'],
  ])('%s at %j is level 5', (name, address) => {
    const result = check({ name, address });
    expect(result.match.level).toBe(5);
    expect(result.address?.confidence).toBe('unresolved');
  });
});
