import type { CheckJobOptions, ColumnMapping } from '../../domain/check-job.ts';
import { parseAddress } from '../../domain/address.ts';
import { parseName } from '../../domain/name.ts';
import type { CheckResult, Locale, PersonInput } from '../../domain/types.ts';
import { PermanentError } from '../../platform/errors.ts';
import { fillText } from '../../domain/text-template.ts';

/**
 * What a file's column mapping would silently get wrong (docs/uploads.md "Warnings before a
 * check"): no column read as the name or the address, or most of the first rows unreadable. Such a
 * file would be checked with every row a manual verdict, and billed. A draft shows the warnings and
 * starts only when they are confirmed; a file that starts at once (SFTP, email, connectors,
 * `options.start`) is refused with them. Pure: values in, values out.
 */
export type MappingWarningCode = 'no_name_column' | 'no_address_column' | 'mostly_unreadable' | 'no_phone_column' | 'no_company_column';

export interface MappingWarning {
  code: MappingWarningCode;
  /** For `mostly_unreadable`: unreadable rows among the first rows looked at. */
  rows?: { unreadable: number; of: number };
}

/** More than this share of the first rows unreadable is "mostly". */
export const MOSTLY_UNREADABLE_SHARE = 0.5;

type Checks = Pick<CheckJobOptions, 'check_people' | 'check_companies' | 'check_phones'>;

/**
 * The warnings of a mapping, given which of the first data rows (up to 20) cannot be read
 * (`unreadable[i]`: no readable address or no name). The row warning is left out when a column
 * warning already says why (every row is unreadable without an address column).
 */
export function mappingWarnings(mapping: ColumnMapping | null, options: Checks, unreadable: readonly boolean[]): MappingWarning[] {
  const warnings: MappingWarning[] = [];
  const has = (...fields: Array<keyof ColumnMapping>) => mapping !== null && fields.some((f) => f !== 'header_row' && mapping[f] !== undefined);
  if (options.check_people ?? true) {
    if (!has('name', 'first_name', 'last_name')) warnings.push({ code: 'no_name_column' });
    if (!has('address', 'street')) warnings.push({ code: 'no_address_column' });
    const count = unreadable.filter(Boolean).length;
    if (warnings.length === 0 && unreadable.length > 0 && count / unreadable.length > MOSTLY_UNREADABLE_SHARE) {
      warnings.push({ code: 'mostly_unreadable', rows: { unreadable: count, of: unreadable.length } });
    }
  }
  if (options.check_phones === true && !has('phone')) warnings.push({ code: 'no_phone_column' });
  if (options.check_companies === true && !has('cvr', 'company_name')) warnings.push({ code: 'no_company_column' });
  return warnings;
}

/** A checked row that has no level because its address or name could not be read. */
export function isUnreadableResult(result: CheckResult): boolean {
  return result.match.level === null && result.reasons.some((r) => r === 'address_unreadable' || r === 'no_name');
}

/**
 * A row read as the check would, without a list: no name, or no street, house number and postal
 * code (or kvhx). For files that start at once, which have no list index to check a preview with;
 * the check itself may still read an address without a postal code from the address register, so
 * this errs on the side of warning.
 */
export function isUnreadablePerson(person: PersonInput): boolean {
  return parseName(person) === null || parseAddress(person) === null;
}

