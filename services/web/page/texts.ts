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
  return {
    locale,
    t(key, values = {}) {
      const text = messages[key];
      if (text === undefined) throw new Error(`no text ${key}`);
      return text.replace(/\{(\w+)\}/g, (_all, name: string) => String(values[name] ?? ''));
    },
    number: (value) => numbers.format(value),
    dateTime: (iso) => dates.format(new Date(iso)),
    fields: all.fields,
    level: (level) => all.levels[locale][level] ?? String(level),
    verdictHeaders: () => all.verdict_headers[locale],
    apiMessage: (text, from) => all.api_messages.find((m) => m[from] === text)?.[locale] ?? fromTemplate(all.api_templates, text, from, locale),
  };
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
