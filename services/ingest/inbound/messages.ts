import type { Locale } from '../../domain/types.ts';
import { countIn, fillText } from '../../domain/text-template.ts';

/**
 * The texts inbound channels send back (SFTP `failed/<base>.error.txt`, email replies), in both
 * languages. They never quote the file's content; a file name is the customer's own.
 */
export const catalog = {
  job_failed: {
    da: 'Filen blev læst, men tjekket kunne ikke gøres færdigt. Send filen igen; kontakt os, hvis det sker igen.',
    en: 'The file was read, but the check could not be completed. Send the file again; contact us if it happens again.',
  },
  job_deleted: {
    da: 'Jobbet blev slettet, før resultatet kunne leveres.',
    en: 'The job was deleted before its result could be delivered.',
  },
  column_mapping_required: {
    da: 'Kolonnerne kunne ikke genkendes. Giv kolonnerne overskrifter som Navn, Adresse og Postnr, eller gem kolonnerne i siden under en kladde af filen ("Gem kolonnerne"): de gælder så for senere filer med de samme overskrifter.',
    en: 'The columns could not be recognised. Give the columns headers such as Name, Address and Postal code, or save the columns in the page under a draft of the file ("Save the columns"): they then apply to later files with the same headers.',
  },
  column_mapping_invalid: {
    da: 'Den gemte kolonneopsætning passer ikke til filens kolonner.',
    en: "The saved column mapping does not match the file's columns.",
  },
  invalid_rows: {
    da: 'Filen indeholder en række, der ikke kan tjekkes (f.eks. en værdi over 200 tegn).',
    en: 'The file contains a row that cannot be checked (for example a value over 200 characters).',
  },
  no_contacts: {
    da: 'Filen indeholder ingen kontakter (en overvågning uden kontakter slettes i stedet).',
    en: 'The file holds no contacts (a monitor without contacts is deleted instead).',
  },
  monitor_missing: {
    da: 'Overvågningen, som mappen er knyttet til, findes ikke længere.',
    en: 'The monitor this folder feeds no longer exists.',
  },
  invalid_options: {
    da: 'Mappens gemte indstillinger kan ikke bruges til dette job.',
    en: "The folder's saved options cannot be used for this job.",
  },
} as const satisfies Record<string, Record<Locale, string>>;

export type InboundMessageCode = keyof typeof catalog;

export function inboundMessage(code: InboundMessageCode, locale: Locale): string {
  return catalog[code][locale];
}

export function inboundTexts(code: InboundMessageCode): Record<Locale, string> {
  return { da: catalog[code].da, en: catalog[code].en };
}

/**
 * The letters around those texts: the receipt, refusal and summary files and replies, with
 * `{placeholders}` for a count, a date, a monitor's id or the customer's own file name (never a
 * cell of the file). The fragments `contacts_counted`, `summary_published` and `summary_at` go
 * in only when their value is known.
 */
export const LETTER_TEXTS = {
  too_many_contacts: {
    da: 'Filen har flere end {limit} kontakter; en overvågning kan højst have {limit}.',
    en: 'The file has more than {limit} contacts; a monitor holds at most {limit}.',
  },
  monitor_receipt: {
    da: 'Filen "{filename}" har erstattet kontakterne i overvågning {monitor}{counted}. De tjekkes mod den aktive listeversion; resultatet kommer som et job med source "monitor".',
    en: 'The file "{filename}" replaced the contacts of monitor {monitor}{counted}. They are checked against the active list version; the result comes as a job with source "monitor".',
  },
  contacts_counted: { da: ' ({contacts} kontakter)', en: ' ({contacts} contacts)' },
  contacts_unchanged: { da: '{reason} Overvågningens kontakter er uændrede.', en: "{reason} The monitor's contacts are unchanged." },
  not_checked: { da: 'Filen "{filename}" blev ikke tjekket: {reason}', en: 'The file "{filename}" was not checked: {reason}' },
  summary_checked: {
    da: 'Filen "{filename}" er tjekket mod Robinsonlisten{published}{at}.',
    en: 'The file "{filename}" was checked against the Robinson list{published}{at}.',
  },
  summary_published: { da: ' (udgivet {date})', en: ' (published {date})' },
  summary_at: { da: ' {time}', en: ' at {time}' },
  summary_counts: {
    da: '{rows} rækker: {blocked} blokeret, {allowed} tilladt, {manual} til manuel vurdering.',
    en: '{rows} rows: {blocked} blocked, {allowed} allowed, {manual} for manual review.',
  },
  summary_result: { da: 'Resultatet står i {name}.', en: 'The result is in {name}.' },
} as const satisfies Record<string, Record<Locale, string>>;

