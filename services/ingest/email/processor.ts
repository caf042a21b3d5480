import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isTerminal } from '../../domain/job-state.ts';
import type { Locale } from '../../domain/types.ts';
import type { Logger } from '../../platform/logger.ts';
import type { AccountStore } from '../../platform/store/accounts-port.ts';
import type { InboundClaim, InboundStore } from '../../platform/store/inbound-port.ts';
import type { JobRecord } from '../../platform/store/jobs-port.ts';
import { InboundRefusal, type FileJobs } from '../inbound/file-jobs.ts';
import { inboundTexts } from '../inbound/messages.ts';
import { writeLocalResult } from '../sftp/claims.ts';
import { FOLDERS, type Mailbox, type MailFolder, type MailSummary } from './mailbox.ts';
import { bareAddress, derivedId, messageKey, replyLocale, spreadsheetParts } from './message-parts.ts';
import { resultAttachmentName, type ReplyFile, type ReplySender } from './reply.ts';

/**
 * One pass over the ingest mailbox (docs/decisions.md §15); what is past its delete_after is
 * expunged by `deleteDueMail`, on the process's retention timer (services/platform/retention.ts). Every step can be interrupted (kill -9) and
 * the next pass continues from what the mailbox and the store say:
 *
 *   INBOX, unknown sender  → claim `quarantine` (delete_after) → MOVE Quarantine; no reply
 *   INBOX, allowed sender  → claim `message` → MOVE Processing
 *   Processing: per spreadsheet attachment the job id is derived from (mailbox, Message-ID, index):
 *     job exists? no → download, create job <id> (or a refusal, kept on the attachment's claim)
 *     all jobs done/failed → claim `message` job_created (reply pending) → one SMTP reply
 *     (Message-ID derived too) → delivered → MOVE Processed
 *   delete_after → EXPUNGE from Processed / Quarantine; claims deleted
 *
 * A crash before a job exists creates it (same id) on the next pass; after, finds it. A crash in
 * the milliseconds between the SMTP server accepting the reply and `delivered` being written sends
 * the reply again, with the same Message-ID (mail clients show one message).
 */
export interface MailContext {
  mailbox: Mailbox;
  /** The mailbox's name in the claims (one mailbox per deployment: its IMAP user). */
  mailboxName: string;
  inbound: InboundStore;
  accounts: AccountStore;
  fileJobs: FileJobs;
  replies: ReplySender;
  /** The From address of replies. */
  from: string;
  quarantineDays: number;
  workDir: string;
  logger: Logger;
  now: () => Date;
}

export interface MailPassOutcome {
  quarantined: number;
  claimed: number;
  replied: number;
}

const DAY_MS = 86_400_000;

export async function runMailPass(ctx: MailContext): Promise<MailPassOutcome> {
  const outcome: MailPassOutcome = { quarantined: 0, claimed: 0, replied: 0 };
  for (const mail of await ctx.mailbox.list(FOLDERS.inbox)) {
    const result = await sortIncoming(ctx, mail, FOLDERS.inbox);
    if (result === 'quarantined') outcome.quarantined++;
    else outcome.claimed++;
  }
  for (const mail of await ctx.mailbox.list(FOLDERS.processing)) {
    if (await advanceMessage(ctx, mail)) outcome.replied++;
  }
  return outcome;
}

function keyOf(mail: MailSummary): string {
  return messageKey(mail.messageId, { from: mail.from ?? '', date: mail.date, subject: mail.subject, size: mail.size });
}

function newClaim(ctx: MailContext, id: string, orgId: string, item: string, patch: Partial<InboundClaim> = {}): InboundClaim {
  const at = ctx.now().toISOString();
  return {
    id, channel: 'email', org_id: orgId, source_ref: ctx.mailboxName, item, state: 'claimed', outputs: [],
    delete_after: null, created_at: at, updated_at: at, ...patch,
  };
}

