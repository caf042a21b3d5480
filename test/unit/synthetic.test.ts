import { describe, expect, it } from 'vitest';
import { formatKvhx } from '../../services/domain/kvhx.ts';
import { parseCprFile } from '../../services/registers/lists/cpr-format.ts';
import type { ListEntry } from '../../services/domain/types.ts';
import {
  BEYOND_CONTRACT_KINDS,
  VARIATION_KINDS,
  createRng,
  generateCprFile,
  generateListEntries,
  generatePeople,
  generateSyntheticPeople,
  variantOf,
  variationApplies,
} from '../../services/synthetic/index.ts';
import { STREET_NAMES } from '../../services/synthetic/danish-data.ts';

const take = (count: number, seed: number | string) => [...generateListEntries(count, seed)];

describe('createRng', () => {
  it('is deterministic per seed and spreads over [0, 1)', () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const xs = Array.from({ length: 1000 }, () => a.next());
    expect(Array.from({ length: 1000 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 1000 }, () => c.next())).not.toEqual(xs);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });
});

describe('generateListEntries', () => {
  const entries = take(20_000, 1);

  it('gives exactly `count` entries, the same for the same seed, other ones for another seed', () => {
    expect(entries).toHaveLength(20_000);
    expect(take(500, 1)).toEqual(entries.slice(0, 500));
    expect(take(500, 2)).not.toEqual(entries.slice(0, 500));
  });

  it('gives about 10% of people a previous address, right after the current one, same name', () => {
    const people = [...generateSyntheticPeople(10_000, 1)];
    const withPrevious = people.filter((p) => p.previous !== null).length / people.length;
    expect(withPrevious).toBeGreaterThan(0.08);
    expect(withPrevious).toBeLessThan(0.12);
    entries.forEach((e, i) => {
      if (e.previous) {
        expect(entries[i - 1].previous).toBe(false);
        expect(entries[i - 1].name).toBe(e.name);
        expect(entries[i - 1].address).not.toBe(e.address);
      }
    });
  });

  it('looks Danish: æ/ø/å and aa names, Gammel/Sankt/Allé streets, house letters, floors and doors', () => {
    const text = (pick: (e: ListEntry) => string | undefined) => entries.map(pick).join('\n');
    const names = text((e) => e.name);
    const addresses = text((e) => e.address);
    expect(names).toMatch(/ø/);
    expect(names).toMatch(/æ/);
    expect(names).toMatch(/Å|å/);
    expect(names).toMatch(/Aa/);
    expect(names).toMatch(/^[^,\n]+ [^,\n]+,/m); // a double surname
    expect(addresses).toMatch(/^Gammel /m);
    expect(addresses).toMatch(/^Sankt /m);
    expect(addresses).toMatch(/ Allé \d/);
    expect(addresses).toMatch(/ \d+[A-D](,|$)/m);
    expect(addresses).toMatch(/, st\. (tv|th|mf)$/m);
    expect(addresses).toMatch(/, \d\. \d$/m);
    expect(text((e) => e.city)).toMatch(/København Ø/);
    for (const e of entries) expect(e.postal_code).toMatch(/^\d{4}$/);
  });

  it('carries the KVHX of its address parts, and two people can share a building', () => {
    for (const e of entries.slice(0, 2000)) {
      const m = /^(.+?) (\d+)([A-Z]?)(?:, (kl|st|\d)\. (\S+))?$/.exec(e.address!)!;
      expect(m).not.toBeNull();
      expect(e.kvhx).toHaveLength(19);
      expect(e.kvhx!.slice(8)).toBe(formatKvhx({ kommunekode: '0', vejkode: '0', husnummer: m[2] + m[3], etage: m[4] ?? '', door: m[5] ?? '' }).slice(8));
    }
    const buildings = new Set(entries.map((e) => e.kvhx!.slice(0, 12)));
    expect(buildings.size).toBeLessThan(entries.length);
  });

  it('fits the CPR file: the file parses back to exactly the same entries', async () => {
    expect(Math.max(...STREET_NAMES.map((s) => s.length))).toBeLessThanOrEqual(22);
    const file = generateCprFile(20_000, 1);
    const parsed: ListEntry[] = [];
    async function* chunks() {
      for (let i = 0; i < file.length; i += 4096) yield file.subarray(i, i + 4096);
    }
    for await (const record of parseCprFile(chunks())) if (record.type === 'entry') parsed.push(record.entry);
    expect(parsed).toEqual(entries);
  });
});

