import { matchLabel } from '../../domain/status.ts';
import type { CheckResult, Locale, Reason, Status } from '../../domain/types.ts';

/**
 * The verdict of a row in words a marketer reads (docs/files.md "Result files"): the status as
 * Blokeret / Tilladt / Manuel vurdering, the match as its label, the reasons as sentences. The
 * API's machine codes stay in the JSON results; files are for people. Pure.
 */
export const STATUS_WORDS: Record<Status, Record<Locale, string>> = {
  blocked: { da: 'Blokeret', en: 'Blocked' },
  allowed: { da: 'Tilladt', en: 'Allowed' },
  manual: { da: 'Manuel vurdering', en: 'Manual review' },
};

export const REASON_WORDS: Record<Reason, Record<Locale, string>> = {
  name_and_unit: { da: 'Samme navn og samme bolig på listen', en: 'Same name and same home on the list' },
  name_and_address: { da: 'Samme navn på adressen på listen', en: 'Same name at the address on the list' },
  household: { da: 'En anden person i boligen står på listen', en: 'Someone else in the home is on the list' },
  partial_name: { da: 'Dele af navnet matcher på adressen', en: 'Part of the name matches at the address' },
  previous_address: { da: 'Fundet på en tidligere adresse', en: 'Found at a previous address' },
  address_unreadable: { da: 'Adressen kan ikke læses', en: 'The address cannot be read' },
  address_not_found: { da: 'Adressen findes ikke i adresseregistret', en: 'The address is not in the address register' },
  no_name: { da: 'Intet navn', en: 'No name' },
  company_protected: { da: 'Virksomheden er reklamebeskyttet', en: 'The company is protected from advertising' },
  phone_unlisted: { da: 'Hemmeligt telefonnummer', en: 'Unlisted phone number' },
  phone_not_found: { da: 'Telefonnummeret findes ikke', en: 'Phone number not found' },
  list_not_ready: { da: 'Listen var ikke klar', en: 'The list was not ready' },
};

export const PHONE_OUTCOME_WORDS: Record<'found' | 'unlisted' | 'not_found', Record<Locale, string>> = {
  found: { da: 'Fundet', en: 'Found' },
  unlisted: { da: 'Hemmeligt nummer', en: 'Unlisted number' },
  not_found: { da: 'Ikke fundet', en: 'Not found' },
};

export function statusWord(status: Status, locale: Locale): string {
  return STATUS_WORDS[status]?.[locale] ?? status;
}

export function reasonWords(reasons: readonly Reason[], locale: Locale): string {
  return reasons.map((r) => REASON_WORDS[r]?.[locale] ?? r).join('; ');
}

export function phoneOutcomeWord(outcome: string, locale: Locale): string {
  return PHONE_OUTCOME_WORDS[outcome as keyof typeof PHONE_OUTCOME_WORDS]?.[locale] ?? outcome;
}

/** The match in words: the level's label; '' when there is no level (the reason says why). */
export function matchWords(result: CheckResult, locale: Locale): string {
  return matchLabel(result.match.code, locale, result.match.previous_address, result.match.approximate === true) ?? '';
}

/** Whether the names agreed only through a slip or an initial: Ja / Nej, Yes / No. */
export function approximateWord(approximate: boolean, locale: Locale): string {
  return approximate ? (locale === 'en' ? 'Yes' : 'Ja') : (locale === 'en' ? 'No' : 'Nej');
}

export type Change = 'newly_blocked' | 'released' | 'changed_level';

/** A monitor re-check's change of a contact (docs/monitors.md "How a re-check reports"), in words. */
const CHANGE_WORDS: Record<Change | 'none', Record<Locale, string>> = {
  newly_blocked: { da: 'Ny blokeret', en: 'Newly blocked' },
  released: { da: 'Frigivet', en: 'Released' },
  changed_level: { da: 'Andet matchniveau', en: 'Match level changed' },
  none: { da: 'Uændret', en: 'Unchanged' },
};

export function changeWord(change: Change | null | undefined, locale: Locale): string {
  return CHANGE_WORDS[change ?? 'none'][locale];
}

/** The legend's rows for the change column: every change word with its meaning. */
export function changeLegend(locale: Locale): Array<[string, string]> {
  const meaning: Record<Change | 'none', Record<Locale, string>> = {
    newly_blocked: {
      da: 'Blokeret nu, men ikke ved sidste tjek (ved det første tjek: alle blokerede).',
      en: 'Blocked now, not at the last check (at the first check: everyone blocked).',
    },
    released: { da: 'Blokeret ved sidste tjek, ikke nu: må kontaktes igen, hvis status er Tilladt.', en: 'Blocked at the last check, not now: may be contacted again if the status is Allowed.' },
    changed_level: { da: 'Samme side af stoplinjen, men matchniveauet er ændret.', en: 'The same side of the stop line, but the match level moved.' },
    none: { da: 'Intet er ændret siden sidste tjek.', en: 'Nothing changed since the last check.' },
  };
  return (['newly_blocked', 'released', 'changed_level', 'none'] as const).map((c) => [CHANGE_WORDS[c][locale], meaning[c][locale]]);
}

/** The rows of the legend: every status and reason with its meaning. */
export function statusLegend(locale: Locale): Array<[string, string]> {
  const meaning: Record<Status, Record<Locale, string>> = {
    blocked: { da: 'Må ikke kontaktes.', en: 'Must not be contacted.' },
    allowed: { da: 'Må kontaktes.', en: 'May be contacted.' },
    manual: {
      da: 'Skal vurderes manuelt, før personen kontaktes (f.eks. en anden person i boligen, eller en adresse der ikke kan læses).',
      en: 'Must be reviewed before the person is contacted (e.g. someone else in the home, or an address that cannot be read).',
    },
  };
  return (['blocked', 'manual', 'allowed'] as const).map((s) => [STATUS_WORDS[s][locale], meaning[s][locale]]);
}

export function reasonLegend(locale: Locale): string[] {
  return (Object.keys(REASON_WORDS) as Reason[]).filter((r) => r !== 'list_not_ready').map((r) => REASON_WORDS[r][locale]);
}
