import type { CheckResult, Locale } from './types.ts';

/**
 * A preview row read while no national list version is active (docs/uploads.md "Drafts before a list
 * is active"): the only place a result carries the reason `list_not_ready`. `reading` is the row
 * checked against an empty list, so it holds how the row is read (the address as resolved, and
 * `no_name` / `address_unreadable` / `address_not_found`) and nothing about any list. A row that can
 * be read gets `list_not_ready` as well; a row that cannot keeps only the reason it cannot (no list
 * would change that). Status `manual`, never `allowed`: nobody has been checked.
 */
export const LABEL: Record<Locale, string> = {
  da: 'Listen er ikke klar endnu',
  en: 'The list is not ready yet',
};

export function listNotReadyResult(reading: CheckResult, locale: Locale): CheckResult {
  const unreadable = reading.reasons.some((r) => r === 'no_name' || r === 'address_unreadable');
  const { company: _company, change: _change, list_version: _version, ...rest } = reading;
  return {
    ...rest,
    status: 'manual',
    reasons: unreadable ? reading.reasons : [...reading.reasons.filter((r) => r === 'address_not_found'), 'list_not_ready'],
    level: null,
    match: { level: null, code: null, label: unreadable ? reading.match.label : LABEL[locale], on: [], previous_address: false, approximate: false },
    phone_lookup: null,
  };
}
