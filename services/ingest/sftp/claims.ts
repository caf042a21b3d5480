import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { isTerminal } from '../../domain/job-state.ts';
import type { Locale } from '../../domain/types.ts';
import { errorFields, type Logger } from '../../platform/logger.ts';
import type { Organisation } from '../../platform/store/accounts-port.ts';
import type { DropFolder, InboundClaim, InboundStore } from '../../platform/store/inbound-port.ts';
import type { JobRecord } from '../../platform/store/jobs-port.ts';
import { InboundRefusal, type FileJobs } from '../inbound/file-jobs.ts';
import { inboundTexts, monitorReceiptText, refusalText, resultSummaryText, unchangedContacts } from '../inbound/messages.ts';
import type { MonitorContactsFeed } from '../inbound/monitor-contacts.ts';
import { archiveName, errorName, parseProcessingName, processingName, receiptName, resultName, summaryNameOf } from './names.ts';
import { partialUploadName, type RemoteFolder } from './remote-folder.ts';
import type { StabilityTracker } from './stability.ts';

/**
 * One visit to one drop folder: claim the files that are ready, move every open claim as far as
 * it can go, delete what is due. Every step can be interrupted (kill -9) and the next visit, in
 * this process or another, continues from what the folder and the store say:
 *
 *   inbox/x.csv ──rename──► inbox/x.csv.<id>.processing     (claim; the id is also the job id)
 *       store: claim(id)                                       (insert-if-absent; from the name)
 *       job <id> exists? no → download, create job <id>        (FileJobs.create: exactly that id)
 *       store: outputs planned, delete_after, job_created      (names chosen once, then reused)
 *       job done → outbox/x.result.csv (written under a hidden name, then renamed over)
 *       inbox/…processing ──rename──► archive/x.csv; store: delivered
 *
 * A crash before the job exists leaves a processing name and no job: the job is created with the
 * claim's id on the next visit. A crash after: the job is found by id, none is created. A crash
 * between the result's rename and `delivered` uploads the same result again under the same name:
 * still one result file. An upload still being written is not claimed (StabilityTracker).
 */
export interface VisitContext {
  folder: DropFolder;
  /** Null when the organisation no longer exists; claims then stop at refusal. */
  org: Organisation | null;
  remote: RemoteFolder;
  inbound: InboundStore;
  fileJobs: FileJobs;
  /** For folders bound to a monitor (`folder.monitor_id`). */
  monitorFeed: MonitorContactsFeed;
  tracker: StabilityTracker;
  /** Local directory for downloads and results in transit (personal data: deleted at once). */
  workDir: string;
  logger: Logger;
  now: () => Date;
}

export interface VisitOutcome {
  claimed: number;
  delivered: number;
  deleted: number;
}

/**
 * Work of one visit: new files claimed, and open claims moved on (oldest first). A visit stays
 * short (well inside the visit time limit) however many files a folder holds; the rest waits for
 * the next visit, a poll interval later.
 */
export const CLAIMS_PER_VISIT = 10;
/** Open claims a visit looks at (oldest first), waiting ones included: a bound on its store reads. */
const OPEN_CLAIMS_LOOKED_AT = 100;

export async function visitDropFolder(ctx: VisitContext, due: InboundClaim[]): Promise<VisitOutcome> {
  const outcome: VisitOutcome = { claimed: 0, delivered: 0, deleted: 0 };
  for (const claim of due) {
    await deleteClaimOutputs(ctx, claim);
    outcome.deleted++;
  }
  if (ctx.folder.removed_at !== null) return outcome;
  const inbox = await ctx.remote.list('inbox');
  await adoptProcessingFiles(ctx, inbox.map((e) => e.name));
  if (ctx.org && !ctx.org.suspended) {
    // Hidden names too: a claimable name renamed from one is complete at once (stability.ts).
    const ready = ctx.tracker.observe(ctx.folder.id, inbox, ctx.now().getTime());
    for (const name of ready.slice(0, CLAIMS_PER_VISIT)) {
      if (await claimFile(ctx, name)) outcome.claimed++;
    }
  }
  // Claims whose job is still running cost a store read and are passed over, so the files claimed
  // after them get their jobs now, while those are checked; only work done counts.
  let moved = 0;
  for (const claim of (await ctx.inbound.listOpenClaims('sftp', ctx.folder.id)).slice(0, OPEN_CLAIMS_LOOKED_AT)) {
    if (moved >= CLAIMS_PER_VISIT) break;
    const step = await advanceClaim(ctx, claim);
    if (step !== 'waiting') moved++;
    if (step === 'delivered') outcome.delivered++;
  }
  return outcome;
}

