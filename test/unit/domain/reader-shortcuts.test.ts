import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  cityDisplayOf, newCityFieldTable, parseAddress, streetDisplayOf, type ParsedAddress,
} from '../../../services/domain/address.ts';
import { canonicalKvhx, formatKvhx, parseKvhx, tryFormatKvhx } from '../../../services/domain/kvhx.ts';
import type { PersonInput } from '../../../services/domain/types.ts';
import { createRng, generateListEntries, generatePeople, generatePeopleOnUnknownStreets, variantOf } from '../../../services/synthetic/index.ts';

/**
 * The shortcuts of the check path's address reading (docs/matching.md "Speed of the check path")
 * answer what the long way answers: a kvhx already canonical is taken as given, the echo's street
 * and city shown as written when the tokenizer's case flags say so, a city field read once per text
 * in a list index build (address.ts CityFieldTable).
 */

/** The long way of canonicalKvhx: taken apart and written again. */
function kvhxTheLongWay(s: string): string | null {
  const parts = parseKvhx(s);
  return parts === null ? null : formatKvhx(parts);
}

const realTexts: string[] = readFileSync(new URL('../../fixtures/addresses/real-addresses.tsv', import.meta.url), 'utf8')
  .split('\n').filter((line) => line !== '' && !line.startsWith('#')).slice(1).map((line) => line.split('\t')[1]);

const written: PersonInput[] = [
  'Christian IX S Gade 3, 1111 København K', 'Christian Ix S Gade 3, 1111 København K', 'Frederik Vii S Vej 1, 5000 Odense C',
  'Christian IX\'s Gade 3, 1111 København K', 'Gl. Kongevej 12A, 3. tv, 1610 København V',
  'Kongevj 4, 2000 Frederiksberg', 'Vj 4, 2000 Frederiksberg', 'Gl Vj 4, 2000 Frederiksberg', 'St. Kongensgade 1, 1264 København K',
  'H.C. Andersens Boulevard 2, 1553 København V', 'Øster Allé 5, 2100 København Ø', 'Sct. Hans Torv 3, 2200 København N',
  'Sdr. Boulevard 9, 1720 København V', 'Ñr Vej 2, 5000 Odense C', 'Nr Vej 2, 5000 Odense C', 'Skt Vej 2, 5000 Odense C',
  'Bd Vej 2, 5000 ODENSE C', 'Ole  Rømers Vej 2, 5000 odense c', 'Ole Rømers Vej 2, 5000 Odense S', 'Åvej 1, 8000 Århus C',
  'A\u030avej 1, 8000 A\u030arhus C', 'Vej 5, 5000 Odense-C', 'Vej 5, 5000 Odense,C', 'McDonald Vej 1, 5000 McOdense',
].map((address) => ({ address }));

function people(): PersonInput[] {
  const rng = createRng('reader-shortcuts');
  const members = [...generateListEntries(3000, 'reader-shortcuts')].map((entry) => variantOf(entry, rng));
  return [
    ...members, ...generatePeople(3000, 'reader-shortcuts'), ...generatePeopleOnUnknownStreets(1000, 'reader-shortcuts'),
    ...realTexts.map((address) => ({ address })), ...written,
    ...written.map((p) => ({ address: p.address!.replace(/, \d{4} .*$/, ''), postal_code: '5000', city: p.address!.replace(/^.*\d{4} /, '') })),
    ...written.map((p) => ({ street: p.address!.replace(/ \d.*$/, ''), house_number: '7', postal_code: '5000', city: 'Odense C' })),
  ];
}

describe('reader shortcuts give the long way\'s answers', () => {
  it('a kvhx already canonical is the kvhx written again, and every other form goes the long way', () => {
    let seed = 20;
    const next = (m: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % m;
    const values = ['', '0', '00', '1', '01', '12', '123', '1234', '12a', '12A', 'a', 'st', 'tv', 'k2', '0a', 'abcd', 'ABC', '9z'];
    const noise = '0123456789_ aAzZ.-';
    let asGiven = 0;
    for (let n = 0; n < 20_000; n++) {
      const key = tryFormatKvhx({
        kommunekode: String(next(10_000)), vejkode: String(next(10_000)),
        husnummer: values[next(values.length)], etage: values[next(values.length)], door: values[next(values.length)],
      });
      if (key === null) continue;
      const at = next(19);
      const text = next(2) === 0 ? key : key.slice(0, at) + noise[next(noise.length)] + key.slice(at + 1);
      expect(canonicalKvhx(text)).toBe(kvhxTheLongWay(text));
      if (canonicalKvhx(text) === text) asGiven++;
    }
    expect(asGiven).toBeGreaterThan(5000); // the shortcut is taken, not only the long way
  });

  it('the street and city shown as written are what the display makes of them', () => {
    let shortcut = 0;
    for (const person of people()) {
      const parsed = parseAddress(person);
      if (parsed === null) continue;
      const longWay: ParsedAddress = { ...parsed, streetAsWritten: false, cityAsWritten: false };
      expect(streetDisplayOf(parsed)).toBe(streetDisplayOf(longWay));
      expect(cityDisplayOf(parsed)).toBe(cityDisplayOf(longWay));
      if (parsed.streetAsWritten) shortcut++;
    }
    expect(shortcut).toBeGreaterThan(1000);
  });

  it('a city field read from a build\'s table, again and after the table was emptied, reads as without one', () => {
    const all = people();
    const first = all.map((person) => JSON.stringify(parseAddress(person)));
    const table = newCityFieldTable();
    expect(all.map((person) => JSON.stringify(parseAddress(person, table)))).toEqual(first);
    expect(table.readings.size).toBeGreaterThan(100);
    // More distinct city texts than the table holds: it is emptied on the way.
    for (let i = 0; i < 5000; i++) parseAddress({ address: 'Vej 1', postal_code: '5000', city: `By ${i}` }, table);
    expect(all.map((person) => JSON.stringify(parseAddress(person, table)))).toEqual(first);
    expect(all.map((person) => JSON.stringify(parseAddress(person, table)))).toEqual(first);
  });

  it('the table of read city fields keeps no file chunk alive', () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    collect();
    const before = process.memoryUsage().heapUsed;
    const table = newCityFieldTable();
    for (let i = 0; i < 50; i++) {
      // A city cut from a 4 MB chunk, as a reader of a file may cut it: V8 keeps such a cut as a view.
      const chunk = 'x'.repeat(4_000_000 + i) + `Frederiksberg C ${i}`;
      const city = chunk.slice(4_000_000 + i);
      expect(parseAddress({ address: 'Vej 1', postal_code: '2000', city }, table)?.city).toBe(`frederiksberg c ${i}`);
      expect(cityDisplayOf(parseAddress({ address: 'Vej 1', postal_code: '2000', city: city.toUpperCase() }, table)!))
        .toBe(`Frederiksberg C ${i}`);
    }
    collect();
    // Kept alive, the 50 chunks would be 200 MB; the cities themselves are a few kB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(60_000_000);
    expect(table.readings.size).toBe(100);
  });
});
