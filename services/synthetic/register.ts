import type { RegisterAddress } from '../domain/address-register.ts';
import { DOORS } from './danish-data.ts';
import {
  SYNTHETIC_FLOORS, SYNTHETIC_NUMBERED_DOORS, syntheticBuildingOf, syntheticBuildings, type SyntheticAddress,
  type SyntheticBuilding,
} from './generate.ts';
import { hashString } from './rng.ts';

/**
 * The synthetic country's address register: every unit address of every building the synthetic
 * people live in (generate.ts fixes which buildings have floors and which door style), so that
 * list entries and people of any seed resolve. Real-register features are mixed in
 * deterministically: a short addressing name for long street names (DAR's vejadresseringsnavn, at
 * most 20 characters) and a supplementary town name on some streets.
 */

/** Real supplementary town names (DAR SupplerendeBynavn). */
const TOWNS: readonly string[] = ['Skee', 'Tved', 'Bred', 'Enslev', 'Tuse', 'Vinge', 'Snostrup', 'Grønbæk'];

/** "Gammel Christiansvænget" → "Gl Christiansvænget": DAR's short addressing name for long names. */
export function addressingNameOf(street: string): string {
  if (street.length <= 20) return street;
  const short = street.replace(/^Gammel /, 'Gl ').replace(/^Sankt /, 'Skt ');
  return short.length <= 20 ? short : short.slice(0, 20).trimEnd();
}

function townOf(b: SyntheticBuilding): string | null {
  const h = hashString(`town:${b.district.postal_code}:${b.street.name}`);
  return h % 10 === 0 ? TOWNS[(h >>> 4) % TOWNS.length] : null;
}

/** The unit addresses of one building. */
export function registerUnitsOf(b: SyntheticBuilding): RegisterAddress[] {
  const house = `${b.houseNumber}${b.letter}`;
  const base = {
    accessId: `${b.district.postal_code}|${b.street.name}|${house}`,
    street: b.street.name,
    addressingName: addressingNameOf(b.street.name),
    houseNumber: house,
    postalCode: b.district.postal_code,
    postalName: b.district.city,
    town: townOf(b),
    kommunekode: b.district.kommunekode,
    vejkode: b.street.vejkode,
  };
  if (!b.hasFloors) return [{ ...base, floor: null, door: null }];
  const doors = b.numberedDoors ? SYNTHETIC_NUMBERED_DOORS : DOORS;
  const out: RegisterAddress[] = [];
  for (const floor of SYNTHETIC_FLOORS) for (const door of doors) out.push({ ...base, floor, door });
  return out;
}

/** Unit addresses of the synthetic country, building by building, at most `limit` of them. */
export function* generateRegisterAddresses(limit = Infinity): Generator<RegisterAddress> {
  let count = 0;
  for (const building of syntheticBuildings()) {
    for (const unit of registerUnitsOf(building)) {
      if (count++ >= limit) return;
      yield unit;
    }
  }
}

/**
 * The unit addresses of the buildings of `addresses` (each building once): a register for a test.
 * An address on a street its district does not have (people on streets "unknown to the list") is
 * a building of its own, with the floor and door style of the address.
 */
export function registerAddressesFor(addresses: Iterable<SyntheticAddress>): RegisterAddress[] {
  const seen = new Set<string>();
  const out: RegisterAddress[] = [];
  for (const a of addresses) {
    const key = `${a.postal_code}|${a.street}|${a.number}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const building = syntheticBuildingOf(a) ?? {
      district: { postal_code: a.postal_code, city: a.city, kommunekode: a.kommunekode },
      street: { name: a.street, vejkode: a.vejkode },
      houseNumber: Number(a.number),
      letter: a.letter,
      hasFloors: a.floor !== '',
      numberedDoors: /^\d+$/.test(a.door),
    };
    out.push(...registerUnitsOf(building));
  }
  return out;
}
