import { describe, expect, it } from 'vitest';
import { applyPrivateList, checkPerson, createListIndexBuilder } from '../../../services/domain/index.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../../services/domain/types.ts';

/** docs/decisions.md §16: a person on the organisation's private list is blocked, whatever the national result. */
function indexOf(entries: ListEntry[]) {
  const builder = createListIndexBuilder(null);
  for (const entry of entries) builder.add(entry);
  return builder.build();
}

const national = indexOf([{ name: 'Hansen,Anne', address: 'Nørregade 7, 2. th, 5000 Odense' }]);
const privateList = indexOf([
  { name: 'Østergård,Åse', address: 'Vestergade 3, 5000 Odense' },
  { name: 'Hansen,Peter', address: 'Nørregade 7, 2. th, 5000 Odense' },
]);

const privateVersion = { id: '33333333-3333-4333-8333-333333333333', source: 'customer' as const, published_on: '2026-11-01', activated_at: '2026-11-02T08:00:00.000Z' };
function both(person: PersonInput, options: CheckOptions) {
  return applyPrivateList(checkPerson(national, person, options), checkPerson(privateList, person, options), privateVersion);
}
const standard: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'en' };

describe('applyPrivateList', () => {
  it('blocks a person on the private list only, with the private match and its reason', () => {
    const result = both({ name: 'Åse Østergård', address: 'Vestergade 3, 5000 Odense' }, standard);
    expect(result).toMatchObject({ status: 'blocked', reasons: ['name_and_unit'], match: { level: 5, code: 'name_address' } });
    // Found on the private list, not the national one: the result names the version it was found on.
    expect(result.list_version).toEqual(privateVersion);
    expect(checkPerson(national, { name: 'Åse Østergård', address: 'Vestergade 3, 5000 Odense' }, standard).status).toBe('allowed');
  });

  it('blocks whatever the stop line does to the national result, and reports the stronger match', () => {
    // National: level 5 (Anne Hansen herself). Private: surname only (Peter Hansen at her unit), level 2.
    const anne = { name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense' };
    const result = both(anne, { ...standard, stopLevel: 2 });
    expect(result).toMatchObject({ status: 'blocked', match: { level: 5 }, reasons: ['name_and_unit'] });
    // The stronger match is the national one: the result set's version stands.
    expect(result.list_version).toBeUndefined();
    // A stop line above the private level: the private check does not block, the national result stands.
    const karl = { name: 'Karl Østergård', address: 'Vestergade 3, 5000 Odense' };
    expect(both(karl, standard)).toMatchObject({ status: 'blocked', match: { level: 2 }, reasons: ['partial_name'] });
    expect(both(karl, { ...standard, stopLevel: 3 })).toMatchObject({ status: 'allowed', match: { level: 0 } });
    expect(both(karl, { ...standard, stopLevel: 3 }).list_version).toBeUndefined();
  });

  it('leaves the national result alone when the private check does not block (household under standard, unreadable)', () => {
    const household = { name: 'Peter Jensen', address: 'Vestergade 3, 5000 Odense' };
    expect(both(household, standard)).toEqual(checkPerson(national, household, standard));
    const unreadable = { name: 'Åse Østergård', address: '?' };
    expect(both(unreadable, standard)).toMatchObject({ status: 'manual', reasons: ['address_unreadable'] });
    // Under strict a household match blocks, on the private list too.
    expect(both(household, { ...standard, policy: 'strict' })).toMatchObject({ status: 'blocked', reasons: ['household'] });
  });
});
