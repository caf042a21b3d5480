import type { CheckResult, Locale, Reason } from './types.ts';

/**
 * A preview row's result with its verdict withheld (docs/uploads.md "Previews of pay-per-list
 * drafts"): how the row was read stays — the address as resolved, and the reasons that say a row
 * cannot be checked at all (no name, an unreadable or unknown address), which tell nothing about the
 * list — while whatever says what the list holds goes: the level, the match, the status it
 * gives, company protection, the phone directory's answer. Status `manual` (never `allowed`): the
 * row has not been checked.
 */
const READING_REASONS: ReadonlySet<Reason> = new Set(['address_unreadable', 'no_name', 'address_not_found', 'list_not_ready']);

export const LABEL: Record<Locale, string> = {
  da: 'Tjekkes, når jobbet er betalt',
  en: 'Checked once the job is paid for',
};

export function withheldVerdict(result: CheckResult, locale: Locale): CheckResult {
  const reasons = result.reasons.filter((reason) => READING_REASONS.has(reason));
  const { company: _company, change: _change, ...rest } = result;
  return {
    ...rest,
    status: 'manual',
    reasons,
    level: null,
    match: { level: null, code: null, label: LABEL[locale], on: [], previous_address: false, approximate: false },
    phone_lookup: null,
  };
}
