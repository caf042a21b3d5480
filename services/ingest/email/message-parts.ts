import { createHash } from 'node:crypto';
import type { Locale } from '../../domain/types.ts';

/**
 * Pure helpers of the email channel: which parts of a message are spreadsheets, the message's
 * stable key, the ids derived from it, and the language of the reply. No I/O.
 */

/** The shape of IMAP BODYSTRUCTURE nodes that matters here (imapflow's MessageStructureObject). */
export interface StructureNode {
  part?: string;
  type: string;
  parameters?: Record<string, string>;
  disposition?: string;
  dispositionParameters?: Record<string, string>;
  childNodes?: StructureNode[];
}

export interface SpreadsheetPart {
  /** IMAP body part number, to download it. */
  part: string;
  filename: string;
  /** 0-based among the message's spreadsheet attachments, in message order. */
  index: number;
}

const SPREADSHEET_NAME = /\.(csv|txt|xlsx|xls)$/i;
const SPREADSHEET_TYPES = new Set([
  'text/csv', 'application/csv', 'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
]);

/**
 * Attachments that are spreadsheets: a named part (attachment or inline) whose name ends in
 * .csv/.txt/.xlsx/.xls, or whose type is a spreadsheet type. A .txt needs the name (a plain-text
 * body is not an attachment). The format is sniffed from the bytes later, never trusted from this.
 */
export function spreadsheetParts(root: StructureNode): SpreadsheetPart[] {
  const found: SpreadsheetPart[] = [];
  const walk = (node: StructureNode) => {
    if (node.childNodes?.length) {
      for (const child of node.childNodes) walk(child);
      return;
    }
    const filename = node.dispositionParameters?.filename ?? node.parameters?.name ?? null;
    if (!filename || !node.part) return;
    if (SPREADSHEET_NAME.test(filename) || SPREADSHEET_TYPES.has(node.type.toLowerCase())) {
      found.push({ part: node.part, filename: safeFilename(filename), index: found.length });
    }
  };
  walk(root);
  return found;
}

/** A file name without directory parts or control characters, at most 200 characters. */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop()?.replace(/[\u0000-\u001f\u007f]/g, '').trim() ?? '';
  return (base || 'attachment').slice(0, 200);
}

/**
 * The message's stable key: its Message-ID, or (a message without one) a hash of what identifies
 * it. The same message seen again after a restart has the same key.
 */
export function messageKey(messageId: string | undefined, fallback: { from: string; date: string; subject: string; size: number }): string {
  if (messageId && messageId.trim()) return messageId.trim();
  return `<no-id-${sha256(JSON.stringify(fallback)).slice(0, 32)}@robinson.invalid>`;
}

/** A uuid fixed by its inputs (SHA-256, shaped as a version 8 uuid): the job of an attachment, the bookkeeping of a message. */
export function derivedId(...parts: string[]): string {
  const hex = sha256(parts.join('\u0000'));
  const variant = ((Number.parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The reply's language: the sender's saved one, else the message's Content-Language, else Danish. */
export function replyLocale(senderLocale: Locale | null, contentLanguage: string | undefined): Locale {
  if (senderLocale) return senderLocale;
  return contentLanguage && /^\s*en\b/i.test(contentLanguage) ? 'en' : 'da';
}

/** The address inside `Name <addr>`, lower-cased. */
export function bareAddress(address: string | undefined): string | null {
  if (!address) return null;
  const match = /<([^<>]+)>\s*$/.exec(address);
  const bare = (match ? match[1] : address).trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+$/.test(bare) ? bare : null;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
