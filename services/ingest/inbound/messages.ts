import type { Locale } from '../../domain/types.ts';

/**
 * The texts inbound channels send back (SFTP `failed/<base>.error.txt`, email replies), in both
 * languages. They never quote the file's content; a file name is the customer's own.
 */
const catalog = {
  job_failed: {
    da: 'Filen blev læst, men tjekket kunne ikke gøres færdigt. Send filen igen; kontakt os, hvis det sker igen.',
    en: 'The file was read, but the check could not be completed. Send the file again; contact us if it happens again.',
  },
  job_deleted: {
    da: 'Jobbet blev slettet, før resultatet kunne leveres.',
    en: 'The job was deleted before its result could be delivered.',
  },
  column_mapping_required: {
    da: 'Kolonnerne kunne ikke genkendes. Giv kolonnerne overskrifter som Navn, Adresse og Postnr, eller gem en kolonneopsætning for mappen.',
    en: 'The columns could not be recognised. Give the columns headers such as Name, Address and Postal code, or save a column mapping for the folder.',
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
 * The refusal of a file with more contacts than a monitor holds, naming `limit`: the refusing
 * rule's own (TooManyContactsError.limit), so the text cannot drift from the rule.
 */
export function tooManyContactsTexts(limit: number): Record<Locale, string> {
  const da = limit.toLocaleString('da-DK');
  const en = limit.toLocaleString('en');
  return {
    da: `Filen har flere end ${da} kontakter; en overvågning kan højst have ${da}.`,
    en: `The file has more than ${en} contacts; a monitor holds at most ${en}.`,
  };
}

/** The body of a receipt for a file that replaced a monitor's contacts: both languages, the preferred one first. */
export function monitorReceiptText(filename: string, monitorId: string, contacts: number | null, first: Locale): string {
  const counted = (l: Locale) => (contacts === null ? '' : l === 'da' ? ` (${contacts} kontakter)` : ` (${contacts} contacts)`);
  const lines: Record<Locale, string> = {
    da: `Filen "${filename}" har erstattet kontakterne i overvågning ${monitorId}${counted('da')}. De tjekkes mod den aktive listeversion; resultatet kommer som et job med source "monitor".`,
    en: `The file "${filename}" replaced the contacts of monitor ${monitorId}${counted('en')}. They are checked against the active list version; the result comes as a job with source "monitor".`,
  };
  const order: Locale[] = first === 'da' ? ['da', 'en'] : ['en', 'da'];
  return `${order.map((l) => lines[l]).join('\n\n')}\n`;
}

/** A refusal's texts for a folder that feeds a monitor: the monitor's contacts stay as they were. */
export function unchangedContacts(texts: Record<Locale, string>): Record<Locale, string> {
  return { da: `${texts.da} Overvågningens kontakter er uændrede.`, en: `${texts.en} The monitor's contacts are unchanged.` };
}

/** The body of an error file / refusal: both languages, the preferred one first. */
export function refusalText(filename: string, texts: Record<Locale, string>, first: Locale): string {
  const lines: Record<Locale, string> = {
    da: `Filen "${filename}" blev ikke tjekket: ${texts.da}`,
    en: `The file "${filename}" was not checked: ${texts.en}`,
  };
  const order: Locale[] = first === 'da' ? ['da', 'en'] : ['en', 'da'];
  return `${order.map((l) => lines[l]).join('\n\n')}\n`;
}