type LetterKey = keyof typeof LETTER_TEXTS;

function letter(key: LetterKey, locale: Locale, values: Readonly<Record<string, string | number>> = {}): string {
  return fillText(LETTER_TEXTS[key][locale], values);
}

/** A letter in both languages, the preferred one first, a blank line between. */
function bothLanguages(first: Locale, text: (locale: Locale) => string): string {
  const order: Locale[] = first === 'en' ? ['en', 'da'] : ['da', 'en'];
  return `${order.map(text).join('\n\n')}\n`;
}

/**
 * The refusal of a file with more contacts than a monitor holds, naming `limit`: the refusing
 * rule's own (TooManyContactsError.limit), so the text cannot drift from the rule.
 */
export function tooManyContactsTexts(limit: number): Record<Locale, string> {
  return {
    da: letter('too_many_contacts', 'da', { limit: countIn('da', limit) }),
    en: letter('too_many_contacts', 'en', { limit: countIn('en', limit) }),
  };
}

/** The body of a receipt for a file that replaced a monitor's contacts: both languages, the preferred one first. */
export function monitorReceiptText(filename: string, monitorId: string, contacts: number | null, first: Locale): string {
  return bothLanguages(first, (l) => letter('monitor_receipt', l, {
    filename, monitor: monitorId, counted: contacts === null ? '' : letter('contacts_counted', l, { contacts }),
  }));
}

/** A refusal's texts for a folder that feeds a monitor: the monitor's contacts stay as they were. */
export function unchangedContacts(texts: Record<Locale, string>): Record<Locale, string> {
  return { da: letter('contacts_unchanged', 'da', { reason: texts.da }), en: letter('contacts_unchanged', 'en', { reason: texts.en }) };
}

/** The body of an error file / refusal: both languages, the preferred one first. */
export function refusalText(filename: string, texts: Record<Locale, string>, first: Locale): string {
  return bothLanguages(first, (l) => letter('not_checked', l, { filename, reason: texts[l] }));
}

/** What a checked file's summary (SFTP outbox) tells: the job's counts and list version; no row. */
export interface ResultSummary {
  filename: string;
  resultName: string;
  rows: number;
  blocked: number;
  allowed: number;
  manual: number;
  listPublishedOn: string | null;
  finishedAt: string | null;
}

/**
 * The text beside a result file in outbox/ (`<base>.result.txt`): the counts a marketer wants
 * before opening the file, both languages, the preferred one first.
 */
export function resultSummaryText(s: ResultSummary, first: Locale): string {
  const at = s.finishedAt ? `${s.finishedAt.slice(0, 16).replace('T', ' ')} UTC` : null;
  return bothLanguages(first, (l) => [
    letter('summary_checked', l, {
      filename: s.filename,
      published: s.listPublishedOn ? letter('summary_published', l, { date: s.listPublishedOn }) : '',
      at: at ? letter('summary_at', l, { time: at }) : '',
    }),
    letter('summary_counts', l, {
      rows: countIn(l, s.rows), blocked: countIn(l, s.blocked), allowed: countIn(l, s.allowed), manual: countIn(l, s.manual),
    }),
    letter('summary_result', l, { name: s.resultName }),
  ].join('\n'));
}
