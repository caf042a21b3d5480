/**
 * Jobs from files (docs/decisions.md §14): the entry points every file channel calls (the API's multipart
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
import {
  ColumnMappingError, FileRefusedError, isUnreadableResult, type MappingWarning, mappingWarnings, MappingWarningsError, openTable, resolveColumnMapping,
  type ResolvedColumnMapping, type TableSource,
} from '../files/index.ts';
import { JobInputError, jobInputIssue, JobNotDraftError } from '../jobs/errors.ts';
import { requireAddons, type JobIntake, type JobSpec } from '../jobs/intake.ts';
import { createDraftFiles, type DraftFiles } from './draft-files.ts';
import { personOfRow, spoolBatchesOf, spoolRowsOf, unreadableRows } from './file-rows.ts';
import { headerRowOf, PREVIEW_ROWS, startTablePass, summariseTable, type Cells, type TableSummary } from './table-summary.ts';
import { plainFileName } from './file-name.ts';
import { createParseSlots, type ParseSlots } from './parse-slots.ts';
import { withheldVerdict } from '../../domain/withheld-verdict.ts';

export interface FileIngestDeps {
  /** Files read at once by this process (docs/files.md "Limits"); default 2. */
  maxFilesReadAtOnce?: number;
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
  /** Hex SHA-256 of the file when the caller hashed it while receiving it (an upload); else it is hashed here. */
  sha256?: string;
  /** The file is the caller's temp file: a draft may move it instead of copying. */
  takeFile?: boolean;
  column_mapping?: ColumnMapping | null;
  /**
   * Without `column_mapping`: the organisation's saved mapping for the file's first rows, if any,
   * used before guessing (docs/inbound.md "Saved column mappings on every channel").
   */
  savedMapping?: (firstRows: Cells[]) => ColumnMapping | null;
  options?: CheckJobOptions;
  callback_url?: string | null;
  external_ref?: string | null;
  /** Language of the result labels (and of the preview's). */
  locale: Locale;
  /** true: the job is queued at once (SFTP, email, `options.start`); false: a draft. */
  start: boolean;
  /**
   * With `start`: the caller has seen and accepts the mapping's warnings (docs/uploads.md
   * "Warnings"). Without it a file with warnings is refused with MappingWarningsError.
   */
  confirmWarnings?: boolean;
  /**
   * With `start`: called with the file's row count once it is read, before the job is created;
   * what it throws refuses the job with nothing created (the API's quota of waiting rows).
   */
  beforeQueue?: (rows: number) => Promise<void>;
}

export interface StartChanges {
  column_mapping?: ColumnMapping;
  options?: CheckJobOptions;
  locale: Locale;
  /** The organisation's plan now: a pay-per-list draft starts awaiting_payment (docs/decisions.md §8). */
  plan: Organisation['plan'];
  /** The starting organisation's add-ons (company and phone options need theirs); absent: none. */
  addons?: Organisation['addons'];
  /** The caller accepts the warnings of the mapping it starts with (else MappingWarningsError). */
  confirmWarnings?: boolean;
}

export type PreviewChanges = Pick<StartChanges, 'column_mapping' | 'options' | 'locale' | 'plan'>;

export interface FileIngest {
  createJobFromFile(spec: FileJobSpec): Promise<JobRecord>;
  /** Moves a draft on (docs/decisions.md §7). JobNotDraftError when it is not (or no longer) a draft. */
  startDraft(jobId: string, changes: StartChanges): Promise<JobRecord>;
  /**
   * The same draft with another mapping or options: columns, preview (checked again) and so its
   * warnings are made anew; nothing starts. JobNotDraftError when it is not a draft.
   */
  previewDraft(jobId: string, changes: PreviewChanges): Promise<JobRecord>;
  /** Removes the draft files of jobs that are not drafts any more (API start, retention period). */
  sweepDraftFiles(): Promise<number>;
  /** Removes a job's draft file at once (DELETE). */
  discardDraftFile(jobId: string): Promise<void>;
  draftFiles: DraftFiles;
  /** The bound on files read at once. */
  parseSlots: ParseSlots;
}

/** A draft file younger than this may belong to a draft whose record is being written. */
const DRAFT_FILE_GRACE_MS = 10 * 60 * 1000;

