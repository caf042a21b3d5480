import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { ImapFlow, type FetchMessageObject } from 'imapflow';
import nodemailer from 'nodemailer';
import { servers, startHint } from './servers.ts';

const run = promisify(execFile);
const DOVECOT = new URL('../../infra/local/dovecot.sh', import.meta.url).pathname;
const POSTFIX = new URL('../../infra/local/postfix.sh', import.meta.url).pathname;

/**
 * Mailboxes on the test Dovecot (infra/local/dovecot.sh, passwd-file users) and mail sent through
 * the test Postfix (infra/local/postfix.sh), which delivers into Dovecot: the ingest mailbox and
 * customers' mailboxes are real ones. Throws, never skips, when a server is missing.
 */
export interface MailUser {
  address: string;
  password: string;
  remove(): Promise<void>;
}

export async function createMailUser(local: string, domain: 'robinson.test' | 'customer.test'): Promise<MailUser> {
  const address = `${local}-${randomBytes(4).toString('hex')}@${domain}`;
  const password = randomBytes(9).toString('hex');
  try {
    await run('bash', [DOVECOT, 'start']);
    await run('bash', [POSTFIX, 'start']);
    await run('bash', [DOVECOT, 'add-user', address, password]);
  } catch (error) {
    throw new Error(`the test mail servers are not usable (${(error as Error).message}); ${startHint}`);
  }
  const user: MailUser = { address, password, remove: async () => { await run('bash', [DOVECOT, 'remove-user', address]); } };
  await untilLoginWorks(user);
  return user;
}

/**
 * Dovecot re-reads its users file at most once a second, so a user added right after another
 * login can be refused for up to a second: a user is ready when a login succeeds (the server's own
 * answer is the signal), and still refused after 60 s is a failure (a busy machine delays the re-read).
 */
async function untilLoginWorks(user: MailUser): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const client = await openImap(user);
      await client.logout();
      return;
    } catch (error) {
      if (!(error as { authenticationFailed?: boolean }).authenticationFailed || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export interface OutgoingAttachment {
  filename: string;
  content: Buffer;
}

/** Sends a message through the test MTA (SMTP on loopback); returns its Message-ID. */
export async function sendMail(from: string, to: string, subject: string, attachments: OutgoingAttachment[], extra: { messageId?: string; language?: string } = {}): Promise<string> {
  const transport = nodemailer.createTransport({ host: servers.smtp.host, port: servers.smtp.port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({
      from, to, subject, text: 'Se vedhæftede fil.', attachments,
      ...(extra.messageId ? { messageId: extra.messageId } : {}),
      ...(extra.language ? { headers: { 'Content-Language': extra.language } } : {}),
    });
    return info.messageId;
  } finally {
    transport.close();
  }
}

/** An IMAP session as `user` (a customer reading their replies, or the test looking into a mailbox). */
export async function openImap(user: MailUser): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: servers.imap.host, port: servers.imap.port, secure: false, doSTARTTLS: false,
    auth: { user: user.address, pass: user.password }, logger: false,
  });
  await client.connect();
  return client;
}

export interface ReadMessage {
  uid: number;
  messageId: string | undefined;
  inReplyTo: string | undefined;
  subject: string;
  from: string | undefined;
  source: Buffer;
}

/** Every message of `folder` (with its raw source); an absent folder holds none. */
export async function messagesIn(client: ImapFlow, folder: string): Promise<ReadMessage[]> {
  const exists = (await client.list()).some((m) => m.path === folder);
  if (!exists) return [];
  const lock = await client.getMailboxLock(folder);
  try {
    await client.noop();
    if (!client.mailbox || client.mailbox.exists === 0) return [];
    const found: FetchMessageObject[] = await client.fetchAll('1:*', { uid: true, envelope: true, source: true });
    return found.map((m) => ({
      uid: m.uid, messageId: m.envelope?.messageId, inReplyTo: m.envelope?.inReplyTo, subject: m.envelope?.subject ?? '',
      from: m.envelope?.from?.[0]?.address, source: m.source as Buffer,
    }));
  } finally {
    lock.release();
  }
}

/** Waits (60 s at most) until `folder` holds `count` messages: their arrival is the signal. */
export async function waitForMessages(client: ImapFlow, folder: string, count: number): Promise<ReadMessage[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const messages = await messagesIn(client, folder);
    if (messages.length >= count) return messages;
    if (Date.now() > deadline) throw new Error(`${folder} holds ${messages.length} messages, expected ${count}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Attachments of a raw message: name and bytes (base64 parts, as nodemailer writes them). */
export function attachmentsOf(source: Buffer): Array<{ filename: string; content: Buffer }> {
  const text = source.toString('latin1');
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(text)?.[1];
  if (!boundary) return [];
  const found: Array<{ filename: string; content: Buffer }> = [];
  for (const part of text.split(`--${boundary}`)) {
    const [head, ...bodyParts] = part.split(/\r?\n\r?\n/);
    const name = /filename\*?=(?:UTF-8'')?"?([^";\r\n]+)"?/i.exec(head)?.[1];
    if (!name || !/content-transfer-encoding:\s*base64/i.test(head)) continue;
    found.push({ filename: decodeURIComponent(name), content: Buffer.from(bodyParts.join('\n').replace(/\s+/g, ''), 'base64') });
  }
  return found;
}

/**
 * The text/plain body of a raw message as the reader sees it: quoted-printable or base64 decoded
 * (as nodemailer writes them), UTF-8. The first text part of a multipart message, or the body of
 * a single-part one.
 */
export function textBodyOf(source: Buffer): string {
  const raw = source.toString('latin1');
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`) : [raw];
  for (const part of parts) {
    const split = part.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const head = part.slice(0, split);
    if (boundary ? !/content-type:\s*text\/plain/i.test(head) : false) continue;
    const body = part.slice(split).replace(/^\r?\n\r?\n/, '');
    if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) {
      const bytes = Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
      return bytes.toString('utf8');
    }
    return Buffer.from(body, 'latin1').toString('utf8');
  }
  throw new Error('the message has no text/plain part');
}