describe('variantOf', () => {
  const entries = take(3000, 'variants');
  const sample = (kind: (typeof VARIATION_KINDS)[number] | (typeof BEYOND_CONTRACT_KINDS)[number]) =>
    entries.filter((e) => variationApplies(e, kind)).slice(0, 50);

  it('is deterministic for a given rng state', () => {
    const a = entries.slice(0, 200).map((e) => variantOf(e, createRng('x')));
    const b = entries.slice(0, 200).map((e) => variantOf(e, createRng('x')));
    expect(a).toEqual(b);
  });

  it('exact: the list entry in natural name order, address as one string', () => {
    const entry = { name: 'Due Hansen,Anne Marie', address: 'Gammel Kongevej 12A, 1. tv', postal_code: '1850', city: 'Frederiksberg C', kvhx: '01471234_12A__1__tv', previous: false };
    expect(variantOf(entry, createRng(1), 'exact')).toEqual({
      name: 'Anne Marie Due Hansen',
      address: 'Gammel Kongevej 12A, 1. tv',
      postal_code: '1850',
      city: 'Frederiksberg C',
    });
  });

  it('every kind changes something wherever it applies (beyond exact)', () => {
    for (const kind of [...VARIATION_KINDS, ...BEYOND_CONTRACT_KINDS]) {
      if (kind === 'exact') continue;
      const rng = createRng(kind);
      const changed = sample(kind).filter((e) => JSON.stringify(variantOf(e, rng, kind)) !== JSON.stringify(variantOf(e, rng, 'exact')));
      expect(changed.length, kind).toBeGreaterThanOrEqual(sample(kind).length * 0.9);
    }
  });

  it('writes each habit the way its name says', () => {
    const entry = { name: 'Søndergaard,Åse', address: 'Sankt Hans Gade 7B, st. th', postal_code: '2200', city: 'København N', kvhx: '01011234__7B_st__th', previous: false };
    const v = (kind: (typeof VARIATION_KINDS)[number] | (typeof BEYOND_CONTRACT_KINDS)[number], seed = 1) => variantOf(entry, createRng(seed), kind);
    expect(v('danish_letters')).toMatchObject({ name: 'Aase Soendergaard', city: 'Koebenhavn N' });
    expect(v('letters_stripped')).toMatchObject({ name: 'Ase Sondergaard' });
    expect(v('street_abbreviation').address).toMatch(/^(Skt\.?|Sct\.) Hans Gade 7B/);
    expect(v('house_letter').address).toMatch(/^Sankt Hans Gade 7 ?[bB], st\. th$/);
    expect(v('surname_first').name).toBe('Søndergaard, Åse');
    expect(v('split_name')).toMatchObject({ first_name: 'Åse', last_name: 'Søndergaard' });
    expect(v('extra_middle_name').name).toMatch(/^Åse \S+ Søndergaard$/);
    expect(v('address_parts')).toMatchObject({ street: 'Sankt Hans Gade', house_number: '7B', floor: 'st', door: 'th', postal_code: '2200' });
    expect(v('address_one_line')).toEqual({ name: 'Åse Søndergaard', address: 'Sankt Hans Gade 7B, st. th, 2200 København N' });
    expect(v('with_kvhx').kvhx).toBe(entry.kvhx);
    expect(v('unit_omitted').address).toBe('Sankt Hans Gade 7B');
    expect(v('given_name_initial').name).toBe('Å. Søndergaard');
    expect(v('postal_code_missing')).toEqual({ name: 'Åse Søndergaard', address: 'Sankt Hans Gade 7B, st. th', city: 'København N' });
    const typo = v('street_typo').address!;
    expect(typo).not.toMatch(/^Sankt Hans Gade 7B/);
    expect(typo).toMatch(/^\S+ \S+ \S+ 7B, st\. th$/);
    const spellings = new Set(Array.from({ length: 60 }, (_, i) => v('floor_door_spelling', i).address!.replace('Sankt Hans Gade 7B, ', '')));
    expect(spellings).toContain('st th');
    expect(spellings).toContain('stuen th');
    expect(spellings).toContain('0, TH');
    expect(spellings.size).toBeGreaterThanOrEqual(5);
  });

  it('refuses an entry that is not in the synthetic/CPR format', () => {
    expect(() => variantOf({ first_name: 'Anne', last_name: 'Hansen', street: 'Vej', house_number: '1' }, createRng(1))).toThrow();
  });
});

describe('generatePeople', () => {
  it('gives people with ids who are not the list of the same seed', () => {
    const people = generatePeople(2000, 5);
    expect(people).toHaveLength(2000);
    expect(new Set(people.map((p) => p.id)).size).toBe(2000);
    expect(generatePeople(2000, 5)).toEqual(people);
    const list = take(2000, 5).map((e) => variantOf(e, createRng(0), 'exact'));
    const listKeys = new Set(list.map((p) => `${p.name}|${p.address}`));
    const same = people.filter((p) => listKeys.has(`${p.name}|${p.address}`));
    expect(same.length).toBeLessThan(5);
  });
});
