/**
 * The legacy address key KVHX (docs/decisions.md §12): kommunekode (4) + vejkode (4) + husnummer (4) +
 * etage (3) + door (4) = 19 characters, the last three right-aligned and padded with `_`,
 * e.g. `04615319__93__1____`.
 *
 * The output of `formatKvhx` is canonical, so two spellings of one address give one key:
 * codes zero-padded, leading zeros of numbers dropped ("012" → "12"), house-number letter upper
 * case ("12A"), floor and door lower case ("st", "tv"), floor "0"/"00" written "st".
 */

export interface KvhxParts {
  kommunekode: string;
  vejkode: string;
  husnummer: string;
  etage: string;
  door: string;
}

export const KVHX_LENGTH = 19;
/** Characters of the building part (kommune + vej + husnummer); the rest is the unit. */
export const KVHX_BUILDING_LENGTH = 12;

function stripSpaceAndPad(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch !== ' ' && ch !== '_' && ch !== '.' && ch !== '\t') out += ch;
  }
  return out;
}

/** Drops leading zeros of a number or number+letter ("012A" → "12A"), keeping a lone "0". */
function dropLeadingZeros(value: string): string {
  let i = 0;
  while (i < value.length - 1 && value[i] === '0') i++;
  return value.slice(i);
}

function code4(value: string): string | null {
  const digits = stripSpaceAndPad(value);
  if (digits.length === 0 || digits.length > 4 || !/^\d+$/.test(digits)) return null;
  return digits.padStart(4, '0');
}

function canonicalHusnummer(value: string): string | null {
  const bare = dropLeadingZeros(stripSpaceAndPad(value)).toUpperCase();
  return /^\d{1,3}[A-Z]?$/.test(bare) && bare !== '0' ? bare : null;
}

function canonicalEtage(value: string): string | null {
  const bare = dropLeadingZeros(stripSpaceAndPad(value)).toLowerCase();
  if (bare === '') return '';
  if (bare === '0') return 'st';
  return /^[a-z0-9]{1,3}$/.test(bare) ? bare : null;
}

function canonicalDoor(value: string): string | null {
  const bare = stripSpaceAndPad(value).toLowerCase();
  if (bare === '') return '';
  const door = /^\d+$/.test(bare) ? dropLeadingZeros(bare) : bare;
  return /^[a-z0-9]{1,4}$/.test(door) ? door : null;
}

function canonicalParts(parts: KvhxParts): KvhxParts | null {
  const kommunekode = code4(parts.kommunekode);
  const vejkode = code4(parts.vejkode);
  const husnummer = canonicalHusnummer(parts.husnummer);
  const etage = canonicalEtage(parts.etage ?? '');
  const door = canonicalDoor(parts.door ?? '');
  if (kommunekode === null || vejkode === null || husnummer === null || etage === null || door === null) {
    return null;
  }
  return { kommunekode, vejkode, husnummer, etage, door };
}

/**
 * The canonical 19-character key. Throws a RangeError when a part cannot be written in its width
 * (a caller building keys from a file should treat that record's key as absent).
 */
export function formatKvhx(parts: KvhxParts): string {
  const c = canonicalParts(parts);
  if (c === null) throw new RangeError('kvhx part out of range');
  return write(c);
}

function write(c: KvhxParts): string {
  return c.kommunekode + c.vejkode + c.husnummer.padStart(4, '_') + c.etage.padStart(3, '_') +
    c.door.padStart(4, '_');
}

/** Like formatKvhx, but null instead of throwing. */
export function tryFormatKvhx(parts: KvhxParts): string | null {
  const c = canonicalParts(parts);
  return c === null ? null : write(c);
}

/**
 * Reads a 19-character key (surrounding spaces ignored; `_` or space as padding). Returns the
 * canonical parts, or null when it is not a KVHX.
 */
export function parseKvhx(s: string): KvhxParts | null {
  if (typeof s !== 'string') return null;
  const key = s.length === KVHX_LENGTH ? s : s.trim(); // spaces may be the padding
  if (key.length !== KVHX_LENGTH) return null;
  return canonicalParts({
    kommunekode: key.slice(0, 4),
    vejkode: key.slice(4, 8),
    husnummer: key.slice(8, 12),
    etage: key.slice(12, 15),
    door: key.slice(15, 19),
  });
}

/** The canonical form of a key, or null: the form every index and comparison uses. */
export function canonicalKvhx(s: string): string | null {
  if (isCanonical(s)) return s; // most keys come as the register and lists write them
  const parts = parseKvhx(s);
  return parts === null ? null : write(parts);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Whether `s` is already a key `write` makes, so canonicalKvhx may answer it as given instead
 * of taking it apart and writing it again (every check of an input with a kvhx asks;
 * docs/matching.md "Speed of the check path"). Asks only the plain form: each field `_`
 * padding, then a value without a leading zero; anything else (spaces, dots, "0" floors, leading
 * zeros) goes the long way, which gives the same answer for this form.
 */
function isCanonical(s: string): boolean {
  if (s.length !== KVHX_LENGTH) return false;
  for (let i = 0; i < 8; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return paddedValue(s, 8, 12, HOUSE) && paddedValue(s, 12, 15, UNIT) && paddedValue(s, 15, 19, UNIT);
}

/** The house number field: 1–3 digits, then an optional capital letter. */
const HOUSE = 0;
/** Floor and door fields: small letters and digits (at most 3 / 4, the field's width). */
const UNIT = 1;

/** s[from, to) is `_` padding and then a value of `kind` not starting with "0" (or, for UNIT, only padding). */
function paddedValue(s: string, from: number, to: number, kind: number): boolean {
  let i = from;
  while (i < to && s.charCodeAt(i) === 95 /* _ */) i++;
  if (i === to) return kind === UNIT;
  if (s.charCodeAt(i) === 48 /* 0 */) return false;
  if (kind === HOUSE) {
    let digits = 0;
    while (i < to && isDigit(s.charCodeAt(i))) { i++; digits++; }
    if (digits === 0 || digits > 3) return false;
    if (i < to) {
      const c = s.charCodeAt(i++);
      if (c < 65 || c > 90) return false;
    }
    return i === to;
  }
  for (; i < to; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c) && (c < 97 || c > 122)) return false;
  }
  return true;
}
