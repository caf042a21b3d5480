import { describe, expect, it } from 'vitest';
import { buildAddressRegister, buildListIndex, checkPeople, checkPerson, type ListIndex } from '../../../services/domain/index.ts';
import type { RegisterAddress } from '../../../services/domain/address-register.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../../services/domain/types.ts';
import {
  createRng, generateListEntries, generatePeople, generatePeopleOnUnknownStreets, variantOf,
} from '../../../services/synthetic/index.ts';

/**
 * checkPeople checks a batch of rows in phases (check.ts: every row's address read and its
 * building key hashed, then every key looked up, then every row matched; docs/matching.md "Speed
 * of the check path"). Each row's answer must be checkPerson's for that row, in input order, across
 * batch boundaries, for unreadable rows among readable ones, with and without a register.
 */

const OPTIONS: CheckOptions = { policy: 'bdq', stopLevel: 2, locale: 'da' };

function expectSameAsOneByOne(index: ListIndex, people: PersonInput[]): void {
  const batched = checkPeople(index, people, OPTIONS);
  expect(batched).toHaveLength(people.length);
  for (let i = 0; i < people.length; i++) expect(batched[i], `row ${i}`).toEqual(checkPerson(index, people[i], OPTIONS));
}

describe('checkPeople', () => {
  it('answers what checkPerson answers for each row, in order, over many batches', () => {
    const members: ListEntry[] = [];
    let n = 0;
    const index = buildListIndex((function* () {
      for (const entry of generateListEntries(3_000, 'check-people')) {
        if (n++ % 5 === 0) members.push(entry);
        yield entry;
      }
    })());
    const rng = createRng('check-people:variants');
    const unread: PersonInput[] = [
      {}, { name: 'Ida Frølich' }, { address: 'Ridehusgade 49, 5000 Odense C' }, { name: 'Ida', address: '!!' },
      null as unknown as PersonInput, 'text' as unknown as PersonInput,
    ];
    const people: PersonInput[] = [
      ...members.map((entry) => variantOf(entry, rng)), ...generatePeople(400, 'check-people'),
      ...generatePeopleOnUnknownStreets(200, 'check-people'), ...unread,
    ];
    for (let i = people.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [people[i], people[j]] = [people[j], people[i]];
    }
    const found = checkPeople(index, people, OPTIONS).filter((r) => (r.match.level ?? 0) >= 4).length;
    expect(found).toBeGreaterThan(members.length / 2); // the members are found: the rows were matched, not only read
    expectSameAsOneByOne(index, people);
    expectSameAsOneByOne(index, people.slice(0, 1));
    expect(checkPeople(index, [], OPTIONS)).toEqual([]);
  });

  it('answers what checkPerson answers with a register', () => {
    const unitOf = (street: string, houseNumber: string, floor: string | null, door: string | null, postalCode: string, postalName: string,
      addressingName: string | null = null): RegisterAddress => ({
      accessId: `${street}|${houseNumber}|${postalCode}`, street, addressingName, houseNumber, floor, door, postalCode,
      postalName, town: null, kommunekode: null, vejkode: null,
    });
    const register = buildAddressRegister([
      unitOf('Borgmester Christiansens Gade', '45', 'st', 'th', '2450', 'København SV', 'Borgm Christiansensg'),
      unitOf('Ridehusgade', '49', 'st', 'tv', '5000', 'Odense C'),
      unitOf('Åbenråvej', '3', null, null, '6200', 'Aabenraa'),
    ]);
    const index = buildListIndex([
      { name: 'Kjær-Hansen,Vibeke Maja', address: 'Borgm Christiansensg 45, st. th, 2450 København SV' },
      { name: 'Frølich,Ida', address: 'Ridehusgade 49,st. tv', postal_code: '5000', city: 'Odense C' },
      { name: 'Hansen,Ole', address: 'Åbenråvej 3', postal_code: '6200' },
    ], register);
    const people: PersonInput[] = [];
    for (let i = 0; i < 300; i++) {
      people.push(
        { name: 'Vibeke Maja Kjær-Hansen', address: 'Borgmester Christiansens Gade 45, st. th, 2450 København SV' },
        { name: 'Ida Frølich', address: 'Ridehusgade 49, st. tv', city: 'Odense C' },
        { name: 'Ole Hansen', address: 'Abenravej 3, 6200 Aabenraa' },
        { name: 'Preben Hansen', address: 'Ridehusgade 49, 1. th, 5000 Odense C' },
        { name: 'Ole Hansen' },
      );
    }
    expect(checkPeople(index, people.slice(0, 5), OPTIONS).map((r) => r.match.level)).toEqual([5, 5, 5, 0, null]);
    expectSameAsOneByOne(index, people);
  });
});
