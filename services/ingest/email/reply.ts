import { createSmtpTransport } from '../../platform/smtp.ts';
import type { Locale } from '../../domain/types.ts';

/**
 * The reply to an emailed spreadsheet (docs/decisions.md §15): one message to the sender with every
 * result file attached and a line per refused file, in Danish or English, threaded to the
 * original (In-Reply-To, References). Its Message-ID is derived from the original's, so a reply
 * sent again after a crash is recognisably the same message. Sent with nodemailer over SMTP.
 */
export interface ReplyFile {
  filename: string;
  /** The result file on local disk and its attachment name, or null when the file was refused. */
  result: { path: string; name: string } | null;
  /** Why the file was refused (in the reply's language), when `result` is null. */
  reason: string | null;
  /** The checked file's verdicts, said in the reply so the reader need not open the file. */
  counts?: ReplyCounts;
}

export interface ReplyCounts {
  rows: number;
  blocked: number;
  allowed: number;
  manual: number;
}

export interface ReplySpec {
  from: string;
  to: string;
  subject: string;
  inReplyTo: string;
  references: string[];
  messageId: string;
  locale: Locale;
  files: ReplyFile[];
}

export interface ReplySender {
  send(reply: ReplySpec): Promise<void>;
  close(): void;
}

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
}

const da = (n: number) => n.toLocaleString('da-DK');
const en = (n: number) => n.toLocaleString('en');
export const TEXT = {
  da: {
    subject: 'Sv:',
    intro: 'Tak for jeres fil. Resultatet af tjekket mod Robinsonlisten er vedhæftet.',
    introNoneChecked: 'Tak for jeres fil. Den kunne ikke tjekkes mod Robinsonlisten:',
    none: 'Vi fandt ingen regneark (.csv, .xlsx, .xls) i jeres besked. Vedhæft filen og send igen.',
    checked: (name: string, result: string) => `- ${name}: tjekket, se ${result}`,
    counts: (c: ReplyCounts) => `  ${da(c.rows)} rækker: ${da(c.blocked)} blokeret, ${da(c.allowed)} tilladt, ${da(c.manual)} til manuel vurdering.`,
    refused: (name: string, reason: string) => `- ${name}: ikke tjekket. ${reason}`,
    outro: 'Venlig hilsen\nRobinson-tjek',
  },
  en: {
    subject: 'Re:',
    intro: 'Thank you for your file. The result of the check against the Robinson list is attached.',
    introNoneChecked: 'Thank you for your file. It could not be checked against the Robinson list:',
    none: 'We found no spreadsheet (.csv, .xlsx, .xls) in your message. Attach the file and send it again.',
    checked: (name: string, result: string) => `- ${name}: checked, see ${result}`,
    counts: (c: ReplyCounts) => `  ${en(c.rows)} rows: ${en(c.blocked)} blocked, ${en(c.allowed)} allowed, ${en(c.manual)} for manual review.`,
    refused: (name: string, reason: string) => `- ${name}: not checked. ${reason}`,
    outro: 'Kind regards\nRobinson check',
  },
} as const;

/** The name of a result attachment: `<base>.result.<ext>` as in drop folders. */
export function resultAttachmentName(filename: string, ext: 'csv' | 'xlsx'): string {
  const dot = filename.lastIndexOf('.');
  return `${dot > 0 ? filename.slice(0, dot) : filename}.result.${ext}`;
}

export function replyText(spec: Pick<ReplySpec, 'locale' | 'files'>): string {
  const t = TEXT[spec.locale];
  if (spec.files.length === 0) return `${t.none}\n\n${t.outro}\n`;
  const lines = spec.files.map((f) => (f.result
    ? t.checked(f.filename, f.result.name) + (f.counts ? `\n${t.counts(f.counts)}` : '')
    : t.refused(f.filename, f.reason ?? '')));
  // "attached" only when something is: a reply with every file refused says so first.
  const intro = spec.files.some((f) => f.result) ? t.intro : t.introNoneChecked;
  return `${intro}\n\n${lines.join('\n')}\n\n${t.outro}\n`;
}

export function replySubject(locale: Locale, subject: string): string {
  const prefix = TEXT[locale].subject;
  return /^(re|sv|aw):/i.test(subject.trim()) ? subject.trim() : `${prefix} ${subject.trim()}`.trim();
}

export function createSmtpReplySender(settings: SmtpSettings): ReplySender {
  const transport = createSmtpTransport(settings, { requireTls: false });
  return {
    async send(reply) {
      await transport.sendMail({
        from: reply.from,
        to: reply.to,
        subject: replySubject(reply.locale, reply.subject),
        messageId: reply.messageId,
        inReplyTo: reply.inReplyTo,
        references: [...reply.references, reply.inReplyTo],
        headers: { 'Content-Language': reply.locale, 'Auto-Submitted': 'auto-replied' },
        text: replyText(reply),
        attachments: reply.files.flatMap((f) => (f.result ? [{ filename: f.result.name, path: f.result.path }] : [])),
      });
    },
    close() {
      transport.close();
    },
  };
}