export function createFileIngest(deps: FileIngestDeps): FileIngest {
  const logger = deps.logger.child({ module: 'ingest.uploads' });
  const draftFiles = createDraftFiles(deps.draftDir);
  /** Starts in flight in this process: a second /start of the same draft is refused meanwhile. */
  const starting = new Set<string>();
  const parseSlots = createParseSlots(deps.maxFilesReadAtOnce ?? 2);

  function previewOf(cells: Cells[], mapping: ReturnType<typeof resolveColumnMapping> | null, spec: JobSpec): PreviewRow[] {
    const people = cells.map((row, i) => (mapping ? personOfRow(row, mapping, i, true) : {}));
    const results = deps.checkPreview(people, spec.mode, {
      policy: spec.policy ?? spec.options?.policy ?? 'standard',
      stopLevel: spec.options?.stop_level ?? spec.org.stop_level ?? 1,
      locale: spec.locale,
    }, {
      people: spec.options?.check_people ?? true, companies: spec.options?.check_companies ?? false, phones: spec.options?.check_phones ?? false,
    });
    // docs/uploads.md "Previews of pay-per-list drafts": the list's answer is what the customer pays for.
    const withhold = spec.mode === 'live' && spec.org.plan === 'pay_per_list';
    return cells.map((row, i) => ({ cells: row, result: withhold ? withheldVerdict(results[i], spec.locale) : results[i] }));
  }

  /** The job's fields from the file's summary (what every job made of a file stores). */
  function jobSpecOf(spec: FileJobSpec, table: TableSource, summary: TableSummary, inputSha256: string): JobSpec {
    return {
      source: spec.source,
      org: spec.org,
      mode: spec.mode,
      keyHash: spec.keyHash,
      ...(spec.options ? { options: spec.options } : {}),
      callback_url: spec.callback_url ?? null,
      external_ref: spec.external_ref ?? null,
      locale: spec.locale,
      inputSha256,
      // Every channel's name (upload, SFTP, email, connector) is made plain here, once.
      filename: plainFileName(spec.filename),
      file_format: table.format,
      columns: summary.columns,
      column_mapping: summary.mapping,
      csv_dialect: table.csv,
    };
  }

  /** A start's checks before any row is spooled: a mapping, the add-ons, the warnings unless confirmed. */
  function checkStart(spec: FileJobSpec, summary: TableSummary, resolved: ResolvedColumnMapping | null): ResolvedColumnMapping {
    if (!resolved) throw new JobInputError([jobInputIssue('column_mapping', 'column_mapping_required')]);
    requireAddons(spec.options, spec.org);
    if (spec.confirmWarnings !== true) {
      // No list index here (SFTP, email, connectors have none): the rows are read as the check would.
      const warnings = mappingWarnings(summary.mapping, spec.options ?? {}, unreadableRows(summary.preview, resolved));
      if (warnings.length > 0) throw new MappingWarningsError(warnings);
    }
    return resolved;
  }

  async function createJobFromFile(spec: FileJobSpec): Promise<JobRecord> {
    if (spec.start) return startFile(spec);
    const table = await openTable(spec.path, { filename: spec.filename });
    const summary = await summariseTable(table, spec.column_mapping ?? null, spec.savedMapping);
    if (summary.rowCount === 0) throw new FileRefusedError('file_no_data');
    const resolved = summary.mapping ? resolveColumnMapping(summary.mapping, summary.header, summary.columnCount) : null;
    const jobSpec = jobSpecOf(spec, table, summary, spec.sha256 ?? await sha256OfFile(spec.path));
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

  /**
   * A file job that starts at once, its file read once (docs/uploads.md "Flow"): the head decides
   * the mapping and is checked (mapping, add-ons, warnings) before anything exists; then every
   * row is spooled and, past the overlapped intake's first 10,000, published while the rest is
   * read (docs/architecture.md "Overlapped intake": a refusal later in the file abandons the job,
   * which no answer has named). A mapping that names a column the head does not reach (a wider
   * row further down) is read the old way: summarised whole first, then spooled.
   */
  async function startFile(spec: FileJobSpec): Promise<JobRecord> {
    const hashed = spec.sha256 ? Promise.resolve(spec.sha256) : sha256OfFile(spec.path);
    hashed.catch(() => undefined);
    const table = await openTable(spec.path, { filename: spec.filename });
    const pass = startTablePass(table, spec.column_mapping ?? null, spec.savedMapping);
    const head = await pass.head();
    if (head.ended && head.rowCount === 0) throw new FileRefusedError('file_no_data');
    let resolved: ResolvedColumnMapping | null = null;
    try {
      resolved = head.mapping ? resolveColumnMapping(head.mapping, head.header, head.columnCount) : null;
    } catch (error) {
      if (error instanceof ColumnMappingError && !head.ended) return startFileReadTwice(spec, await hashed);
      throw error;
    }
    const mapping = checkStart(spec, head, resolved);
    const early = jobSpecOf(spec, table, head, '');
    // `early` and the seal's spec differ only where seal does not compare (hash, columns, dialect).
    const streamed = await deps.intake.spoolAndPublish(spoolBatchesOf(pass.dataBatches(), mapping), () => early, { fixedSpec: true });
    try {
      const final = jobSpecOf(spec, table, pass.summary(), await hashed);
      await spec.beforeQueue?.(streamed.rowCount);
      // Read past the head, a row wider than the header's or a windows-1252 byte after a UTF-8
      // start changes the columns or the dialect: the early record gets the final ones before the
      // seal, so the result file is written as the file was read.
      const changed = JSON.stringify([early.columns, early.csv_dialect]) !== JSON.stringify([final.columns, final.csv_dialect]);
      if (changed && streamed.early) await deps.jobs.updateJob(streamed.early.job.id, { columns: final.columns ?? [], csv_dialect: final.csv_dialect ?? null });
      const job = await deps.intake.seal(streamed, final);
      return changed ? { ...job, columns: final.columns ?? [], csv_dialect: final.csv_dialect ?? null } : job;
    } catch (error) {
      await deps.intake.abandon(streamed);
      throw error;
    } finally {
      await streamed.discard();
    }
  }

  /** The file summarised whole, then read again into the spool: for a mapping only the whole file can resolve. */
  async function startFileReadTwice(spec: FileJobSpec, inputSha256: string): Promise<JobRecord> {
    const table = await openTable(spec.path, { filename: spec.filename });
    const summary = await summariseTable(table, spec.column_mapping ?? null, spec.savedMapping);
    if (summary.rowCount === 0) throw new FileRefusedError('file_no_data');
    const resolved = summary.mapping ? resolveColumnMapping(summary.mapping, summary.header, summary.columnCount) : null;
    const mapping = checkStart(spec, summary, resolved);
    const spooled = await deps.intake.spoolRows(spoolRowsOf(await openTable(spec.path, { filename: spec.filename }), mapping, summary.headerRow));
    try {
      await spec.beforeQueue?.(spooled.rowCount);
      return await deps.intake.commit(spooled, jobSpecOf(spec, table, summary, inputSha256));
    } finally {
      await spooled.discard();
    }
  }

  async function headerOf(table: TableSource, headerRow: number): Promise<{ header: Cells | null; columnCount: number; firstRows: Cells[] }> {
    // Only the rows up to the header, and a few more for the width; the rest are read by the spool.
    let index = 0;
    let header: Cells | null = null;
    let columnCount = 0;
    const firstRows: Cells[] = [];
    for await (const cells of table.rows()) {
      columnCount = Math.max(columnCount, cells.length);
      if (index === headerRow) header = cells;
      else if (index > headerRow && firstRows.length < PREVIEW_ROWS) firstRows.push(cells);
      if (index >= headerRow + 50) break;
      index += 1;
    }
    return { header, columnCount, firstRows };
  }

  /**
   * The warnings a start must have confirmed: the draft's own when neither the mapping nor the
   * checks change; else the first rows checked again with the new mapping, as the draft's preview
   * was (the same reading a customer saw).
   */
  function startWarnings(draft: JobRecord, mapping: ColumnMapping, resolved: ResolvedColumnMapping, options: CheckJobOptions, firstRows: Cells[]): MappingWarning[] {
    const sameChecks = (['check_people', 'check_companies', 'check_phones'] as const).every((k) => draft.options[k] === options[k]);
    if (sameChecks && JSON.stringify(mapping) === JSON.stringify(draft.column_mapping)) return draftWarnings(draft);
    const people = firstRows.map((cells, i) => personOfRow(cells, resolved, i, true));
    const results = deps.checkPreview(people, draft.mode, {
      policy: options.policy ?? 'standard', stopLevel: options.stop_level ?? 1, locale: 'da',
    }, { people: options.check_people ?? true, companies: options.check_companies ?? false, phones: options.check_phones ?? false });
    return mappingWarnings(mapping, options, results.map(isUnreadableResult));
  }

  /**
   * A draft as /start and /preview read it with the caller's changes: still a draft, retention
   * unchanged, a mapping, the file's header and first rows, the mapping resolved, the options merged.
   */
  async function readDraft(jobId: string, changes: PreviewChanges) {
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
    const { header, columnCount, firstRows } = await headerOf(await openTable(path, { filename: draft.filename }), headerRow);
    const resolved = resolveColumnMapping(mapping, headerRow >= 0 ? header : null, columnCount);
    const options: CheckJobOptions = { ...draft.options, ...changes.options };
    return { draft, mapping, path, headerRow, header, columnCount, firstRows, resolved, options };
  }

  async function startDraft(jobId: string, changes: StartChanges): Promise<JobRecord> {
    if (starting.has(jobId)) throw new JobNotDraftError('starting');
    starting.add(jobId);
    try {
      const { draft, mapping, path, headerRow, header, columnCount, firstRows, resolved, options } = await readDraft(jobId, changes);
      requireAddons(options, { addons: changes.addons ?? [] });
      if (changes.confirmWarnings !== true) {
        const warnings = startWarnings(draft, mapping, resolved, options, firstRows);
        if (warnings.length > 0) throw new MappingWarningsError(warnings);
      }
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

  async function previewDraft(jobId: string, changes: PreviewChanges): Promise<JobRecord> {
    const { draft, mapping, path, headerRow, header, columnCount, firstRows, resolved, options } = await readDraft(jobId, changes);
    const preview = previewOf(firstRows, resolved, {
      source: draft.source, org: { id: draft.org_id, stop_level: options.stop_level ?? 1, retention_days: options.retention_days ?? 30, plan: changes.plan },
      mode: draft.mode, keyHash: draft.key_hash, options, locale: changes.locale,
    });
    const columns = headerRow >= 0 && header
      ? Array.from({ length: columnCount }, (_, i) => header[i] ?? '')
      : Array.from({ length: columnCount }, (_, i) => String(i + 1));
    // Another header row makes other rows data: counted again (a full read, as the start does).
    const rowCount = headerRowOf(draft.column_mapping) === headerRow ? draft.row_count : await dataRowsAfter(path, draft.filename, headerRow);
    const updated = await deps.jobs.updateJob(jobId, { column_mapping: mapping, columns, preview, options, row_count: rowCount }, (current) => current.status === 'draft');
    if (!updated) throw new JobNotDraftError('started');
    return updated;
  }

  async function dataRowsAfter(path: string, filename: string | null, headerRow: number): Promise<number> {
    let index = 0;
    let rows = 0;
    for await (const _cells of (await openTable(path, { filename })).rows()) if (index++ > headerRow) rows += 1;
    return rows;
  }

  return {
    draftFiles,
    // Every read of a file (a new upload, a draft read again at /start or for a new preview) takes a slot.
    createJobFromFile: (spec: FileJobSpec) => parseSlots.run(() => createJobFromFile(spec)),
    startDraft: (jobId: string, changes: StartChanges) => parseSlots.run(() => startDraft(jobId, changes)),
    previewDraft: (jobId: string, changes: PreviewChanges) => parseSlots.run(() => previewDraft(jobId, changes)),
    parseSlots,
    discardDraftFile: (jobId) => draftFiles.remove(jobId),
    async sweepDraftFiles() {
      const removed = await sweepDraftFiles(deps.draftDir, deps.jobs);
      if (removed > 0) logger.info({ removed }, 'draft.files_removed');
      return removed;
    },
  };
}

/**
 * A draft's warnings (docs/uploads.md "Warnings"): its mapping and checks, and which preview rows
 * its own check could not read. Derived from the stored draft, so nothing new is stored and every
 * reader of the job sees the same. Only drafts have them; a started job's were confirmed.
 */
export function draftWarnings(job: Pick<JobRecord, 'status' | 'column_mapping' | 'options' | 'preview'>): MappingWarning[] {
  if (job.status !== 'draft') return [];
  return mappingWarnings(job.column_mapping, job.options, job.preview.map((row) => isUnreadableResult(row.result)));
}

/**
 * Removes the draft files whose job is not a draft any more (purged at its delete_after, deleted,
 * started by a process killed before removing the file) or does not exist; the API runs it at
 * start and every retention period.
 */
export function sweepDraftFiles(draftDir: string, jobs: Pick<JobStore, 'getJobById'>): Promise<number> {
  return createDraftFiles(draftDir).sweep(async (jobId) => {
    const job = await jobs.getJobById(jobId);
    return job === null ? 'no_record' : job.status === 'draft' ? 'draft' : 'not_draft';
  }, DRAFT_FILE_GRACE_MS);
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
