import type { Locale } from '../domain/types.ts';
import { countIn, fillText } from '../domain/text-template.ts';
import type { IssueRef } from './errors.ts';

/**
 * The texts of a validation issue (`details.issues[].message`), in both languages, in one voice
 * for every route (zod-issues.ts, the upload and mapping checks). Like every text of the edge
 * they never hold a value the caller sent (it may be personal data): a `{placeholder}` takes only
 * a limit, an allowed option or a type the schema itself states.
 */
export const ISSUE_TEXTS = {
  required: { da: 'Skal udfyldes.', en: 'Is required.' },
  unknown_field: { da: 'Ukendt felt.', en: 'Unknown field.' },
  unknown_form_field: { da: 'Ukendt felt (felterne står i formularen).', en: 'Unknown field (fields go in the form).' },
  unknown_upload_field: { da: 'Ukendt felt; filen skal ligge i feltet file.', en: 'Unknown field; the file goes in the field file.' },
  field_too_large: { da: 'Feltet er for stort.', en: 'The field is too large.' },
  field_given_twice: { da: 'Feltet er angivet to gange.', en: 'The field is given twice.' },
  one_file_per_job: { da: 'Kun én fil pr. job.', en: 'Only one file per job.' },
  too_many_form_fields: { da: 'For mange felter i formularen.', en: 'Too many fields in the form.' },
  given_twice: {
    da: 'Angivet både i forespørgselsstrengen og i indholdet.',
    en: 'Given both in the query string and in the body.',
  },
  invalid_value: { da: 'Ugyldig værdi.', en: 'Invalid value.' },
  invalid_json_field: { da: 'Skal være gyldig JSON.', en: 'Must be valid JSON.' },
  invalid_cursor: { da: 'Ugyldig cursor.', en: 'Invalid cursor.' },
  invalid_job_cursor: { da: 'Ugyldig cursor for dette job.', en: 'Invalid cursor for this job.' },
  unknown_job: { da: 'Ukendt job.', en: 'Unknown job.' },
  no_query_parameters: { da: 'Ingen parametre i forespørgselsstrengen her.', en: 'No query parameters here.' },
  only_contacts_replaceable: { da: 'Kun kontakter kan erstattes.', en: 'Only the contacts can be replaced.' },
  at_least_one_contact: { da: 'Mindst én kontakt.', en: 'At least one contact.' },
  at_most_contacts: { da: 'Højst {limit} kontakter.', en: 'At most {limit} contacts.' },
  only_monitor_jobs: { da: 'Kun for job fra en overvågning.', en: 'Only for jobs of a monitor.' },
  // The schemas' own bounds, types and options (zod-issues.ts).
  must_be_type: { da: 'Skal være {type}.', en: 'Must be {type}.' },
  must_be_one_of: { da: 'Skal være en af {options}.', en: 'Must be one of {options}.' },
  invalid_format: { da: 'Ugyldigt format ({format}).', en: 'Invalid format ({format}).' },
  string_at_most: { da: 'Må højst være {n} tegn.', en: 'Must be at most {n} characters.' },
  string_at_least: { da: 'Må mindst være {n} tegn.', en: 'Must be at least {n} characters.' },
  array_at_most: { da: 'Skal have højst {n} elementer.', en: 'Must have at most {n} items.' },
  array_at_least: { da: 'Skal have mindst {n} elementer.', en: 'Must have at least {n} items.' },
  value_at_most: { da: 'Skal være højst {n}.', en: 'Must be at most {n}.' },
  value_at_least: { da: 'Skal være mindst {n}.', en: 'Must be at least {n}.' },
} as const satisfies Record<string, Readonly<Record<Locale, string>>>;

/**
 * A column mapping the file cannot take (`column_mapping.<field>`, of an upload, a preview or a
 * start); the codes are services/ingest's ColumnMappingError's.
 */
export const MAPPING_ISSUE_TEXTS = {
  column_not_found: { da: 'Kolonnen findes ikke i filen.', en: 'The column does not exist in the file.' },
  no_header_row: {
    da: 'Filen har ingen overskriftsrække; angiv kolonnen med nummer (0 er den første).',
    en: 'The file has no header row; give the column by index (0 is the first).',
  },
  no_columns_mapped: { da: 'Mindst ét felt skal knyttes til en kolonne.', en: 'At least one field must be mapped to a column.' },
  header_row_out_of_range: { da: 'Overskriftsrækken findes ikke i filen.', en: 'The header row does not exist in the file.' },
  column_unusable: { da: 'Kolonnen kan ikke bruges.', en: 'The column cannot be used.' },
  no_headers_to_match: {
    da: 'Filen har ingen overskriftsrække, som en senere fil kan genkendes på; kolonnerne kan ikke gemmes.',
    en: 'The file has no header row a later file could be recognised by; the columns cannot be saved.',
  },
  too_many_saved: { da: 'Højst {max} gemte kolonnevalg; slet et, der ikke bruges.', en: 'At most {max} saved column mappings; delete one that is not used.' },
} as const satisfies Record<string, Readonly<Record<Locale, string>>>;

export type IssueTextKey = keyof typeof ISSUE_TEXTS;

/** Values for a text's placeholders, per language when they are written differently (a count). */
type Values = Readonly<Record<string, string | number>> | ((locale: Locale) => Readonly<Record<string, string | number>>);

/** The issue's text in the caller's language. */
export function issueText(key: IssueTextKey, values?: Values): (locale: Locale) => string {
  if (values === undefined) return (locale) => ISSUE_TEXTS[key][locale];
  return (locale) => fillText(ISSUE_TEXTS[key][locale], typeof values === 'function' ? values(locale) : values);
}

/** An issue at `path` with one of the texts. */
export function issueAt(path: string, key: IssueTextKey, values?: Values): IssueRef {
  return { path, describe: issueText(key, values) };
}

/** "At most {limit} contacts" with the limit written as the reader's language writes numbers. */
export function atMostContacts(path: string, limit: number): IssueRef {
  return issueAt(path, 'at_most_contacts', (locale) => ({ limit: countIn(locale, limit) }));
}