function newClaim(ctx: VisitContext, id: string, item: string): InboundClaim {
  const at = ctx.now().toISOString();
  return {
    id, channel: 'sftp', org_id: ctx.folder.org_id, source_ref: ctx.folder.id, item, state: 'claimed',
    outputs: [], delete_after: null, created_at: at, updated_at: at,
  };
}

/** Processing names whose claim was never recorded (killed right after the rename). */
async function adoptProcessingFiles(ctx: VisitContext, names: string[]): Promise<void> {
  for (const name of names) {
    const parsed = parseProcessingName(name);
    if (parsed) await ctx.inbound.claim(newClaim(ctx, parsed.claimId, name));
  }
}

async function claimFile(ctx: VisitContext, name: string): Promise<boolean> {
  ctx.tracker.forget(ctx.folder.id, name);
  const id = randomUUID();
  const item = processingName(name, id);
  try {
    await ctx.remote.rename(`inbox/${name}`, `inbox/${item}`);
  } catch (error) {
    // Gone or renamed by someone else meanwhile: not ours. Logged without the name (personal data possible).
    ctx.logger.warn({ folder_id: ctx.folder.id, ...errorFields(error) }, 'sftp.claim_rename_failed');
    return false;
  }
  await ctx.inbound.claim(newClaim(ctx, id, item));
  ctx.logger.info({ folder_id: ctx.folder.id, org_id: ctx.folder.org_id, claim_id: id }, 'sftp.file_claimed');
  return true;
}

/** What advancing a claim did: delivered it (result, error file or refusal), made its job, or nothing (its job runs). */
type ClaimStep = 'delivered' | 'started' | 'waiting';

/** Moves one claim on. */
async function advanceClaim(ctx: VisitContext, claim: InboundClaim): Promise<ClaimStep> {
  const parsed = parseProcessingName(claim.item);
  if (!parsed) return 'waiting';
  const original = parsed.original;
  if (ctx.folder.monitor_id) return (await advanceMonitorClaim(ctx, claim, original, ctx.folder.monitor_id)) ? 'delivered' : 'started';
  const processingPath = `inbox/${claim.item}`;
  let job = await ctx.fileJobs.get(claim.id);
  let made = false;
  if (!job) {
    if (!(await ctx.remote.exists(processingPath))) {
      // The file left the inbox without a job (removed by the customer): nothing to deliver.
      await ctx.inbound.updateClaim(claim.id, { state: 'deleted', updated_at: ctx.now().toISOString() });
      return 'started';
    }
    if (!ctx.org) return refusedStep(refuse(ctx, claim, original, new InboundRefusal('organisation_missing', inboundTexts('job_failed'))));
    const local = join(ctx.workDir, `${claim.id}.in`);
    try {
      await ctx.remote.download(processingPath, local);
      job = await ctx.fileJobs.create({
        id: claim.id, source: 'sftp', org: ctx.org, filename: original, path: local,
        column_mapping: ctx.folder.column_mapping, options: ctx.folder.options, locale: ctx.folder.locale,
      });
    } catch (error) {
      if (error instanceof InboundRefusal) return await refusedStep(refuse(ctx, claim, original, error));
      throw error;
    } finally {
      await rm(local, { force: true });
    }
    ctx.logger.info({ folder_id: ctx.folder.id, claim_id: claim.id, job_id: job.id, rows: job.row_count }, 'sftp.job_created');
    made = true;
  }
  const planned = await planOutputs(ctx, claim, original, ctx.fileJobs.resultExtension(job), job.delete_after);
  if (!isTerminal(job.status)) return made ? 'started' : 'waiting';
  const [result, , archived, errorFile, , summary] = planned.outputs;
  if (job.status === 'done') {
    const local = join(ctx.workDir, `${claim.id}.result`);
    // The counts first, so whoever sees the result sees its summary too (claims planned before
    // summaries existed have none).
    if (summary !== undefined) {
      await uploadText(ctx, claim.id, summary, resultSummaryText({
        filename: original, resultName: result.slice(result.lastIndexOf('/') + 1), rows: job.row_count, blocked: job.blocked_count,
        allowed: job.allowed_count, manual: job.manual_count, listPublishedOn: job.list_version?.published_on ?? null, finishedAt: job.finished_at,
      }, ctx.folder.locale));
    }
    try {
      await writeLocalResult(ctx.fileJobs, job, ctx.folder.locale, local);
      await ctx.remote.upload(local, result);
    } finally {
      await rm(local, { force: true });
    }
  } else {
    const texts = inboundTexts(job.status === 'deleted' ? 'job_deleted' : 'job_failed');
    await uploadText(ctx, claim.id, errorFile, refusalText(original, texts, ctx.folder.locale));
  }
  if (await ctx.remote.exists(processingPath)) await ctx.remote.rename(processingPath, archived);
  await ctx.inbound.updateClaim(claim.id, { state: 'delivered', updated_at: ctx.now().toISOString() });
  ctx.logger.info({ folder_id: ctx.folder.id, claim_id: claim.id, job_id: job.id, status: job.status }, 'sftp.result_delivered');
  return 'delivered';
}

