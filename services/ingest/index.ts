/**
 * Ingest: the one home of "turn a source into a job" (docs/architecture.md "Job intake"). The API,
 * SFTP drop folders, emailed spreadsheets, connectors and monitors all call these entry points,
 * so every job has the same record, the same events and the same guarantees (bad input changes
 * nothing; a killed process never leaves a job half-created; no personal data in errors or logs).
 *
 * - people (JSON, NDJSON, a monitor's stored list): `createJobFromPeople`, or `intake.spool` +
 *   `intake.commit` when the caller must claim an idempotency key in between (the API).
 * - files (csv, xlsx, xls): see services/ingest/uploads (createJobFromFile, startDraft,
 *   streamResultFile).
 *
 * Errors: JobInputError (the job's fields; 422 at the edge), ListNotReadyError (503), the people
 * readers' IntakeError (400/422), and for files FileRefusedError / ColumnMappingError (422).
 */
import type { CheckOptions, CheckResult, Locale, PersonInput } from '../domain/types.ts';
import type { JobChecks, JobRowInput } from '../domain/job-row.ts';
import type { JobRecord } from '../platform/store/jobs-port.ts';
import { createJobIntake, type JobIntake, type JobIntakeDeps, type JobSpec } from './jobs/intake.ts';
import { createFileIngest, type FileIngest, type FileJobSpec, type PreviewChanges, type StartChanges } from './uploads/file-jobs.ts';
import { resultFileSpec, streamResultFile, type ResultFileChange, type ResultFileFormat, type ResultFileRows, type ResultFileSpec } from './uploads/result-file.ts';

export {
  AddonRequiredError, JobInputError, JobNotDraftError, ListNotReadyError, RegisterNotReadyError, SpoolFullError, type JobInputIssue,
} from './jobs/errors.ts';
export {
  ColumnMappingError, FileRefusedError, fileRefusalMessage, type FileRefusalCode, type MappingWarning, mappingWarningText, MappingWarningsError,
} from './files/index.ts';
export { draftWarnings } from './uploads/file-jobs.ts';
export { sweepDraftFiles, type FileJobSpec, type StartChanges } from './uploads/file-jobs.ts';
export { resultFileSpec, type ResultFileChange, type ResultFileFormat, type ResultFileRows, type ResultFileSpec } from './uploads/result-file.ts';
export { removeStaleSpoolFiles } from './jobs/spool.ts';
export { spoolBytes, type SpooledBytes } from './jobs/spool-bytes.ts';
export { endUnfinishedJob } from './jobs/end-job.ts';
export { readPeopleFromFile, type FilePeople, type FilePeopleOptions } from './uploads/file-people.ts';

export { DEFAULT_SPOOL_DIR, type JobIntake, type JobIntakeDeps, type JobSpec } from './jobs/intake.ts';
export { IntakeError, readPeopleFromJson, readPeopleFromNdjson, type IntakeErrorCode } from './people/index.ts';

export interface PeopleIngest {
  /** The two-phase intake underneath (spool, then commit), for callers with an idempotency claim. */
  intake: JobIntake;
  /**
   * Reads and validates every person (the iterable throws on a bad one: nothing is created), then
   * creates the job `queued`, pins the list version and publishes its rows. The spool file is
   * gone when the promise settles.
   */
  createJobFromPeople(spec: JobSpec & { people: AsyncIterable<PersonInput[]> }): Promise<JobRecord>;
}

export function createPeopleIngest(deps: JobIntakeDeps): PeopleIngest {
  const intake = createJobIntake(deps);
  return { intake, createJobFromPeople: (spec) => intake.createJob(spec) };
}

export interface IngestDeps extends JobIntakeDeps {
  /** Where drafts keep their uploaded file until started or deleted (UPLOAD_DIR). */
  draftDir: string;
  /** The preview's checks, as the job would run them (see FileIngestDeps.checkPreview). */
  checkPreview: (people: JobRowInput[], mode: 'live' | 'test', options: CheckOptions, checks: JobChecks) => CheckResult[];
}

/** Every entry point: people, files, drafts and result files (docs/architecture.md "Job intake"). */
export interface Ingest extends PeopleIngest {
  /**
   * A file on local disk → a `draft` (start false) or a `queued` job (start true). The whole file
   * is read first; FileRefusedError / ColumnMappingError / JobInputError leave nothing behind.
   * The caller's file is never changed (copied for a draft unless `takeFile`).
   */
  createJobFromFile(spec: FileJobSpec): Promise<JobRecord>;
  /** Moves a draft on with an optional new mapping/options; JobNotDraftError when it is not one. */
  startDraft(jobId: string, changes: StartChanges): Promise<JobRecord>;
  /** The draft again with another mapping or options (columns, preview, warnings); nothing starts. */
  previewDraft(jobId: string, changes: PreviewChanges): Promise<JobRecord>;
  /** Writes a done job's result file to `out`; `resultFileSpec` says its type and name first. */
  streamResultFile(job: JobRecord, options: { format?: ResultFileFormat; locale: Locale; rows?: ResultFileRows; change?: ResultFileChange }, out: NodeJS.WritableStream): Promise<void>;
  resultFileSpec(job: JobRecord, format?: ResultFileFormat, rows?: ResultFileRows, change?: ResultFileChange): ResultFileSpec;
  /** Draft files of jobs that are no longer drafts (purged, started elsewhere) go; call periodically. */
  sweepDraftFiles(): Promise<number>;
  /** DELETE of a draft: its file goes at once. */
  discardDraftFile(jobId: string): Promise<void>;
}

export function createIngest(deps: IngestDeps): Ingest {
  const people = createPeopleIngest(deps);
  const files: FileIngest = createFileIngest({
    intake: people.intake, jobs: deps.jobs, draftDir: deps.draftDir, checkPreview: deps.checkPreview, logger: deps.logger,
  });
  return {
    ...people,
    createJobFromFile: files.createJobFromFile,
    startDraft: files.startDraft,
    previewDraft: files.previewDraft,
    streamResultFile: (job, options, out) => streamResultFile(deps.jobs, job, options, out),
    resultFileSpec,
    sweepDraftFiles: files.sweepDraftFiles,
    discardDraftFile: files.discardDraftFile,
  };
}
