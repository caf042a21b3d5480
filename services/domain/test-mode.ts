import { readPerson, resultFor } from './check.ts';
import type { CompanyInput, CompanyRecord } from './company.ts';
import { canonicalCvr } from './cvr.ts';
import type { DirectoryEntry } from './phone.ts';
import type { CheckOptions, CheckResult, ListVersionRef, PersonInput, PhoneLookup } from './types.ts';

/**
 * Fixed results for `rl_test_` keys (docs/decisions.md §3): never touches list data. The surname (or the
 * last word of `name`) picks the level; the result then looks exactly like a live match at the
 * person's own unit (level 4 as "other flat in the building", deprecated level `building`).
 */
export const TEST_LIST_VERSION: ListVersionRef = Object.freeze({
  id: '00000000-0000-4000-8000-000000000001',
  source: 'cpr',
  published_on: '2026-01-01',
});

/** Folded surname → level. */
const TEST_LEVELS: ReadonlyMap<string, number> = new Map([
  ['robinson', 5], ['bygning', 4], ['fornavn', 3], ['efternavn', 2], ['husstand', 1],
]);

/** §3: the address `?` is unreadable, whatever else the person says. */
const isQuestionMark = (addressText: string): boolean => addressText.trim() === '?';

export function testModeCheck(person: PersonInput, options: CheckOptions): CheckResult {
  const read = readPerson(person, options, isQuestionMark);
  if (read.unread) return read.unread;
  const level = TEST_LEVELS.get(read.name.surname) ?? 0;
  return resultFor(read.id, { level, base: level, previous: false, sameFloor: false, approximate: false }, level > 0, read.address, options);
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
const TEST_PHONE_PERSON = Object.freeze({
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

/**
 * The §3 phone answers as a directory entry (what phoneCheckResult takes): not found → null,
 * unlisted → a secret entry (nothing of it is ever shown), found → the made-up person.
 */
export function testModeDirectoryEntry(phone: string): DirectoryEntry | null {
  const lookup = testModePhoneLookup(phone);
  if (lookup.outcome === 'not_found') return null;
  return { number: phone, name: lookup.name ?? '', address: lookup.address ?? '', listed: lookup.outcome === 'found' };
}

/** §3: CVR 00000000..00000099 are protected companies in test mode. */
export function isTestProtectedCvr(cvr: string): boolean {
  if (typeof cvr !== 'string') return false;
  const digits = cvr.replace(/[\s-]/g, '').replace(/^DK/i, '');
  return /^\d{8}$/.test(digits) && Number(digits) <= 99;
}

/** The fixed register "import time" of test-mode company results. */
export const TEST_REGISTER_SYNCED_AT = '2026-01-01T00:00:00.000Z';

/**
 * §3 company results for test keys, without any register: CVR 00000000..00000099 are protected
 * (`A/S`), any other CVR and any name is an unprotected `ApS`, so no owner is checked.
 */
export function testModeCompany(input: CompanyInput): CompanyRecord | null {
  const cvr = typeof input.cvr === 'string' && input.cvr.trim() !== '' ? canonicalCvr(input.cvr) : null;
  if (cvr !== null) {
    const isProtected = isTestProtectedCvr(cvr);
    return { cvr, name: isProtected ? 'Test Reklamebeskyttet A/S' : 'Test Virksomhed ApS', form: isProtected ? 'A/S' : 'ApS', protected: isProtected, owner: null };
  }
  if (typeof input.name === 'string' && input.name.trim() !== '') {
    return { cvr: '00000100', name: input.name, form: 'ApS', protected: false, owner: null };
  }
  return null;
}
