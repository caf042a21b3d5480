import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * Phone numbers to E.164 (DECISIONS §17: +45 when no country code). libphonenumber-js carries the
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
