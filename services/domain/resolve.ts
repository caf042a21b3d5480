import { cityDisplayOf, parseAddress, streetDisplayOf, type ParsedAddress } from './address.ts';
import type { PersonInput, ResolvedAddress } from './types.ts';

/** "12a" → "12A", as house numbers are written. */
function displayHouseNumber(houseNumber: string): string {
  const last = houseNumber.charCodeAt(houseNumber.length - 1);
  return last >= 97 && last <= 122 ? houseNumber.toUpperCase() : houseNumber;
}

/** The canonical Danish form: "Gammel Kongevej 12A, 3. tv, 1610 København V". */
function formatted(a: ParsedAddress, street: string | null, city: string | null): string | null {
  if (street === null || a.houseNumber === null || a.postalCode === null) return null;
  let out = street + ' ' + displayHouseNumber(a.houseNumber);
  if (a.floor !== null || a.door !== null) {
    out += ', ';
    if (a.floor !== null) out += a.floor + '.';
    if (a.door !== null) out += (a.floor !== null ? ' ' : '') + a.door;
  }
  out += ', ' + a.postalCode;
  if (city !== null) out += ' ' + city;
  return out;
}

/**
 * How an address was read, in parse-only mode (docs/decisions.md §13: no register loaded, so confidence
 * is always `unresolved`; `ok` is true when it parsed).
 */
export function toResolvedAddress(parsed: ParsedAddress | null, input: string): ResolvedAddress {
  if (parsed === null) {
    return {
      input, ok: false, street: null, house_number: null, floor: null, door: null, postal_code: null,
      city: null, formatted: null, confidence: 'unresolved',
    };
  }
  const street = streetDisplayOf(parsed);
  const city = cityDisplayOf(parsed);
  return {
    input,
    ok: true,
    street,
    house_number: parsed.houseNumber === null ? null : displayHouseNumber(parsed.houseNumber),
    floor: parsed.floor,
    door: parsed.door,
    postal_code: parsed.postalCode,
    city,
    formatted: formatted(parsed, street, city),
    confidence: 'unresolved',
  };
}

/**
 * The address as matched when the street was corrected (docs/decisions.md §13 `corrected`): the list's
 * street in place of the one written, everything else as read.
 */
export function toCorrectedAddress(parsed: ParsedAddress, read: ResolvedAddress, street: string): ResolvedAddress {
  // Written out field by field in the order of toResolvedAddress: one object shape for both.
  return {
    input: read.input,
    ok: true,
    street,
    house_number: read.house_number,
    floor: read.floor,
    door: read.door,
    postal_code: read.postal_code,
    city: read.city,
    formatted: formatted(parsed, street, read.city),
    confidence: 'corrected',
  };
}

export function resolveAddressText(text: string): ResolvedAddress {
  const input = typeof text === 'string' ? text : '';
  return toResolvedAddress(parseAddress({ address: input }), input);
}

/** The text a person's address was given as: `address`, else the parts joined, else `kvhx`. */
export function addressInputOf(person: PersonInput): string {
  // Each field read once: inputs come in many shapes, so every read of a field is a slow
  // (megamorphic) property look-up, and this runs for every check.
  const address = person.address;
  if (typeof address === 'string' && address.trim() !== '') return address;
  // The parts one by one, not through an array of them: every check of an address in parts asks.
  let out = withPart('', person.street);
  out = withPart(out, person.house_number);
  out = withPart(out, person.floor);
  out = withPart(out, person.door);
  out = withPart(out, person.postal_code);
  out = withPart(out, person.city);
  if (out !== '') return out;
  const kvhx = person.kvhx;
  return typeof kvhx === 'string' ? kvhx : '';
}

/** `out` with the trimmed `part` after a space, when `part` is a string with text. */
function withPart(out: string, part: unknown): string {
  if (typeof part !== 'string') return out;
  const trimmed = part.trim();
  if (trimmed === '') return out;
  return out === '' ? trimmed : out + ' ' + trimmed;
}
