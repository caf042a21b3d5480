import type { Locale, PageTexts } from './contract.ts';

const LOCALE_KEY = 'robinson.locale';

/** The page's texts, loaded once; `t` formats `{name}` placeholders. */
export interface Texts {
  locale: Locale;
  t(key: string, values?: Record<string, string | number>): string;
  number(value: number): string;
  dateTime(iso: string): string;
  fields: string[];
  level(level: number): string;
  verdictHeaders(): readonly string[];
  /** One of the API's sentences, given in `from`, in this language; null when it is not one of them. */
  apiMessage(text: string, from: Locale): string | null;
  /** The field an issue's API path names, in words (`rows[2].name` → "Række 3, Fulde navn"); null when the page has no words for it. */
  fieldLabel(path: string): string | null;
  /** Whether `text` is the API's "See details.issues" sentence (in either language): words for programmers. */
  isApiValidation(text: string): boolean;
}

export async function loadTexts(): Promise<PageTexts> {
  const response = await fetch('/app/texts.json');
  if (!response.ok) throw new Error(`texts.json: ${response.status}`);
  return (await response.json()) as PageTexts;
}

/**
 * The language: the one chosen on the page (kept in localStorage, it holds no secret), else the
 * browser's first of Danish and English, else Danish (the API's default too).
 */
export function initialLocale(): Locale {
  const chosen = localStorage.getItem(LOCALE_KEY);
  if (chosen === 'da' || chosen === 'en') return chosen;
  for (const language of navigator.languages ?? [navigator.language]) {
    const primary = language.toLowerCase().split('-')[0];
    if (primary === 'da' || primary === 'en') return primary;
  }
  return 'da';
}

export function rememberLocale(locale: Locale): void {
  localStorage.setItem(LOCALE_KEY, locale);
}

export function textsFor(all: PageTexts, locale: Locale): Texts {
  const messages = all.messages[locale];
  const numbers = new Intl.NumberFormat(locale === 'da' ? 'da-DK' : 'en-GB');
  const dates = new Intl.DateTimeFormat(locale === 'da' ? 'da-DK' : 'en-GB', { dateStyle: 'short', timeStyle: 'short' });
  const fill = (text: string, values: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (_all, name: string) => String(values[name] ?? ''));
  const number = (value: number) => numbers.format(value);
  return {
    locale,
    t(key, values = {}) {
      const text = messages[key];
      if (text === undefined) throw new Error(`no text ${key}`);
      return fill(text, values);
    },
    number,
    dateTime: (iso) => dates.format(new Date(iso)),
    fields: all.fields,
    level: (level) => all.levels[locale][level] ?? String(level),
    verdictHeaders: () => all.verdict_headers[locale],
    apiMessage: (text, from) => all.api_messages.find((m) => m[from] === text)?.[locale] ?? fromTemplate(all.api_templates, text, from, locale),
    // Own keys only: a path is the API's echo of a body's key, and could be `constructor`.
    fieldLabel: (path) => (Object.hasOwn(all.field_labels[locale], path) ? all.field_labels[locale][path]
      : rowLabel(path, (key, values = {}) => (Object.hasOwn(messages, key) ? fill(messages[key], values) : null), number)),
    isApiValidation: (text) => text === all.api_validation.da || text === all.api_validation.en,
  };
}

/** `rows[2]` / `rows[2].name` (a file's 0-based data row, docs/uploads.md), `people[2]…` alike. */
const ROW_PATH = /^(?:rows|people)\[(\d+)\](?:\.(\w+))?$/;

/**
 * A row of a file in words: counted from 1 as the draft's preview counts its rows, the field in
 * the words of the column picker (field_*; a person's `id` is the file's "your id" column). A
 * field the page has no word for is left out rather than shown raw.
 */
function rowLabel(path: string, text: (key: string, values?: Record<string, string | number>) => string | null, number: (n: number) => string): string | null {
  const match = ROW_PATH.exec(path);
  if (!match) return null;
  const row = number(Number(match[1]) + 1);
  const field = match[2] === undefined ? null : text(`field_${match[2] === 'id' ? 'external_id' : match[2]}`);
  return field === null ? text('issue_row', { row }) : text('issue_row_field', { row, field });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A text with a value in it (a limit, the allowed values) in the other language: matched against
 * the templates of its language, the values carried over. Null when no template fits.
 */
function fromTemplate(templates: PageTexts['api_templates'], text: string, from: Locale, to: Locale): string | null {
  for (const template of templates) {
    const names: string[] = [];
    const pattern = escapeRegExp(template[from]).replace(/\\\{(\w+)\\\}/g, (_all, name: string) => {
      names.push(name);
      return '(.+?)';
    });
    const match = new RegExp(`^${pattern}$`).exec(text);
    if (!match) continue;
    const values = Object.fromEntries(names.map((name, i) => [name, match[i + 1]]));
    return template[to].replace(/\{(\w+)\}/g, (_all, name: string) => values[name] ?? '');
  }
  return null;
}
