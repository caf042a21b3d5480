import type { z } from 'zod';
import type { Locale } from '../domain/types.ts';
import type { IssueRef } from './errors.ts';
import { safeFieldName } from '../ingest/people/errors.ts';

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

const typeNames: Record<string, Record<Locale, string>> = {
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

function sizeText(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, locale: Locale): string {
  const big = issue.code === 'too_big';
  const limit = big ? issue.maximum : issue.minimum;
  const n = String(limit);
  const bound = big ? { da: 'højst', en: 'at most' } : { da: 'mindst', en: 'at least' };
  switch (issue.origin) {
    case 'string':
      return locale === 'da' ? `Må ${big ? 'højst' : 'mindst'} være ${n} tegn.` : `Must be ${bound.en} ${n} characters.`;
    case 'array':
      return locale === 'da' ? `Skal have ${bound.da} ${n} elementer.` : `Must have ${bound.en} ${n} items.`;
    default:
      return locale === 'da' ? `Skal være ${bound.da} ${n}.` : `Must be ${bound.en} ${n}.`;
  }
}

/** Messages of the schemas' own checks (`params.reason` of a custom issue). */
const customIssueTexts: Record<string, Record<Locale, string>> = {
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
              ? l === 'da' ? 'Skal udfyldes.' : 'Is required.'
              : l === 'da' ? `Skal være ${typeName(issue.expected, l)}.` : `Must be ${typeName(issue.expected, l)}.`,
        });
        break;
      }
      case 'too_big':
      case 'too_small':
        out.push({ path, describe: (l) => sizeText(issue, l) });
        break;
      case 'invalid_value': {
        const options = issue.values.map((v) => JSON.stringify(v)).join(', ');
        out.push({ path, describe: (l) => (l === 'da' ? `Skal være en af ${options}.` : `Must be one of ${options}.`) });
        break;
      }
      case 'unrecognized_keys':
        // A key is echoed only when it looks like a field name: a name or an address sent as a key
        // by mistake is reported at the object holding it (the same rule as the streaming intake).
        for (const key of issue.keys) {
          const field = safeFieldName(key);
          out.push({
            path: formatPath(field === null ? issue.path : [...issue.path, field]),
            describe: (l) => (l === 'da' ? 'Ukendt felt.' : 'Unknown field.'),
          });
        }
        break;
      case 'invalid_format':
        out.push({ path, describe: (l) => (l === 'da' ? `Ugyldigt format (${issue.format}).` : `Invalid format (${issue.format}).`) });
        break;
      case 'custom': {
        const text = customIssueTexts[String(issue.params?.reason)];
        out.push({ path, describe: (l) => text?.[l] ?? (l === 'da' ? 'Ugyldig værdi.' : 'Invalid value.') });
        break;
      }
      default:
        out.push({ path, describe: (l) => (l === 'da' ? 'Ugyldig værdi.' : 'Invalid value.') });
    }
  }
  return out;
}
