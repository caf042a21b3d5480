import { parseAddress } from './address.ts';
import { parseName } from './name.ts';
import type { ListEntry } from './types.ts';

/**
 * Previous addresses from earlier list versions (docs/decisions.md §1; docs/matching.md
 * "Previous addresses from earlier versions"): a person on an earlier version at address A and on
 * this version at address B is also an entry at A, marked `previous`, so a name match at A is
 * raised to at least 4 with `previous_address` true. Pure: entries in, entries out.
 *
 * "The same person" across versions: the list carries no identity of the person (the CPR office's
 * file has name and address, no CPR number), so a person is their normalised full name (given
 * names + surname, as matching reads it). A namesake who left the list while another stays makes
 * the leaver's address a "previous address" of the one who stayed: an over-block on a rare case,
 * the safe side for a do-not-contact list. An address is its building + unit as matching reads it.
 *
 * Use: `note` every current (not previous) entry of the version, then `derive` each earlier
 * version's entries (newest first, only versions published at most three years before); an
 * earlier entry whose person is on this version at other addresses comes back marked previous
 * (once per person and address).
 */
export interface PreviousAddressDeriver {
  /** An entry of the version being indexed (its own previous-address records are ignored here). */
  note(entry: ListEntry): void;
  /** The earlier entries that are previous addresses of a person on this version. */
  derive(earlier: Iterable<ListEntry>): ListEntry[];
  /** Previous addresses derived so far. */
  readonly derived: number;
}

/** docs/decisions.md §1 "up to three years back". */
export const PREVIOUS_ADDRESS_YEARS = 3;

/** The earliest `published_on` (YYYY-MM-DD) an earlier version may have to count for `publishedOn`. */
export function previousAddressCutoff(publishedOn: string): string {
  const [y, m, d] = publishedOn.split('-');
  return `${String(Number(y) - PREVIOUS_ADDRESS_YEARS).padStart(4, '0')}-${m}-${d}`;
}

function personKey(entry: ListEntry): string | null {
  const name = parseName(entry);
  if (!name || name.surname === '' || name.given.length === 0) return null;
  return `${name.given.join(' ')}|${name.surname}`;
}

function addressKey(entry: ListEntry): string | null {
  const address = parseAddress(entry);
  if (!address) return null;
  if (address.buildingKey) return `${address.buildingKey}#${address.unitKey}`;
  return address.kvhxBuilding ? `kvhx:${address.kvhxBuilding}${address.kvhxUnit ?? ''}` : null;
}

export function createPreviousAddressDeriver(): PreviousAddressDeriver {
  /** Person → the addresses they have on this version (current and already derived). */
  const people = new Map<string, Set<string>>();
  let derived = 0;
  return {
    note(entry) {
      if (entry.previous === true) return;
      const person = personKey(entry);
      const address = addressKey(entry);
      if (person === null || address === null) return;
      let addresses = people.get(person);
      if (!addresses) people.set(person, (addresses = new Set()));
      addresses.add(address);
    },
    derive(earlier) {
      const found: ListEntry[] = [];
      for (const entry of earlier) {
        // An earlier version's own previous-address records may be older than three years here.
        if (entry.previous === true) continue;
        const person = personKey(entry);
        const addresses = person === null ? undefined : people.get(person);
        if (!addresses) continue;
        const address = addressKey(entry);
        if (address === null || addresses.has(address)) continue;
        addresses.add(address);
        found.push({ ...entry, previous: true });
        derived += 1;
      }
      return found;
    },
    get derived() {
      return derived;
    },
  };
}
