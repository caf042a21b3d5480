import { z } from 'zod';
import { named } from './registry.ts';

/**
 * An organisation's inbound channels as its admin sees them in the page (docs/inbound.md "In the
 * page"): the senders allowed to e-mail files to the ingest mailbox, and the SFTP drop folders
 * with the host key they are pinned to. No secret is ever part of these shapes.
 */
const locale = z.enum(['da', 'en']);

export const EmailSenderSchema = named('EmailSender', z.strictObject({
  address: z.string().describe('Lower-cased e-mail address'),
  locale: locale.nullable().describe("Language of the replies; null: the message's language, else Danish"),
  created_at: z.string(),
}), 'An address allowed to e-mail files to the ingest mailbox for the organisation.');

export const EmailSenderListSchema = named('EmailSenderList', z.strictObject({ data: z.array(EmailSenderSchema) }));

export const AddEmailSenderRequestSchema = named('AddEmailSenderRequest', z.strictObject({
  address: z.email().max(200).describe('The sender address to allow'),
  locale: locale.nullable().default(null).describe("Language of the replies; null (default): the message's language"),
}));

export const DropFolderSchema = named('DropFolder', z.strictObject({
  id: z.uuid(),
  host: z.string(),
  port: z.int(),
  username: z.string(),
  host_key_sha256: z.string().describe('The pinned host key, `SHA256:<base64>` as `ssh-keygen -l` prints it: compare it with your server\'s'),
  auth: z.enum(['key', 'password']),
  path: z.string(),
  locale,
  mapping: z.enum(['saved', 'guessed']).describe('saved: the folder has a saved column mapping; guessed: read from each file'),
  monitor_id: z.uuid().nullable().describe('Set: each file replaces this monitor\'s contacts'),
  created_at: z.string(),
  last_ok_at: z.string().nullable().describe('The last poll that worked'),
  last_error_at: z.string().nullable(),
  failures: z.int().min(0).describe('Failed polls in a row; 0 after a success'),
}), 'An SFTP drop folder the service polls for the organisation (credentials are never shown).');

export const DropFolderListSchema = named('DropFolderList', z.strictObject({ data: z.array(DropFolderSchema) }));

export const ConnectorSchema = named('Connector', z.strictObject({
  id: z.uuid(),
  url: z.string().describe('Where it pulls from: scheme, host and path (the query string is left out, it may hold a token)'),
  auth_header_name: z.string().nullable().describe('The header sent with each pull (its value is never shown)'),
  interval_seconds: z.int().min(1),
  target: z.enum(['job', 'monitor']).describe('job: each pull is a check job; monitor: each pull replaces a monitor\'s contacts'),
  monitor_id: z.uuid().nullable(),
  mapping: z.enum(['saved', 'guessed']),
  created_at: z.string(),
  last_ok_at: z.string().nullable(),
  last_error_at: z.string().nullable(),
  failures: z.int().min(0),
}), "A scheduled HTTPS pull of the organisation's file (credentials are never shown).");

export const ConnectorListSchema = named('ConnectorList', z.strictObject({ data: z.array(ConnectorSchema) }));

export const AddDropFolderRequestSchema = named('AddDropFolderRequest', z.strictObject({
  host: z.string().min(1).max(253).describe('The SFTP server'),
  port: z.int().min(1).max(65535).default(22),
  username: z.string().min(1).max(100),
  path: z.string().min(1).max(500).default('/').describe('The directory that holds inbox/ outbox/ archive/ failed/'),
  host_public_key: z.string().min(1).max(4000).describe('The server\'s public host key, one line as ssh-keyscan or a .pub file shows it; its fingerprint is pinned'),
  password: z.string().min(1).max(500).optional().describe('Either this or private_key'),
  private_key: z.string().min(1).max(20000).optional().describe('A private key (PEM or OpenSSH) the server accepts for the user'),
  locale: locale.default('da').describe('Language of the error files and of the result headers'),
}), 'A drop folder to add: the service connects once (host key, login, inbox/) before it stores it; the password or key is stored sealed and never shown.');

export const AddConnectorRequestSchema = named('AddConnectorRequest', z.strictObject({
  url: z.string().min(1).max(2000).describe('https address of the file (a token in its query string is never shown again)'),
  interval_minutes: z.int().min(1).max(527040).describe('A pull every this many minutes'),
  auth_header_name: z.string().max(100).optional().describe('A header sent with each pull, e.g. Authorization'),
  auth_header_value: z.string().max(4000).optional().describe('Its value, stored sealed and never shown'),
  locale: locale.default('da'),
}), 'A connector to add: a scheduled HTTPS pull whose each file is a check job.');
