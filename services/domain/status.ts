import type { Locale, MatchCode, MatchPolicy, Status } from './types.ts';

/**
 * Level → status (docs/decisions.md §2), for a stop line S:
 * - standard: blocked when level ≥ S except level 1; level 1 is manual when 1 ≥ S (else allowed);
 *   level null manual; allowed when level < S.
 * - strict: blocked when level ≥ 1 or level ≥ S; level null manual; level 0 allowed (when 0 < S).
 * - bdq: blocked when any list entry is in the building, whatever the names; level null manual;
 *   allowed when nothing is in the building.
 * A null level (address unreadable, no name) is never allowed.
 * `anyEntryInBuilding` only matters for bdq; it defaults to "the level says so" (level ≥ 1).
 */
export function statusFor(
  level: number | null,
  policy: MatchPolicy,
  stopLevel: number,
  anyEntryInBuilding: boolean = level !== null && level >= 1,
): Status {
  if (level === null) return 'manual';
  switch (policy) {
    case 'strict':
      return level >= 1 || level >= stopLevel ? 'blocked' : 'allowed';
    case 'bdq':
      return anyEntryInBuilding || level >= 1 ? 'blocked' : 'allowed';
    default:
      if (level === 1) return 1 >= stopLevel ? 'manual' : 'allowed';
      return level >= stopLevel ? 'blocked' : 'allowed';
  }
}

export const LABELS: Record<MatchCode, Record<Locale, string>> = {
  none: { da: 'Intet match', en: 'No match' },
  household: { da: 'Husstand: en anden person på adressen', en: 'Household: someone else at the address' },
  surname: { da: 'Efternavnet matcher på adressen', en: 'Surname matches at the address' },
  given_name: { da: 'Fornavnet matcher på adressen', en: 'Given name matches at the address' },
  name_building: { da: 'Samme navn, anden bolig i bygningen', en: 'Same name, other flat in the building' },
  name_address: { da: 'Samme navn og adresse', en: 'Same name and address' },
};

export const PREVIOUS_SUFFIX: Record<Locale, string> = { da: ' (tidligere adresse)', en: ' (previous address)' };
export const APPROXIMATE_SUFFIX: Record<Locale, string> = {
  da: ' (navnet afviger: stavefejl eller forbogstav)', en: ' (name differs: a slip or an initial)',
};

/**
 * The short human text of a match in the request locale; null for a null code (no level: the
 * reasons say why). `previousAddress` adds "(previous address)", `approximate` (names that agree
 * only through a slip or an initial) "(name differs: a slip or an initial)": never silently.
 */
export function matchLabel(
  code: MatchCode | null, locale: Locale, previousAddress = false, approximate = false,
): string | null {
  if (code === null) return null;
  const labels = LABELS[code];
  if (labels === undefined) return null;
  const lang: Locale = locale === 'en' ? 'en' : 'da';
  let label = labels[lang];
  if (approximate) label += APPROXIMATE_SUFFIX[lang];
  return previousAddress ? label + PREVIOUS_SUFFIX[lang] : label;
}
