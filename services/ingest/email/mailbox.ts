import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { ImapFlow } from 'imapflow';
import { errorFields, type Logger } from '../../platform/logger.ts';
import type { StructureNode } from './message-parts.ts';

/**
 * The ingest mailbox over IMAP (imapflow). Folders: INBOX (new mail), `Processing` (claimed: a
 * known sender's message whose jobs are being made or run), `Processed` (replied; expunged at
 * delete_after) and `Quarantine` (unknown senders; no reply).
 *
 * Promises: `move` is IMAP MOVE (atomic on servers with the MOVE extension, as Dovecot), so a
 * message is in exactly one folder at any time; `expunge` removes it for good. `watch` calls back
 * when INBOX gets mail (IDLE); callers also poll, as IDLE may be missing or a notice may be lost.
 * Does not promise: that a message id is unique (senders may reuse one); the key of a message is
 * its Message-ID header, and a second message with the same id is treated as the same message.
 */
export const FOLDERS = { inbox: 'INBOX', processing: 'Processing', processed: 'Processed', quarantine: 'Quarantine' } as const;
export type MailFolder = (typeof FOLDERS)[keyof typeof FOLDERS];

export interface MailSummary {
  uid: number;
  messageId: string | undefined;
  from: string | undefined;
  subject: string;
  date: string;
  size: number;
  /** Message-IDs from the References header, for threading the reply. */
  references: string[];
  contentLanguage: string | undefined;
  structure: StructureNode;
}

export interface Mailbox {
  list(folder: MailFolder): Promise<MailSummary[]>;
  move(folder: MailFolder, uid: number, to: MailFolder): Promise<void>;
  download(folder: MailFolder, uid: number, part: string, localPath: string): Promise<void>;
  /** Deletes and expunges every message of `folder` with this Message-ID; returns how many. */
  expungeByMessageId(folder: MailFolder, messageId: string): Promise<number>;
  /** `onMail` is called (without arguments) when the selected folder gets new mail (see `idle`). */
  watch(onMail: () => void): void;
  /** Selects INBOX again, so the connection idles there (IMAP IDLE) until the next command. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface ImapSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
}

export async function openImapMailbox(settings: ImapSettings, logger: Logger): Promise<Mailbox> {
  const client = new ImapFlow({
    host: settings.host, port: settings.port, secure: settings.secure,
    auth: { user: settings.user, pass: settings.password },
    // imapflow logs every command (with addresses and subjects) when given a logger: none.
    logger: false,
    // Plain IMAP on loopback in tests; a real deployment uses TLS (secure) or STARTTLS.
    doSTARTTLS: settings.secure ? undefined : false,
  });
  client.on('error', (error: Error) => logger.warn(errorFields(error), 'email.imap_error'));
  await client.connect();
  const existing = new Set((await client.list()).map((m) => m.path));
  for (const folder of Object.values(FOLDERS)) {
    if (!existing.has(folder)) await client.mailboxCreate(folder);
  }

  async function withFolder<T>(folder: MailFolder, work: () => Promise<T>): Promise<T> {
    const lock = await client.getMailboxLock(folder);
    try {
      return await work();
    } finally {
      lock.release();
    }
  }

  return {
    list(folder) {
      return withFolder(folder, async () => {
        // The folder may have been selected (idling) all along: NOOP collects the server's news.
        await client.noop();
        const status = client.mailbox;
        if (!status || status.exists === 0) return [];
        const found: MailSummary[] = [];
        for await (const m of client.fetch('1:*', { uid: true, envelope: true, bodyStructure: true, size: true, headers: ['references', 'content-language'] })) {
          const headers = m.headers ? m.headers.toString('utf8') : '';
          found.push({
            uid: m.uid,
            messageId: m.envelope?.messageId,
            from: m.envelope?.from?.[0]?.address,
            subject: m.envelope?.subject ?? '',
            date: m.envelope?.date ? new Date(m.envelope.date).toISOString() : '',
            size: m.size ?? 0,
            references: headerValue(headers, 'references').split(/\s+/).filter((r) => r.startsWith('<')),
            contentLanguage: headerValue(headers, 'content-language') || undefined,
            structure: (m.bodyStructure ?? { type: 'text/plain' }),
          });
        }
        return found;
      });
    },
    move(folder, uid, to) {
      return withFolder(folder, async () => {
        await client.messageMove(String(uid), to, { uid: true });
      });
    },
    download(folder, uid, part, localPath) {
      return withFolder(folder, async () => {
        const { content } = await client.download(String(uid), part, { uid: true });
        if (!content) throw new Error('attachment part not found');
        await pipeline(content, createWriteStream(localPath, { mode: 0o600 }));
      });
    },
    expungeByMessageId(folder, messageId) {
      return withFolder(folder, async () => {
        const uids = await client.search({ header: { 'message-id': messageId } }, { uid: true });
        if (!uids || uids.length === 0) return 0;
        await client.messageDelete(uids.join(','), { uid: true });
        return uids.length;
      });
    },
    watch(onMail) {
      client.on('exists', () => onMail());
    },
    async idle() {
      // With INBOX selected and no command running, imapflow sits in IDLE.
      await client.mailboxOpen(FOLDERS.inbox);
    },
    async close() {
      await client.logout().catch(() => client.close());
    },
  };
}

/** One header's value from a raw header block (unfolded). */
function headerValue(raw: string, name: string): string {
  const unfolded = raw.replace(/\r?\n[ \t]+/g, ' ');
  const match = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(unfolded);
  return match ? match[1].trim() : '';
}
