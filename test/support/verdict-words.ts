/**
 * The verdict columns of a result file as a person reads them, written out here (not taken from
 * the code under test), so the e2e tests that read result files back check the words themselves
 * (docs/files.md "Result files").
 */
type Locale = 'da' | 'en';
interface ResultLike {
  status: string;
  reasons: string[];
  match: { level: number | null; code: string | null; previous_address?: boolean; approximate?: boolean };
}

export const VERDICT_HEADER: Record<Locale, string[]> = {
  da: ['Status', 'Matchniveau', 'Match', 'Årsag', 'Listeversion (udgivet)', 'Navn tilnærmet'],
  en: ['Status', 'Match level', 'Match', 'Reason', 'List version (published)', 'Approximate name'],
};

const STATUS: Record<Locale, Record<string, string>> = {
  da: { blocked: 'Blokeret', allowed: 'Tilladt', manual: 'Manuel vurdering' },
  en: { blocked: 'Blocked', allowed: 'Allowed', manual: 'Manual review' },
};
const MATCH: Record<Locale, Record<string, string>> = {
  da: {
    none: 'Intet match', household: 'Husstand: en anden person på adressen', surname: 'Efternavnet matcher på adressen',
    given_name: 'Fornavnet matcher på adressen', name_building: 'Samme navn, anden bolig i bygningen', name_address: 'Samme navn og adresse',
  },
  en: {
    none: 'No match', household: 'Household: someone else at the address', surname: 'Surname matches at the address',
    given_name: 'Given name matches at the address', name_building: 'Same name, other flat in the building', name_address: 'Same name and address',
  },
};
const REASON: Record<Locale, Record<string, string>> = {
  da: {
    name_and_unit: 'Samme navn og samme bolig på listen', name_and_address: 'Samme navn på adressen på listen',
    household: 'En anden person i boligen står på listen', partial_name: 'Dele af navnet matcher på adressen',
    previous_address: 'Fundet på en tidligere adresse', address_unreadable: 'Adressen kan ikke læses',
    address_not_found: 'Adressen findes ikke i adresseregistret', no_name: 'Intet navn',
    company_protected: 'Virksomheden er reklamebeskyttet', phone_unlisted: 'Hemmeligt telefonnummer', phone_not_found: 'Telefonnummeret findes ikke',
  },
  en: {
    name_and_unit: 'Same name and same home on the list', name_and_address: 'Same name at the address on the list',
    household: 'Someone else in the home is on the list', partial_name: 'Part of the name matches at the address',
    previous_address: 'Found at a previous address', address_unreadable: 'The address cannot be read',
    address_not_found: 'The address is not in the address register', no_name: 'No name',
    company_protected: 'The company is protected from advertising', phone_unlisted: 'Unlisted phone number', phone_not_found: 'Phone number not found',
  },
};

/** Status, match level, match and reason of a result as the file writes them. */
export function verdictInWords(given: object, locale: Locale): string[] {
  const result = given as ResultLike;
  const code = result.match.code;
  const approximate = result.match.approximate ? (locale === 'da' ? ' (navnet afviger: stavefejl eller forbogstav)' : ' (name differs: a slip or an initial)') : '';
  const suffix = approximate + (result.match.previous_address ? (locale === 'da' ? ' (tidligere adresse)' : ' (previous address)') : '');
  return [
    STATUS[locale][result.status],
    result.match.level === null ? '' : String(result.match.level),
    code === null ? '' : MATCH[locale][code] + suffix,
    result.reasons.map((r) => REASON[locale][r] ?? `?${r}`).join('; '),
  ];
}

/** The last verdict column, after the list version: whether the names agreed only approximately. */
export function approximateInWords(given: object, locale: Locale): string {
  const approximate = (given as ResultLike).match.approximate === true;
  return approximate ? (locale === 'da' ? 'Ja' : 'Yes') : (locale === 'da' ? 'Nej' : 'No');
}

export const STATUS_WORDS = STATUS;

export const PHONE_OUTCOME_WORDS: Record<Locale, Record<string, string>> = {
  da: { found: 'Fundet', unlisted: 'Hemmeligt nummer', not_found: 'Ikke fundet' },
  en: { found: 'Found', unlisted: 'Unlisted number', not_found: 'Not found' },
};
