/**
 * Jobs from files (DECISIONS §14): the entry points every file channel calls (the API's multipart
 * upload, SFTP drop folders, emailed spreadsheets, connectors). A file becomes a `draft` (columns,
 * mapping, a 20-row preview) or, with `start`, a `queued` job at once; a draft is started later
 * with the mapping and options the customer settles on.
 *
 * Bad input changes nothing: the whole file is read (and refused: FileRefusedError) before a
 * record exists, a mapping naming a missing column is a ColumnMappingError, a mapped value over
 * 200 characters a JobInputError naming the row; none of them leaves a job, a spool file or an
 * event behind.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { CheckJobOptions, ColumnMapping, JobSource, PreviewRow } from '../../domain/check-job.ts';
import type { CheckOptions, CheckResult, Locale } from '../../domain/types.ts';
import type { JobChecks, JobRowInput } from '../../domain/job-row.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Organisation } from '../../platform/store/accounts-port.ts';
import type { JobRecord, JobStore } from '../../platform/store/jobs-port.ts';
import { FileRefusedError, openTable, resolveColumnMapping, type TableSource } from '../files/index.ts';
import { JobInputError, jobInputIssue, JobNotDraftError } from '../jobs/errors.ts';
import type { JobIntake, JobSpec } from '../jobs/intake.ts';
import { createDraftFiles, type DraftFiles } from './draft-files.ts';
import { personOfRow, spoolRowsOf } from './file-rows.ts';
import { headerRowOf, summariseTable, type Cells } from './table-summary.ts';

export interface FileIngestDeps {
  intake: JobIntake;
  jobs: JobStore;
  /** Where drafts keep their uploaded file (UPLOAD_DIR). */
  draftDir: string;
  /**
   * Checks the preview's rows as the job would (test keys: the fixed answers; live: the active
   * versions), with the checks the job asks for. Throws ListNotReadyError when a live check has
   * no active version.
   */
  checkPreview: (people: JobRowInput[], mode: 'live' | 'test', options: CheckOptions, checks: JobChecks) => CheckResult[];
  logger: Logger;
}

export interface FileJobSpec {
  source: JobSource;
  org: Pick<Organisation, 'id' | 'stop_level' | 'retention_days' | 'plan'> & Partial<Pick<Organisation, 'addons'>>;
  mode: 'live' | 'test';
  keyHash: string;
  /** The name the customer gave the file: shown on the job; the format is sniffed from the bytes. */
  filename: string | null;
  /** The file on local disk. Never changed; copied for a draft unless `takeFile`. */
  path: string;
  /** The file is the caller's temp file: a draft may move it instead of copying. */
  takeFile?: boolean;
  column_mapping?: ColumnMapping | null;
  options?: CheckJobOptions;
  callback_url?: string | null;
  external_ref?: string | null;
  /** Language of the result labels (and of the preview's). */
  locale: Locale;
  /** true: the job is queued at once (SFTP, email, `options.start`); false: a draft. */
  start: boolean;
}

export interface StartChanges {
  column_mapping?: ColumnMapping;
  options?: CheckJobOptions;
  locale: Locale;
  /** The organisation's plan now: a pay-per-list draft starts awaiting_payment (DECISIONS §8). */
  plan: Organisation['plan'];
  /** The starting organisation's add-ons (company and phone options need theirs); absent: none. */
  addons?: Organisation['addons'];
}

export interface FileIngest {
  createJobFromFile(spec: FileJobSpec): Promise<JobRecord>;
  /** Moves a draft on (DECISIONS §7). JobNotDraftError when it is not (or no longer) a draft. */
  startDraft(jobId: string, changes: StartChanges): Promise<JobRecord>;
  /** Removes the draft files of jobs that are not drafts any more (API start, retention period). */
  sweepDraftFiles(): Promise<number>;
  /** Removes a job's draft file at once (DELETE). */
  discardDraftFile(jobId: string): Promise<void>;
  draftFiles: DraftFiles;
}

/** A draft file younger than this may belong to a draft whose record is being written. */
const DRAFT_FILE_GRACE_MS = 10 * 60 * 1000;

