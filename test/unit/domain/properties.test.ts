import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildListIndex, checkPerson, normalizeText, parseAddress, parseKvhx, parseName, resolveAddressText, testModeCheck,
} from '../../../services/domain/index.ts';
import { nfc, tokenize } from '../../../services/domain/normalize.ts';
import type { CheckOptions, PersonInput } from '../../../services/domain/types.ts';

/** Arbitrary strings of every kind: unicode, address-like words, long runs of spaces, empty. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.array(fc.constantFrom('Gl.', 'Skt', '12A', '3.', 'tv', 'st', 'kl', '1610', 'København', ',', '.', 'æøå', '0', '99999', '?', '-'), { maxLength: 15 })
    .map((words) => words.join(' ')),
  fc.nat({ max: 10_000 }).map((n) => ' '.repeat(n)),
  fc.constant(''),
);

const FIELDS = ['id', 'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door',
  'postal_code', 'city', 'kvhx', 'phone'] as const;
const anyPerson: fc.Arbitrary<PersonInput> = fc.record(
  Object.fromEntries(FIELDS.map((field) => [field, anyText])) as Record<(typeof FIELDS)[number], fc.Arbitrary<string>>,
  { requiredKeys: [] },
);

const index = buildListIndex([
  { name: 'Hansen,Anne', address: 'Gl. Kongevej 12A, 3. tv, 1610 København V', kvhx: '01010012_12A__3__tv' },
  { name: 'Hansen,Anne', address: 'Nørregade 7, 5000 Odense', previous: true },
]);
const OPTIONS: CheckOptions[] = [
  { policy: 'standard', stopLevel: 1, locale: 'da' },
  { policy: 'strict', stopLevel: 3, locale: 'en' },
  { policy: 'bdq', stopLevel: 5, locale: 'da' },
];

describe('folding', () => {
  it('the ASCII fast path of normalizeText agrees with the character-by-character path', () => {
    fc.assert(fc.property(fc.oneof(anyText, fc.string({ unit: 'binary-ascii', maxLength: 40 })), (s) => {
      // A leading separator always takes the slow path; the result must not differ.
      expect(normalizeText(s)).toBe(normalizeText('\u0000' + s));
    }), { numRuns: 2000 });
  });

  it('address tokens are the words of normalizeText', () => {
    fc.assert(fc.property(anyText, (s) => {
      const t = tokenize(nfc(s)); // the readers tokenize NFC text (normalize.ts nfc)
      const words = normalizeText(s).split(' ').filter((w) => w !== '').slice(0, 40);
      expect(t.norm.slice(0, t.count)).toEqual(words);
    }), { numRuns: 2000 });
  });
});

describe('never throws', () => {
  it('normalizeText, resolveAddressText and parseKvhx on any string', () => {
    fc.assert(fc.property(anyText, (s) => {
      const normal = normalizeText(s);
      expect(normal).toBe(normal.trim());
      expect(normal).not.toMatch(/\s{2}/);
      const resolved = resolveAddressText(s);
      expect(resolved.input).toBe(s);
      expect(resolved.confidence).toBe('unresolved');
      parseKvhx(s);
    }), { numRuns: 1000 });
  });

  it('parseAddress and parseName on any person', () => {
    fc.assert(fc.property(anyPerson, (person) => {
      const address = parseAddress(person);
      if (address !== null) expect(address.buildingKey !== null || address.kvhxBuilding !== null).toBe(true);
      const name = parseName(person);
      if (name !== null) expect(name.given.length + (name.surname === '' ? 0 : 1)).toBeGreaterThan(0);
    }), { numRuns: 1000 });
  });

  it('checkPerson and testModeCheck on any person; null levels are never allowed', () => {
    fc.assert(fc.property(anyPerson, fc.constantFrom(...OPTIONS), (person, options) => {
      for (const result of [checkPerson(index, person, options), testModeCheck(person, options)]) {
        if (result.match.level === null) expect(result.status).toBe('manual');
        expect(result.stop_level).toBe(options.stopLevel);
      }
    }), { numRuns: 1000 });
  });

  it('on non-object input from an untyped caller', () => {
    for (const junk of [null, undefined, 42, 'text', [], {} as PersonInput, { name: 42, address: {} }]) {
      const person = junk as unknown as PersonInput;
      expect(parseAddress(person)).toBeNull();
      expect(parseName(person)).toBeNull();
      expect(checkPerson(index, person, OPTIONS[0]).status).toBe('manual');
    }
  });

  it('building an index from arbitrary entries', () => {
    fc.assert(fc.property(fc.array(anyPerson, { maxLength: 30 }), (people) => {
      const built = buildListIndex(people.map((p) => ({ ...p, previous: p.id === 'x' })));
      expect(built.size).toBe(people.length);
    }), { numRuns: 200 });
  });
});
