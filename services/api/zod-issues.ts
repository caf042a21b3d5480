import type { z } from 'zod';
import type { Locale } from '../domain/types.ts';
import type { IssueRef } from './errors.ts';
import { safeFieldName } from '../ingest/people/errors.ts';
import { ISSUE_TEXTS, issueText } from './issue-texts.ts';

type Path = ReadonlyArray<PropertyKey>;

/** `people[3].last_name` from ['people', 3, 'last_name']; '' for the body itself. */
export function formatPath(path: Path): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export const typeNames: Record<string, Record<Locale, string>> = {
  string: { da: 'tekst', en: 'a string' },
  number: { da: 'et tal', en: 'a number' },
  int: { da: 'et heltal', en: 'an integer' },
  boolean: { da: 'sand eller falsk', en: 'a boolean' },
  array: { da: 'en liste', en: 'an array' },
  object: { da: 'et objekt', en: 'an object' },
};

function typeName(expected: string, locale: Locale): string {
  return typeNames[expected]?.[locale] ?? expected;
}

function valueAt(data: unknown, path: Path): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** The text of a bound the schema sets: characters of a string, items of an array, or a value. */
function sizeText(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): (locale: Locale) => string {
  const big = issue.code === 'too_big';
  const n = String(big ? issue.maximum : issue.minimum);
  const of = issue.origin === 'string' ? 'string' : issue.origin === 'array' ? 'array' : 'value';
  return issueText(`${of}_${big ? 'at_most' : 'at_least'}` as const, { n });
}

/** Messages of the schemas' own checks (`params.reason` of a custom issue). */
export const customIssueTexts: Record<string, Record<Locale, string>> = {
  cvr_format: { da: 'CVR-nummeret skal være 8 cifre.', en: 'The CVR number must be 8 digits.' },
  cvr_check_digit: {
    da: 'CVR-nummeret findes ikke: kontrolcifferet (modulus 11) passer ikke.',
    en: 'The CVR number cannot exist: its check digit (modulus 11) is wrong.',
  },
  company_unnamed: { da: 'Angiv cvr eller name.', en: 'Give cvr or name.' },
};

/**
 * Turns zod issues into the contract's `details.issues` with our own messages in da and en.
 * zod's texts are not used: they are English only, and some would quote the caller's input.
 */
export function issuesFromZod(issues: readonly z.core.$ZodIssue[], data: unknown): IssueRef[] {
  const out: IssueRef[] = [];
  for (const issue of issues) {
    const path = formatPath(issue.path);
    switch (issue.code) {
      case 'invalid_type': {
        const missing = valueAt(data, issue.path) === undefined;
        out.push({
          path,
          describe: (l) =>
            missing
              ? ISSUE_TEXTS.required[l]
              : issueText('must_be_type', { type: typeName(issue.expected, l) })(l),
        });
        break;
      }
      case 'too_big':
      case 'too_small':
        out.push({ path, describe: sizeText(issue) });
        break;
      case 'invalid_value': {
        const options = issue.values.map((v) => JSON.stringify(v)).join(', ');
        out.push({ path, describe: issueText('must_be_one_of', { options }) });
        break;
      }
      case 'unrecognized_keys':
        // A key is echoed only when it looks like a field name: a name or an address sent as a key
        // by mistake is reported at the object holding it (the same rule as the streaming intake).
        for (const key of issue.keys) {
          const field = safeFieldName(key);
          out.push({
            path: formatPath(field === null ? issue.path : [...issue.path, field]),
            describe: issueText('unknown_field'),
          });
        }
        break;
      case 'invalid_format':
        out.push({ path, describe: issueText('invalid_format', { format: issue.format }) });
        break;
      case 'custom': {
        const text = customIssueTexts[String(issue.params?.reason)];
        out.push({ path, describe: (l) => text?.[l] ?? ISSUE_TEXTS.invalid_value[l] });
        break;
      }
      default:
        out.push({ path, describe: issueText('invalid_value') });
    }
  }
  return out;
}
