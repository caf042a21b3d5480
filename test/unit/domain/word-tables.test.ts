import { describe, expect, it } from 'vitest';
import { buildListIndex, checkPerson, parseAddress } from '../../../services/domain/index.ts';
import { testModeCheck } from '../../../services/domain/test-mode.ts';
import type { CheckOptions } from '../../../services/domain/types.ts';

/**
 * The word tables of addresses and test mode are Maps, not plain objects
 * (docs/matching.md "Word tables"): a plain object answers a look-up of "constructor" with
 * Object.prototype's constructor, so "Testvej 5, Constructor, 1000 København K" read a function as its floor and
 * parseAddress threw (a 500 for client input).
 */

const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };

/** Object.prototype's property names as a token can spell them: folded, letters only. */
const PROTOTYPE_WORDS = [...new Set(
  Object.getOwnPropertyNames(Object.prototype).map((name) => name.toLowerCase().replace(/[^a-z]/g, '')),
)].filter((word) => word !== '');

describe('words that name Object.prototype properties are ordinary words', () => {
  it('the list of such words holds "constructor" (the one a folded token can spell)', () => {
    expect(PROTOTYPE_WORDS).toContain('constructor');
  });

  it.each(PROTOTYPE_WORDS)('"%s" in the unit part is a town word: no floor, no door', (word) => {
    for (const address of [`Testvej 5, ${word}, 1000 København K`, `Testvej 5 ${word}, 1000 København K`]) {
      const parsed = parseAddress({ address });
      expect(parsed, address).not.toBeNull();
      expect(parsed!.floor, address).toBeNull();
      expect(parsed!.door, address).toBeNull();
      expect(parsed!.unitKey, address).toBe('');
      expect(parsed!.town, address).toBe(word);
      expect(parsed!.buildingKey, address).toBe('testvej|5|1000');
    }
  });

  it.each(PROTOTYPE_WORDS)('"%s" after a floor is no door, as any other town word', (word) => {
    const parsed = parseAddress({ address: `Testvej 5, 2. tv, ${word}, 1000 København K` });
    expect(parsed).toMatchObject({ floor: '2', door: 'tv', unitKey: '2|tv', town: word });
    const fields = parseAddress({ street: 'Testvej', house_number: '5', floor: word, door: word, postal_code: '1000' });
    expect(fields).toMatchObject({ floor: null, door: null, unitKey: '' });
  });

  it.each(PROTOTYPE_WORDS)('"%s" before a possessive s is a street word, not a roman numeral', (word) => {
    const parsed = parseAddress({ address: `Frederik ${word}'s Vej 5, 1000 København K` });
    expect(parsed!.street).toBe(`frederik ${word} s vej`);
    expect(parsed!.buildingKey).toBe(`frederik${word}svej|5|1000`);
  });

  it.each(PROTOTYPE_WORDS)('a list member whose address carries "%s" is found at level 5', (word) => {
    const entry = { name: 'Ida Hansen', address: `Testvej 5, ${word}, 1000 København K` };
    const result = checkPerson(buildListIndex([entry]), entry, OPTIONS);
    expect(result.match).toMatchObject({ level: 5, code: 'name_address' });
    expect(result.status).toBe('blocked');
  });

  it.each(PROTOTYPE_WORDS)('test mode: the surname "%s" is level 0, as any surname not in §3', (word) => {
    const result = testModeCheck({ name: `Ida ${word}`, address: 'Testvej 1, 1000 København K' }, OPTIONS);
    expect(result.match).toMatchObject({ level: 0, code: 'none' });
    expect(result.status).toBe('allowed');
  });
});