async function sortIncoming(ctx: MailContext, mail: MailSummary, folder: MailFolder): Promise<'quarantined' | 'claimed'> {
  const key = keyOf(mail);
  const address = bareAddress(mail.from);
  const sender = address ? await ctx.inbound.findSender(address) : null;
  if (!sender) {
    const deleteAfter = new Date(ctx.now().getTime() + ctx.quarantineDays * DAY_MS).toISOString();
    await ctx.inbound.claim(newClaim(ctx, derivedId(ctx.mailboxName, key, 'quarantine'), '', `quarantine:${key}`, {
      state: 'delivered', outputs: [FOLDERS.quarantine], delete_after: deleteAfter,
    }));
    await ctx.mailbox.move(folder, mail.uid, FOLDERS.quarantine);
    ctx.logger.info({ mailbox: ctx.mailboxName }, 'email.quarantined');
    return 'quarantined';
  }
  await ctx.inbound.claim(newClaim(ctx, derivedId(ctx.mailboxName, key, 'message'), sender.org_id, `message:${key}`));
  if (folder !== FOLDERS.processing) await ctx.mailbox.move(folder, mail.uid, FOLDERS.processing);
  return 'claimed';
}

/** True when the reply went out in this call. */
async function advanceMessage(ctx: MailContext, mail: MailSummary): Promise<boolean> {
  const key = keyOf(mail);
  const messageClaimId = derivedId(ctx.mailboxName, key, 'message');
  let claim = await ctx.inbound.getClaim(messageClaimId);
  if (!claim) {
    // In Processing without a claim (moved there by hand): sort it as new mail.
    if ((await sortIncoming(ctx, mail, FOLDERS.processing)) === 'quarantined') return false;
    claim = await ctx.inbound.getClaim(messageClaimId);
    if (!claim) return false;
  }
  if (claim.state === 'delivered') {
    await ctx.mailbox.move(FOLDERS.processing, mail.uid, FOLDERS.processed);
    return false;
  }
  const org = await ctx.accounts.getOrganisation(claim.org_id);
  const sender = await ctx.inbound.findSender(bareAddress(mail.from) ?? '');
  const locale = replyLocale(sender?.locale ?? null, mail.contentLanguage);
  const parts = spreadsheetParts(mail.structure);
  const attachments: Array<{ filename: string; claim: InboundClaim; job: JobRecord | null; refusal: string | null }> = [];
  for (const part of parts) {
    const id = derivedId(ctx.mailboxName, key, 'attachment', String(part.index));
    let attachmentClaim = await ctx.inbound.claim(newClaim(ctx, id, claim.org_id, `attachment:${key}#${part.index}`));
    let job = await ctx.fileJobs.get(id);
    let refusal = refusalOf(attachmentClaim);
    if (!job && refusal === null) {
      if (!org) {
        refusal = 'organisation_missing';
      } else {
        const local = join(ctx.workDir, `${id}.in`);
        try {
          await ctx.mailbox.download(FOLDERS.processing, mail.uid, part.part, local);
          job = await ctx.fileJobs.create({
            id, source: 'email', org, filename: part.filename, path: local, column_mapping: null, options: {}, locale,
          });
          ctx.logger.info({ mailbox: ctx.mailboxName, job_id: id, rows: job.row_count }, 'email.job_created');
        } catch (error) {
          if (!(error instanceof InboundRefusal)) throw error;
          refusal = error.code;
        } finally {
          await rm(local, { force: true });
        }
      }
      if (refusal !== null) {
        attachmentClaim = (await ctx.inbound.updateClaim(id, { outputs: [`refused:${refusal}`], updated_at: ctx.now().toISOString() })) ?? attachmentClaim;
      }
    }
    attachments.push({ filename: part.filename, claim: attachmentClaim, job, refusal });
  }
  if (attachments.some((a) => a.job && !isTerminal(a.job.status))) return false;

  const retentionMs = (org?.retention_days ?? 30) * DAY_MS;
  const deleteAfter = attachments.map((a) => a.job?.delete_after).filter((d): d is string => !!d).sort().pop()
    ?? new Date(ctx.now().getTime() + retentionMs).toISOString();
  await ctx.inbound.updateClaim(claim.id, { state: 'job_created', outputs: [FOLDERS.processed], delete_after: deleteAfter, updated_at: ctx.now().toISOString() });
  const files: ReplyFile[] = [];
  const locals: string[] = [];
  try {
    for (const a of attachments) {
      if (a.job?.status === 'done') {
        const path = join(ctx.workDir, `${a.claim.id}.result`);
        locals.push(path);
        await writeLocalResult(ctx.fileJobs, a.job, locale, path);
        files.push({
          filename: a.filename, result: { path, name: resultAttachmentName(a.filename, ctx.fileJobs.resultExtension(a.job)) }, reason: null,
          counts: { rows: a.job.row_count, blocked: a.job.blocked_count, allowed: a.job.allowed_count, manual: a.job.manual_count },
        });
      } else {
        files.push({ filename: a.filename, result: null, reason: reasonText(ctx, a.job, a.refusal, locale) });
      }
    }
    await ctx.replies.send({
      from: ctx.from, to: bareAddress(mail.from) as string, subject: mail.subject, inReplyTo: key, references: mail.references,
      messageId: `<reply-${claim.id}@${ctx.from.split('@')[1] ?? 'robinson.invalid'}>`, locale, files,
    });
  } finally {
    for (const path of locals) await rm(path, { force: true });
  }
  const at = ctx.now().toISOString();
  for (const a of attachments) await ctx.inbound.updateClaim(a.claim.id, { state: 'delivered', delete_after: deleteAfter, updated_at: at });
  await ctx.inbound.updateClaim(claim.id, { state: 'delivered', updated_at: at });
  await ctx.mailbox.move(FOLDERS.processing, mail.uid, FOLDERS.processed);
  ctx.logger.info({ mailbox: ctx.mailboxName, claim_id: claim.id, files: files.length }, 'email.reply_sent');
  return true;
}