/** The warnings in words (docs/architecture.md "Conventions"): `{unreadable}` and `{of}` are counts of rows, never a cell. */
export const MAPPING_WARNING_TEXTS: Record<MappingWarningCode, Record<Locale, string>> = {
  no_name_column: {
    da: 'Ingen kolonne blev genkendt som navn. Uden navn kan ingen række tjekkes; vælg navnekolonnen (Navn, eller Fornavn og Efternavn).',
    en: 'No column was recognised as the name. Without a name no row can be checked; choose the name column (Name, or First name and Last name).',
  },
  no_address_column: {
    da: 'Ingen kolonne blev genkendt som adresse. Uden adresse ender hver række som manuel vurdering; vælg kolonnen med vej og husnummer.',
    en: 'No column was recognised as the address. Without an address every row ends as a manual review; choose the column with street and number.',
  },
  no_phone_column: {
    da: 'Telefontjek er valgt, men ingen kolonne blev genkendt som telefonnummer.',
    en: 'Phone checks are chosen, but no column was recognised as the phone number.',
  },
  no_company_column: {
    da: 'Virksomhedstjek er valgt, men ingen kolonne blev genkendt som CVR-nummer eller virksomhedsnavn.',
    en: 'Company checks are chosen, but no column was recognised as CVR number or company name.',
  },
  mostly_unreadable: {
    da: '{unreadable} af de første {of} rækker kan ikke læses (ulæselig adresse eller intet navn). Kontrollér, at de rigtige kolonner er valgt.',
    en: '{unreadable} of the first {of} rows cannot be read (unreadable address or no name). Check that the right columns are chosen.',
  },
};

/** The warning in words, in `locale`; it names no cell of the file. */
export function mappingWarningText(warning: MappingWarning, locale: Locale): string {
  const { unreadable, of } = warning.rows ?? { unreadable: 0, of: 0 };
  return fillText(MAPPING_WARNING_TEXTS[warning.code][locale], { unreadable, of });
}

/** A draft with warnings that was started without confirming them: nothing was started. */
export class MappingWarningsError extends PermanentError {
  readonly warnings: MappingWarning[];
  constructor(warnings: MappingWarning[]) {
    super(`unconfirmed mapping warnings: ${warnings.map((w) => w.code).join(', ')}`);
    this.name = 'MappingWarningsError';
    this.warnings = warnings;
  }
}

const REFUSAL_PREFIX = 'mapping_warnings:';
const CODES: readonly MappingWarningCode[] = ['no_name_column', 'no_address_column', 'mostly_unreadable', 'no_phone_column', 'no_company_column'];

/**
 * A file refused for its warnings, as one code an inbound claim can keep
 * (`mapping_warnings:no_address_column,mostly_unreadable@17/20`), so the reply sent later tells
 * exactly what the refusal said. No cell of the file is in it.
 */
export function warningsRefusalCode(warnings: readonly MappingWarning[]): string {
  return REFUSAL_PREFIX + warnings.map((w) => (w.rows ? `${w.code}@${w.rows.unreadable}/${w.rows.of}` : w.code)).join(',');
}

/** The warnings of a code warningsRefusalCode made; null for any other code. */
export function warningsOfRefusalCode(code: string): MappingWarning[] | null {
  if (!code.startsWith(REFUSAL_PREFIX)) return null;
  const warnings: MappingWarning[] = [];
  for (const part of code.slice(REFUSAL_PREFIX.length).split(',')) {
    const match = /^([a-z_]+)(?:@(\d+)\/(\d+))?$/.exec(part);
    const known = match && CODES.find((c) => c === match[1]);
    if (!match || !known) return null;
    warnings.push(match[2] === undefined ? { code: known } : { code: known, rows: { unreadable: Number(match[2]), of: Number(match[3]) } });
  }
  return warnings;
}

/**
 * The explanation a file refused for its warnings gets back (SFTP error file, email reply): each
 * warning, that nothing was checked or billed, and what to do.
 */
export function warningsRefusalTexts(warnings: readonly MappingWarning[]): Record<Locale, string> {
  const of = (l: Locale) => warnings.map((w) => mappingWarningText(w, l)).join(' ');
  return {
    da: `${of('da')} Intet er tjekket, og intet er faktureret. Giv kolonnerne overskrifter som Navn, Adresse og Postnr (eller gem kolonnerne i siden under en kladde af filen med "Gem kolonnerne": de gælder så for senere filer med de samme overskrifter på alle kanaler), og send filen igen.`,
    en: `${of('en')} Nothing was checked and nothing was billed. Give the columns headers such as Name, Address and Postal code (or save the columns in the page under a draft of the file with "Save the columns": they then apply to later files with the same headers on every channel), and send the file again.`,
  };
}
