import type { Locale } from './types.ts';

/**
 * A catalogue text with `{name}` placeholders filled in (docs/architecture.md "Conventions"):
 * the text stays one row of its table in both languages, and only the number, list or name that
 * the code knows goes in. A placeholder with no value is left visible rather than dropped, so a
 * missing value shows in a test instead of reading as a shorter sentence.
 */
export function fillText(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (all, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : all));
}

/** A count as a reader of `locale` writes it (1.000 in Danish, 1,000 in English). */
export function countIn(locale: Locale, value: number): string {
  return value.toLocaleString(locale === 'da' ? 'da-DK' : 'en');
}
