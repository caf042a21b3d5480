import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { cityDisplayOf, parseAddress } from '../../../services/domain/address.ts';
import { buildListIndex, checkPerson } from '../../../services/domain/index.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../../services/domain/types.ts';

/**
 * A customer may put any text in a city column, a name or a note among them: a check keeps a city
 * field's reading only when it reads as a town at a postal code where the list has an address with
 * that town, in the table of the index it ran against; a build keeps none past the build
 * (services/domain/address.ts CityFieldTable, docs/privacy-and-proof.md). The check path once kept
 * up to 4,096 city texts of any kind for the life of the process; this fails on that code.
 */

const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };
/** Each city text is this long, so that 3,000 of them kept would be some 30 MB of heap. */
const TEXT_LENGTH = 10_000;
const TEXTS = 3_000; // fewer than the 4,096 the old table held before it was emptied

function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** i in small letters ("a", "b", …, "ba"): no number, which the reader could take for a postal code. */
function lettersOf(i: number): string {
  let out = '';
  do {
    out = String.fromCharCode(97 + (i % 26)) + out;
    i = Math.floor(i / 26);
  } while (i > 0);
  return out;
}

/** A city text that is no town: a name and a long note, distinct per i, written in capitals or not. */
function notATown(i: number, capitals: boolean): string {
  const text = `Ida Frølich ${lettersOf(i)} ` + 'bemaerk'.repeat(TEXT_LENGTH / 7);
  return capitals ? text.toUpperCase() : text;
}

/** Heap in use after a full collection. */
function heapAfterGc(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

// The build first: on a process-lifetime table (the old code) both then find texts kept.
describe('city field texts are not kept', () => {
  it('a list index build keeps no city text once it is built', () => {
    const gc = collectGarbage();
    const before = heapAfterGc(gc);
    const index = ((): ReturnType<typeof buildListIndex> => {
      const entries: ListEntry[] = [];
      for (let i = 0; i < TEXTS; i++) {
        entries.push({ name: 'Ida Hansen', address: `Vestergade ${1 + (i % 900)}`, postal_code: '5000', city: notATown(i, false) });
      }
      return buildListIndex(entries);
    })();
    expect(index.size).toBe(TEXTS);
    expect(heapAfterGc(gc) - before).toBeLessThan(8_000_000);
  });

  it('a check keeps the reading of a town of the list, and not of a town the list does not have there', () => {
    const index = buildListIndex([{ name: 'Ida Hansen', address: 'Vestergade 2', postal_code: '5000', city: 'Odense C' }]);
    const check = (postal_code: string, city: string): void => {
      checkPerson(index, { name: 'Per Holm', address: 'Vej 1', postal_code, city }, OPTIONS);
    };
    check('5000', 'ODENSE C');
    check('5000', 'Odense  C');
    check('5000', 'Ida Frølich');
    check('8000', 'Odense C');
    check('', '5000 Odense C');
    check('', '8000 Odense C');
    expect([...index.data.cityFields.readings.keys()].sort()).toEqual(['5000 Odense C', 'ODENSE C', 'Odense  C']);
  });

  it('a check keeps no city text that is not a town, in the reading or in the echo', () => {
    const gc = collectGarbage();
    const index = buildListIndex([{ name: 'Ida Hansen', address: 'Vestergade 2', postal_code: '5000', city: 'Odense C' }]);
    // One warm-up check, so that what the first check allocates once is in the baseline.
    checkPerson(index, { name: 'Per Holm', address: 'Vej 1', postal_code: '5000', city: notATown(TEXTS, true) }, OPTIONS);
    const before = heapAfterGc(gc);
    let echoed = 0;
    for (let i = 0; i < TEXTS; i++) {
      const person: PersonInput = { name: 'Per Holm', address: 'Vej 1', postal_code: '5000', city: notATown(i, i % 2 === 0) };
      const result = checkPerson(index, person, OPTIONS);
      if (result.address?.city?.toLowerCase().startsWith(`ida frølich ${lettersOf(i)} `) === true) echoed++;
      const parsed = parseAddress(person);
      if (parsed !== null && cityDisplayOf(parsed)?.toLowerCase().startsWith(`ida frølich ${lettersOf(i)} `) === true) echoed++;
    }
    // The texts were read (and echoed as the contract asks) ...
    expect(echoed).toBe(2 * TEXTS);
    // ... and none of them is kept: 3,000 texts of 10,000 characters would be 30 MB or more.
    expect(heapAfterGc(gc) - before).toBeLessThan(8_000_000);
  });
});