async function refusedStep(refused: Promise<boolean>): Promise<ClaimStep> {
  await refused;
  return 'delivered';
}

/**
 * A claim of a folder bound to a monitor: the file replaces the monitor's contacts (no job), a
 * receipt goes to outbox/ (`<base>.receipt.txt`: the monitor's id and the count, no contact), the
 * file to archive/; a file that cannot be used is refused like any other (failed/, contacts
 * unchanged). Steps, each resumable:
 *
 *   download, replaceMonitorContacts        (InboundRefusal → refuse(): nothing replaced)
 *   store: outputs planned, delete_after    (planned ⇒ the contacts were replaced)
 *   outbox/<base>.receipt.txt, inbox/…processing ──rename──► archive/; store: delivered
 *
 * A crash between the replacement and the planning replaces again from the same file on the next
 * visit: the same contacts under the same keys, one more generation (the re-check then reports no
 * change for them); nothing is lost or doubled.
 */
async function advanceMonitorClaim(ctx: VisitContext, claim: InboundClaim, original: string, monitorId: string): Promise<boolean> {
  const processingPath = `inbox/${claim.item}`;
  const present = await ctx.remote.exists(processingPath);
  if (!present && claim.outputs.length === 0) {
    // The file left the inbox before it was read (removed by the customer): nothing to deliver.
    await ctx.inbound.updateClaim(claim.id, { state: 'deleted', updated_at: ctx.now().toISOString() });
    return false;
  }
  if (!ctx.org) return refuse(ctx, claim, original, new InboundRefusal('organisation_missing', inboundTexts('job_failed')));
  let contacts: number | null;
  let outputs = claim.outputs;
  if (outputs.length === 0) {
    const local = join(ctx.workDir, `${claim.id}.in`);
    try {
      await ctx.remote.download(processingPath, local);
      contacts = (await ctx.monitorFeed.replace({ org: ctx.org, monitorId, path: local, filename: original, column_mapping: ctx.folder.column_mapping })).contact_count;
    } catch (error) {
      if (error instanceof InboundRefusal) return await refuse(ctx, claim, original, new InboundRefusal(error.code, unchangedContacts(error.texts)));
      throw error;
    } finally {
      await rm(local, { force: true });
    }
    ctx.logger.info({ folder_id: ctx.folder.id, claim_id: claim.id, monitor_id: monitorId, contacts }, 'sftp.monitor_contacts_replaced');
    const receipt = await freeName(ctx, 'outbox', (taken) => receiptName(original, claim.id, taken));
    const archived = await freeName(ctx, 'archive', (taken) => archiveName(original, claim.id, taken));
    outputs = [receipt, partialUploadName(receipt), archived];
    // The customer's file is kept (archive/) as long as a job's would be: the organisation's retention.
    const deleteAfter = new Date(ctx.now().getTime() + ctx.org.retention_days * 86_400_000).toISOString();
    await ctx.inbound.updateClaim(claim.id, { state: 'job_created', outputs, delete_after: deleteAfter, updated_at: ctx.now().toISOString() });
  } else {
    // Replaced before a crash: the receipt tells the monitor's count now.
    contacts = await ctx.monitorFeed.contactCount(ctx.org, monitorId);
  }
  const [receipt, , archived] = outputs;
  await uploadText(ctx, claim.id, receipt, monitorReceiptText(original, monitorId, contacts, ctx.folder.locale));
  if (present) await ctx.remote.rename(processingPath, archived);
  await ctx.inbound.updateClaim(claim.id, { state: 'delivered', updated_at: ctx.now().toISOString() });
  ctx.logger.info({ folder_id: ctx.folder.id, claim_id: claim.id, monitor_id: monitorId }, 'sftp.monitor_receipt_delivered');
  return true;
}