export function createFileIngest(deps: FileIngestDeps): FileIngest {
  const logger = deps.logger.child({ module: 'ingest.uploads' });
  const draftFiles = createDraftFiles(deps.draftDir);
  /** Starts in flight in this process: a second /start of the same draft is refused meanwhile. */
  const starting = new Set<string>();

  function previewOf(cells: Cells[], mapping: ReturnType<typeof resolveColumnMapping> | null, spec: JobSpec): PreviewRow[] {
    const people = cells.map((row, i) => (mapping ? personOfRow(row, mapping, i, true) : {}));
    const results = deps.checkPreview(people, spec.mode, {
      policy: spec.policy ?? spec.options?.policy ?? 'standard',
      stopLevel: spec.options?.stop_level ?? spec.org.stop_level ?? 1,
      locale: spec.locale,
    }, {
      people: spec.options?.check_people ?? true, companies: spec.options?.check_companies ?? false, phones: spec.options?.check_phones ?? false,
    });
    return cells.map((row, i) => ({ cells: row, result: results[i] }));
  }

  async function createJobFromFile(spec: FileJobSpec): Promise<JobRecord> {
    const table = await openTable(spec.path, { filename: spec.filename });
    const summary = await summariseTable(table, spec.column_mapping ?? null);
    if (summary.rowCount === 0) throw new FileRefusedError('file_no_data');
    const resolved = summary.mapping ? resolveColumnMapping(summary.mapping, summary.header, summary.columnCount) : null;
    const jobSpec: JobSpec = {
      source: spec.source,
      org: spec.org,
      mode: spec.mode,
      keyHash: spec.keyHash,
      ...(spec.options ? { options: spec.options } : {}),
      callback_url: spec.callback_url ?? null,
      external_ref: spec.external_ref ?? null,
      locale: spec.locale,
      inputSha256: await sha256OfFile(spec.path),
      filename: spec.filename,
      file_format: table.format,
      columns: summary.columns,
      column_mapping: summary.mapping,
      csv_dialect: table.csv,
    };
    if (spec.start) {
      if (!resolved) throw new JobInputError([jobInputIssue('column_mapping', 'column_mapping_required')]);
      const spooled = await deps.intake.spoolRows(spoolRowsOf(await openTable(spec.path, { filename: spec.filename }), resolved, summary.headerRow));
      try {
        return await deps.intake.commit(spooled, jobSpec);
      } finally {
        await spooled.discard();
      }
    }
    const preview = previewOf(summary.preview, resolved, jobSpec);
    // The file is kept before the record exists: killed in between, the sweep removes a file
    // without a job; the other way round a draft could never be started.
    const jobId = randomUUID();
    await draftFiles.keep(jobId, spec.path, { move: spec.takeFile === true });
    try {
      return await deps.intake.createDraft(jobSpec, { jobId, rowCount: summary.rowCount, preview, inputSha256: jobSpec.inputSha256 as string });
    } catch (error) {
      await draftFiles.remove(jobId);
      throw error;
    }
  }

  async function headerOf(table: TableSource, headerRow: number): Promise<{ header: Cells | null; columnCount: number }> {
    // Only the rows up to the header, and a few more for the width; the rest are read by the spool.
    let index = 0;
    let header: Cells | null = null;
    let columnCount = 0;
    for await (const cells of table.rows()) {
      columnCount = Math.max(columnCount, cells.length);
      if (index === headerRow) header = cells;
      if (index >= headerRow + 50) break;
      index += 1;
    }
    return { header, columnCount };
  }

  async function startDraft(jobId: string, changes: StartChanges): Promise<JobRecord> {
    if (starting.has(jobId)) throw new JobNotDraftError('starting');
    starting.add(jobId);
    try {
      const draft = await deps.jobs.getJobById(jobId);
      if (!draft || draft.status !== 'draft') throw new JobNotDraftError(draft?.status ?? 'deleted');
      const retention = changes.options?.retention_days;
      if (retention !== undefined && retention !== draft.options.retention_days) {
        throw new JobInputError([jobInputIssue('options.retention_days', 'retention_fixed_at_upload')]);
      }
      const mapping = changes.column_mapping ?? draft.column_mapping;
      if (!mapping) throw new JobInputError([jobInputIssue('column_mapping', 'column_mapping_required')]);
      const path = draftFiles.pathOf(jobId);
      const headerRow = headerRowOf(mapping);
      const { header, columnCount } = await headerOf(await openTable(path, { filename: draft.filename }), headerRow);
      const resolved = resolveColumnMapping(mapping, headerRow >= 0 ? header : null, columnCount);
      const options: CheckJobOptions = { ...draft.options, ...changes.options };
      const spec: JobSpec = {
        source: draft.source,
        org: {
          id: draft.org_id, stop_level: options.stop_level ?? 1, retention_days: options.retention_days ?? 30, plan: changes.plan,
          ...(changes.addons ? { addons: changes.addons } : {}),
        },
        mode: draft.mode,
        keyHash: draft.key_hash,
        options,
        callback_url: draft.callback_url,
        external_ref: draft.external_ref,
        locale: changes.locale,
        column_mapping: mapping,
        ...(changes.column_mapping && headerRow >= 0 && header ? { columns: Array.from({ length: columnCount }, (_, i) => header[i] ?? '') } : {}),
      };
      const spooled = await deps.intake.spoolRows(spoolRowsOf(await openTable(path, { filename: draft.filename }), resolved, headerRow));
      let started: JobRecord;
      try {
        started = await deps.intake.startDraft(draft, spooled, spec);
      } finally {
        await spooled.discard();
      }
      await draftFiles.remove(jobId);
      return started;
    } finally {
      starting.delete(jobId);
    }
  }

  return {
    draftFiles,
    createJobFromFile,
    startDraft,
    discardDraftFile: (jobId) => draftFiles.remove(jobId),
    async sweepDraftFiles() {
      const removed = await sweepDraftFiles(deps.draftDir, deps.jobs);
      if (removed > 0) logger.info({ removed }, 'draft.files_removed');
      return removed;
    },
  };
}

/**
 * Removes the draft files whose job is not a draft any more (purged at its delete_after, deleted,
 * started by a process killed before removing the file) or does not exist; the API runs it at
 * start and every retention period.
 */
export function sweepDraftFiles(draftDir: string, jobs: Pick<JobStore, 'getJobById'>): Promise<number> {
  return createDraftFiles(draftDir).sweep(async (jobId) => (await jobs.getJobById(jobId))?.status === 'draft', DRAFT_FILE_GRACE_MS);
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
