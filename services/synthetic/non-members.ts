import type { PersonInput } from '../domain/types.ts';
import { STREET_NAMES } from './danish-data.ts';
import { districtStreetNames, generateSyntheticPeople, toListEntry } from './generate.ts';
import { createRng } from './rng.ts';
import { variantOf } from './variants.ts';

/**
 * `count` people who are NOT list members, written as customers write people (random variation
 * kinds). Drawn from a seed salted apart from generateListEntries(…, seed), so the same seed
 * number gives a list and a disjoint set of people living in the same synthetic country.
 */
export function generatePeople(count: number, seed: number | string): PersonInput[] {
  const rng = createRng(`${seed}:people-variants`);
  const people: PersonInput[] = [];
  let i = 0;
  for (const p of generateSyntheticPeople(count, `${seed}:people`)) {
    people.push({ id: `p${++i}`, ...variantOf(toListEntry(p, p.current, false), rng) });
  }
  return people;
}

/**
 * Like generatePeople, but each person lives on a street of the synthetic names that their postal
 * district does not have: an address no list entry shares, so the list index never finds the
 * building and every row takes the street-correction path (the worst case for its cost, and the
 * place where a wrong correction would show). No kvhx is sent.
 */
export function generatePeopleOnUnknownStreets(count: number, seed: number | string): PersonInput[] {
  const rng = createRng(`${seed}:unknown-street-variants`);
  const people: PersonInput[] = [];
  let i = 0;
  for (const p of generateSyntheticPeople(count, `${seed}:unknown-street-people`)) {
    const own = districtStreetNames(p.current.postal_code);
    let street = rng.pick(STREET_NAMES);
    while (own.has(street)) street = rng.pick(STREET_NAMES);
    const entry = toListEntry(p, { ...p.current, street }, false);
    people.push({ id: `u${++i}`, ...variantOf({ ...entry, kvhx: undefined }, rng) });
  }
  return people;
}
