import { parseAddress } from './address.ts';
import { resultFor, unreadResult } from './check.ts';
import { parseName } from './name.ts';
import { addressInputOf, toResolvedAddress } from './resolve.ts';
import type { CheckOptions, CheckResult, ListVersionRef, PersonInput, PhoneLookup, Reason } from './types.ts';

/**
 * Fixed results for `rl_test_` keys (DECISIONS §3): never touches list data. The surname (or the
 * last word of `name`) picks the level; the result then looks exactly like a live match at the
 * person's own unit (level 4 as "other flat in the building", deprecated level `building`).
 */
export const TEST_LIST_VERSION: ListVersionRef = Object.freeze({
  id: '00000000-0000-4000-8000-000000000001',
  source: 'cpr',
  published_on: '2026-01-01',
}) as ListVersionRef;

/** Folded surname → level. */
const TEST_LEVELS: Record<string, number> = {
  robinson: 5, bygning: 4, fornavn: 3, efternavn: 2, husstand: 1,
};

export function testModeLevel(person: PersonInput): number | null {
  const name = parseName(person);
  if (name === null) return null;
  return TEST_LEVELS[name.surname] ?? 0;
}

export function testModeCheck(person: PersonInput, options: CheckOptions): CheckResult {
  const input: PersonInput = person !== null && typeof person === 'object' ? person : {};
  const id = typeof input.id === 'string' ? input.id : null;
  const addressText = addressInputOf(input);
  const parsed = addressText.trim() === '?' ? null : parseAddress(input);
  const address = addressText === '' && parsed === null ? null : toResolvedAddress(parsed, addressText);
  const name = parseName(input);
  if (parsed === null || name === null) {
    const reasons: Reason[] = [];
    if (parsed === null) reasons.push('address_unreadable');
    if (name === null) reasons.push('no_name');
    return unreadResult(id, reasons, address, options);
  }
  const level = TEST_LEVELS[name.surname] ?? 0;
  return resultFor(id, { level, base: level, previous: false, sameFloor: false }, level > 0, address, options);
}

function digitsOf(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 48 && c <= 57) out += value[i];
  }
  return out;
}

/** A made-up person for every test phone number that is "found" (level 0 in testModeCheck). */
export const TEST_PHONE_PERSON = Object.freeze({
  name: 'Test Testesen',
  address: 'Testvej 1, 1000 København K',
});

/** §3: numbers ending in 0000 are not found, in 1111 unlisted, all others found. */
export function testModePhoneLookup(phone: string): PhoneLookup {
  const digits = typeof phone === 'string' ? digitsOf(phone) : '';
  if (digits.endsWith('0000')) return { outcome: 'not_found' };
  if (digits.endsWith('1111')) return { outcome: 'unlisted' };
  return { outcome: 'found', name: TEST_PHONE_PERSON.name, address: TEST_PHONE_PERSON.address };
}

/** §3: CVR 00000000..00000099 are protected companies in test mode. */
export function isTestProtectedCvr(cvr: string): boolean {
  if (typeof cvr !== 'string') return false;
  const digits = cvr.replace(/[\s-]/g, '').replace(/^DK/i, '');
  return /^\d{8}$/.test(digits) && Number(digits) <= 99;
}