/**
 * `<folder>/<name>`: the plain name, or the claim's variant (names.ts) when a file of the plain
 * name is already there, so nothing a customer has is ever replaced.
 */
async function freeName(ctx: VisitContext, folder: 'outbox' | 'archive' | 'failed', name: (taken: boolean) => string): Promise<string> {
  const plain = `${folder}/${name(false)}`;
  return (await ctx.remote.exists(plain)) ? `${folder}/${name(true)}` : plain;
}

/**
 * The claim's output names, chosen once (before anything is written) and kept on the claim, so a
 * retry writes to the same names: [result, its partial name, archive, error file, its partial name, summary,
 * its partial name].
 */
async function planOutputs(
  ctx: VisitContext, claim: InboundClaim, original: string, ext: 'csv' | 'xlsx', deleteAfter: string,
): Promise<InboundClaim> {
  if (claim.outputs.length > 0 && claim.delete_after !== null) return claim;
  const result = await freeName(ctx, 'outbox', (taken) => resultName(original, ext, claim.id, taken));
  const archived = await freeName(ctx, 'archive', (taken) => archiveName(original, claim.id, taken));
  const errorFile = await freeName(ctx, 'failed', (taken) => errorName(original, claim.id, taken));
  const summary = summaryNameOf(result);
  const outputs = [result, partialUploadName(result), archived, errorFile, partialUploadName(errorFile), summary, partialUploadName(summary)];
  const updated = await ctx.inbound.updateClaim(claim.id, {
    state: claim.state === 'claimed' ? 'job_created' : claim.state, outputs, delete_after: deleteAfter, updated_at: ctx.now().toISOString(),
  });
  return updated ?? claim;
}

/** A file that can never be a job: its reason into failed/, the file itself beside it. */
async function refuse(ctx: VisitContext, claim: InboundClaim, original: string, refusal: InboundRefusal): Promise<boolean> {
  let outputs = claim.outputs;
  if (outputs.length === 0) {
    const errorFile = await freeName(ctx, 'failed', (taken) => errorName(original, claim.id, taken));
    const kept = await freeName(ctx, 'failed', (taken) => archiveName(original, claim.id, taken));
    outputs = [errorFile, partialUploadName(errorFile), kept];
    const retentionDays = ctx.org?.retention_days ?? 30;
    const deleteAfter = new Date(ctx.now().getTime() + retentionDays * 86_400_000).toISOString();
    await ctx.inbound.updateClaim(claim.id, { outputs, delete_after: deleteAfter, updated_at: ctx.now().toISOString() });
  }
  const [errorFile, , kept] = outputs;
  await uploadText(ctx, claim.id, errorFile, refusalText(original, refusal.texts, ctx.folder.locale));
  const processingPath = `inbox/${claim.item}`;
  if (await ctx.remote.exists(processingPath)) await ctx.remote.rename(processingPath, kept);
  await ctx.inbound.updateClaim(claim.id, { state: 'delivered', updated_at: ctx.now().toISOString() });
  ctx.logger.info({ folder_id: ctx.folder.id, claim_id: claim.id, code: refusal.code }, 'sftp.file_refused');
  return true;
}

/** The result file on local disk, complete and closed when this resolves. */
export async function writeLocalResult(fileJobs: FileJobs, job: JobRecord, locale: Locale, path: string): Promise<void> {
  const out = createWriteStream(path, { mode: 0o600 });
  try {
    await fileJobs.writeResult(job, locale, out);
  } catch (error) {
    out.destroy();
    throw error;
  }
  if (!out.writableEnded) out.end();
  await finished(out);
}

async function uploadText(ctx: VisitContext, claimId: string, path: string, text: string): Promise<void> {
  const local = join(ctx.workDir, `${claimId}.txt`);
  try {
    await writeFile(local, text, { mode: 0o600 });
    await ctx.remote.upload(local, path);
  } finally {
    await rm(local, { force: true });
  }
}

/** delete_after reached: every file of the claim goes (result, archive, error, partials, processing name). */
async function deleteClaimOutputs(ctx: VisitContext, claim: InboundClaim): Promise<void> {
  for (const path of [...claim.outputs, `inbox/${claim.item}`]) await ctx.remote.remove(path);
  await ctx.inbound.updateClaim(claim.id, { state: 'deleted', updated_at: ctx.now().toISOString() });
  ctx.logger.info({ folder_id: ctx.folder.id, claim_id: claim.id }, 'sftp.files_expired');
}
