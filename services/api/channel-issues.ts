import type { Locale } from '../domain/types.ts';
import { fillText } from '../domain/text-template.ts';
import type { IssueRef } from './errors.ts';

/**
 * Why an SFTP drop folder or a connector added in the page (docs/inbound.md "In the page") is
 * refused, at the field to fix, in both languages. Never a value the admin typed (a host name or
 * an address may be a customer's), never the SSH library's own text.
 */
export const CHANNEL_ISSUE_TEXTS = {
  address_taken: { da: 'Adressen er allerede tilladt for en anden organisation.', en: 'The address is already allowed for another organisation.' },
  not_a_public_key: {
    da: 'Indsæt serverens offentlige nøgle som én linje, som ssh-keyscan eller en .pub-fil viser den (fx "ssh-ed25519 AAAA…").',
    en: 'Paste the server\'s public key as one line, as ssh-keyscan or a .pub file shows it (e.g. "ssh-ed25519 AAAA…").',
  },
  one_login: { da: 'Angiv enten en adgangskode eller en privat nøgle.', en: 'Give either a password or a private key.' },
  not_a_private_key: { da: 'Skal være en privat nøgle (PEM eller OpenSSH).', en: 'Must be a private key (PEM or OpenSSH).' },
  absolute_path: { da: 'Skal være en absolut sti uden "..", fx /kunder.', en: 'Must be an absolute path without "..", e.g. /customers.' },
  host_invalid: { da: 'Er ikke et værtsnavn eller en IP-adresse.', en: 'Is not a host name or an IP address.' },
  host_refused: {
    da: 'Serveren ligger på et internt eller privat netværk og er ikke tilladt.',
    en: 'The server is on an internal or private network and is not allowed.',
  },
  host_unresolvable: { da: 'Værtsnavnet kan ikke slås op.', en: 'The host name does not resolve.' },
  host_key_mismatch: {
    da: 'Serveren viste en anden nøgle end den indsatte. Intet er gemt; tjek nøglen med ssh-keyscan.',
    en: 'The server showed another key than the one pasted. Nothing was saved; check the key with ssh-keyscan.',
  },
  cannot_log_in: {
    da: 'Serveren kunne ikke nås, eller den afviste brugernavn og adgangskode eller nøgle. Intet er gemt.',
    en: 'The server could not be reached, or it refused the user name and password or key. Nothing was saved.',
  },
  no_inbox: { da: 'Mappen har ingen inbox/-mappe. Opret inbox, outbox, archive og failed.', en: 'The folder has no inbox/ folder. Create inbox, outbox, archive and failed.' },
  url_invalid: { da: 'Er ikke en gyldig https-adresse.', en: 'Is not a valid https URL.' },
  url_credentials: { da: 'Må ikke indeholde brugernavn eller adgangskode; brug feltet til en header.', en: 'Must not hold a user or password; use the header field.' },
  url_refused: {
    da: 'Adressen peger på et internt eller privat netværk og er ikke tilladt.',
    en: 'The address points to an internal or private network and is not allowed.',
  },
  interval_range: { da: 'Skal være mellem {min} og 527040 minutter.', en: 'Must be between {min} and 527040 minutes.' },
  header_pair: { da: 'Angiv både headerens navn og værdi, eller ingen af dem.', en: 'Give both the header\'s name and value, or neither.' },
  header_name: { da: 'Et headernavn består af bogstaver, tal og - (fx Authorization).', en: 'A header name is letters, digits and - (e.g. Authorization).' },
  header_value: { da: 'Værdien skal være én linje.', en: 'The value must be one line.' },
} as const satisfies Record<string, Readonly<Record<Locale, string>>>;

export type ChannelIssue = keyof typeof CHANNEL_ISSUE_TEXTS;

export function channelIssue(path: string, key: ChannelIssue, values: Record<string, string> = {}): IssueRef {
  return { path, describe: (l) => fillText(CHANNEL_ISSUE_TEXTS[key][l], values) };
}
