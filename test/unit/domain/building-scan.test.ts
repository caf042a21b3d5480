import { describe, expect, it } from 'vitest';
import { buildListIndex, checkPerson, type ListIndex } from '../../../services/domain/index.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../../services/domain/types.ts';
import { createRng } from '../../../services/synthetic/index.ts';

/**
 * checkPerson reads a record elsewhere in the building only when its name signature shares a
 * given-name bit and a surname bit with the person's (list-index.ts givenBit, surnameBit; check.ts
 * scanBuilding); a record at the person's own unit is always read. The skip must never change an
 * answer. What each entry gives is known without the skip: at the person's unit, checking against
 * the entry alone; at another unit, a level 4 exactly when the person at the entry's own unit gets
 * an exact level 5 (both names agree exactly; docs/decisions.md §1). The building's answer is the
 * best of these (check.ts scoreOf), for buildings whose neighbours' names fill every signature bit.
 */

const GIVEN = ['Anne', 'Bo', 'Carl', 'Dorte', 'Erik', 'Frida', 'Gustav', 'Hanne', 'Ida', 'Jens', 'Karen', 'Lars', 'Mette',
  'Niels', 'Ole', 'Pia', 'Rasmus', 'Sofie', 'Torben', 'Ulla', 'Vibeke', 'Åse', 'Søren', 'Bodil'];
const SURNAMES = ['Hansen', 'Jensen', 'Nielsen', 'Pedersen', 'Andersen', 'Christensen', 'Larsen', 'Sørensen', 'Rasmussen',
  'Jørgensen', 'Petersen', 'Madsen', 'Kristensen', 'Olsen', 'Thomsen', 'Christiansen', 'Poulsen', 'Johansen', 'Møller',
  'Mortensen', 'Holm-Jensen', 'Østergaard', 'Friis', 'Berg'];
const UNITS = ['st. tv', 'st. th', '1. tv', '1. th', '2. tv', '2. th', '3. mf', ''];
const STREET = 'Ridehusgade 49';
const POSTAL = '5000 Odense C';
const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'en' };

type Rng = ReturnType<typeof createRng>;

interface Parts {
  given: string;
  middle: string;
  surname: string;
}

function partsOf(rng: Rng): Parts {
  return {
    given: rng.chance(0.3) ? `${rng.pick(GIVEN)} ${rng.pick(GIVEN)}` : rng.pick(GIVEN),
    middle: rng.chance(0.4) ? rng.pick(SURNAMES) : '',
    surname: rng.pick(SURNAMES),
  };
}

/** A name as lists and customers write it: one or two given names, sometimes a middle name, one or two surnames. */
function nameOf(rng: Rng, { given, middle, surname }: Parts): PersonInput {
  const middled = middle === '' ? '' : ` ${middle}`;
  if (rng.chance(0.3)) return { first_name: given, last_name: `${middle} ${surname}`.trim() };
  if (rng.chance(0.3)) return { name: `${surname},${given}${middled}` };
  return { name: `${given}${middled} ${surname}` };
}

/** A list entry's name as a customer may write it: whole, without its middle name, or with the middle name as the surname. */
function writtenAs(rng: Rng, parts: Parts): PersonInput {
  const pick = rng.int(3);
  if (pick === 0 || parts.middle === '') return nameOf(rng, parts);
  if (pick === 1) return nameOf(rng, { ...parts, middle: '' });
  return nameOf(rng, { given: parts.given, middle: '', surname: parts.middle });
}

function addressOf(unit: string): string {
  return unit === '' ? `${STREET}, ${POSTAL}` : `${STREET}, ${unit}, ${POSTAL}`;
}

function floorOf(unit: string): string | null {
  return unit === '' ? null : unit.slice(0, unit.indexOf('.'));
}

interface Given {
  level: number;
  approximate: boolean;
  previous: boolean;
  sameFloor: boolean;
}

/** What one entry gives a person at `unit`, from checks of the person at the entry's own unit. */
function givenBy(entryIndex: ListIndex, entryUnit: string, person: PersonInput, unit: string): Given {
  const atEntry = checkPerson(entryIndex, { ...person, address: addressOf(entryUnit) }, OPTIONS);
  const { level, approximate, previous_address: previous } = atEntry.match;
  if (unit === entryUnit) return { level: level ?? 0, approximate, previous, sameFloor: atEntry.level === 'floor' };
  if (level !== 5 || approximate) return { level: 0, approximate: false, previous: false, sameFloor: false };
  return { level: 4, approximate: false, previous, sameFloor: !previous && floorOf(unit) !== null && floorOf(unit) === floorOf(entryUnit) };
}

/** check.ts scoreOf: the level first, then an exact name, the current address, the same floor. */
function scoreOf(g: Given): number {
  return g.level === 0 ? -1 : g.level * 8 + (g.approximate ? 0 : 4) + (g.previous ? 0 : 2) + (g.sameFloor ? 1 : 0);
}

describe('the building scan skips only records that cannot give a level', () => {
  it('answers as the best of what each entry of the building gives', () => {
    const rng = createRng('building-scan');
    let levelFour = 0;
    let skippable = 0;
    for (let building = 0; building < 12; building++) {
      const names: Parts[] = [];
      const units: string[] = [];
      const entries: ListEntry[] = [];
      const size = 10 + rng.int(40);
      for (let e = 0; e < size; e++) {
        names.push(partsOf(rng));
        units.push(rng.pick(UNITS));
        entries.push({ ...nameOf(rng, names[e]), address: addressOf(units[e]), previous: rng.chance(0.15) });
      }
      const whole = buildListIndex(entries);
      const alone = entries.map((entry) => buildListIndex([entry]));
      for (let p = 0; p < 60; p++) {
        // Most people are written as an entry of the building, at its unit or at another one.
        const person = rng.chance(0.6) ? writtenAs(rng, rng.pick(names)) : nameOf(rng, partsOf(rng));
        const unit = rng.pick(UNITS);
        let best: Given = { level: 0, approximate: false, previous: false, sameFloor: false };
        for (let e = 0; e < size; e++) {
          const given = givenBy(alone[e], units[e], person, unit);
          if (scoreOf(given) > scoreOf(best)) best = given;
          if (units[e] !== unit && given.level === 0) skippable++;
        }
        const answer = checkPerson(whole, { ...person, address: addressOf(unit) }, OPTIONS);
        expect({ level: answer.match.level, approximate: answer.match.approximate, previous: answer.match.previous_address })
          .toEqual({ level: best.level, approximate: best.level > 0 && best.approximate, previous: best.level > 0 && best.previous });
        if (best.level === 4 && !best.previous) expect(answer.level).toBe(best.sameFloor ? 'floor' : 'building');
        if (answer.match.level === 4) levelFour++;
      }
    }
    // The inputs reach what the skip decides: level 4 among many neighbours that give nothing.
    expect(levelFour).toBeGreaterThan(50);
    expect(skippable).toBeGreaterThan(5000);
  });
});