function refusalOf(claim: InboundClaim): string | null {
  const mark = claim.outputs.find((o) => o.startsWith('refused:'));
  return mark ? mark.slice('refused:'.length) : null;
}

function reasonText(ctx: MailContext, job: JobRecord | null, refusal: string | null, locale: Locale): string {
  if (refusal === 'organisation_missing') return inboundTexts('job_failed')[locale];
  if (refusal !== null) return ctx.fileJobs.refusalTexts(refusal)[locale];
  return inboundTexts(job?.status === 'deleted' ? 'job_deleted' : 'job_failed')[locale];
}

/**
 * delete_after reached: the message leaves the mailbox for good; its claims are closed. Returns
 * how many messages went. Never at the same time as a pass (one IMAP connection): the caller
 * serialises them.
 */
export async function deleteDueMail(ctx: Pick<MailContext, 'mailbox' | 'mailboxName' | 'inbound' | 'now'>): Promise<number> {
  const due = (await ctx.inbound.listClaimsDue(ctx.now().toISOString(), 500))
    .filter((c) => c.channel === 'email' && c.source_ref === ctx.mailboxName);
  let deleted = 0;
  for (const claim of due) {
    const colon = claim.item.indexOf(':');
    const kind = claim.item.slice(0, colon);
    if (kind === 'message' || kind === 'quarantine') {
      const key = claim.item.slice(colon + 1);
      // Wherever it is now (a message can be due while still waiting in Processing).
      for (const folder of [FOLDERS.processed, FOLDERS.quarantine, FOLDERS.processing, FOLDERS.inbox]) {
        await ctx.mailbox.expungeByMessageId(folder, key);
      }
      deleted++;
    }
    await ctx.inbound.updateClaim(claim.id, { state: 'deleted', updated_at: ctx.now().toISOString() });
  }
  return deleted;
}

