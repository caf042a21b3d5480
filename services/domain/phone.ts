import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { GrowingUint32, lowerBound, MAX_SLOTS, PackedTexts, sortedKeys } from './packed-texts.ts';
import type { CheckOptions, CheckResult, PersonInput } from './types.ts';

/**
 * Phone numbers to E.164 (docs/decisions.md §17: +45 when no country code). libphonenumber-js carries the
 * numbering plans, so `12 34 56 78`, `+45 12-34-56-78`, `0045 1234 5678` and `(+45) 12345678`
 * all read as `+4512345678`, and foreign numbers with their own country code keep it. Pure: no
 * I/O, and it never throws (anything unreadable is null), so a bad number in a batch is one result,
 * not an error for the whole request.
 */
const MAX_PHONE_TEXT = 64;

export function normalisePhone(text: unknown): string | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_PHONE_TEXT) return null;
  try {
    const parsed = parsePhoneNumberFromString(text, 'DK');
    if (!parsed || !parsed.isValid()) return null;
    return parsed.number;
  } catch {
    // The library signals some malformed input by throwing; a number we cannot read is null.
    return null;
  }
}

/** One number of a phone directory. `listed` false: a secret number (navne- og adressebeskyttet). */
export interface DirectoryEntry {
  /** E.164. */
  number: string;
  name: string;
  address: string;
  listed: boolean;
}

/**
 * Lookups of one imported directory version, by E.164 number. Compact like the company index
 * (packed-texts.ts): each entry one packed record in UTF-8 pages, found through a sorted
 * Uint32Array of 28-bit hashes of the number and confirmed against the record's own number. A
 * number listed twice: the later entry counts (as a re-listing replaces the earlier one).
 */
export interface PhoneIndex {
  /** Entries imported (a number listed twice counts twice). */
  size: number;
  get(number: string): DirectoryEntry | undefined;
}

const SEP = '\u001f';

function hashNumber(number: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < number.length; i++) {
    h ^= number.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & 0x0fffffff;
}

export function createPhoneIndexBuilder(): { add(entry: DirectoryEntry): void; build(): PhoneIndex } {
  const texts = new PackedTexts();
  const hashes = new GrowingUint32();
  return {
    add(entry) {
      if (texts.count >= MAX_SLOTS) throw new RangeError(`a phone directory holds at most ${MAX_SLOTS} numbers`);
      texts.add([entry.number, entry.name, entry.address, entry.listed ? '1' : ''].join(SEP));
      hashes.push(hashNumber(entry.number));
    },
    build() {
      const n = texts.count;
      const { keys, slots } = sortedKeys(hashes.done(), Uint32Array.from({ length: n }, (_, i) => i));
      return {
        size: n,
        get(number) {
          const hash = hashNumber(number);
          let found: DirectoryEntry | undefined;
          for (let i = lowerBound(keys, hash); i < keys.length && keys[i] === hash; i++) {
            const [own, name, address, listed] = texts.get(slots[i]).split(SEP);
            if (own === number) found = { number: own, name, address, listed: listed === '1' };
          }
          return found;
        },
      };
    },
  };
}

/**
 * The result of one phone check (docs/decisions.md §17). A number that does not read as a phone number
 * cannot be in any directory: `not_found`, like an unknown one. An unlisted (secret) number is
 * `manual` with `phone_unlisted` and never reveals the name or address behind it. A found
 * number's person is checked as a PersonInput by `checkPerson` (live list or test mode), and the
 * result says whom the directory named.
 */
export function phoneCheckResult(
  id: string | null, entry: DirectoryEntry | null, options: CheckOptions,
  checkPersonFound: (person: PersonInput) => CheckResult,
): CheckResult {
  if (!entry || !entry.listed) {
    const outcome = entry ? 'unlisted' : 'not_found';
    return {
      id,
      status: 'manual',
      reasons: [entry ? 'phone_unlisted' : 'phone_not_found'],
      level: null,
      match: { level: null, code: null, label: null, on: [], previous_address: false, approximate: false },
      stop_level: options.stopLevel,
      address: null,
      phone_lookup: { outcome },
    };
  }
  const result = checkPersonFound({ ...(id !== null ? { id } : {}), name: entry.name, address: entry.address });
  return { ...result, id, phone_lookup: { outcome: 'found', name: entry.name, address: entry.address } };
}
