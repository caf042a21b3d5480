import type { CheckJobOptions, ColumnMapping } from '../../domain/check-job.ts';
import type { Locale, PersonInput } from '../../domain/types.ts';
import type { Organisation } from '../../platform/store/accounts-port.ts';
import type { JobRecord } from '../../platform/store/jobs-port.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * What the inbound channels (SFTP, email) need from the file ingest (services/ingest: readers,
 * mapping, result files): make a job from a file on local disk, find it again, write its result.
 * A narrow port so the channels' crash bookkeeping does not depend on how files are read.
 *
 * Promises:
 * - `create` makes the job with exactly the given id (the claim's), started at once, with the
 *   given mapping or else the one guessed from the headers. If a job with that id already exists
 *   (a restart after a crash), it returns that job and creates nothing.
 * - A file that can never become a job throws InboundRefusal (its code and da/en text); nothing
 *   is created. Any other error is transient (no active list yet, a store unreachable): the
 *   caller tries again later.
 * - `writeResult` writes a done job's result file (the input's format: xlsx/xls → xlsx, csv →
 *   csv) with headers in `locale`.
 */
export interface InboundFileSpec {
  id: string;
  source: 'sftp' | 'email' | 'connector';
  org: Organisation;
  /** The name the customer gave the file (shown on the job; the format is sniffed). */
  filename: string;
  /** The file on local disk (the caller deletes it afterwards). */
  path: string;
  column_mapping: ColumnMapping | null;
  options: CheckJobOptions;
  locale: Locale;
}

/** People already read from JSON/NDJSON (a connector's answer): the same record and events as a file. */
export interface InboundPeopleSpec extends Omit<InboundFileSpec, 'path' | 'column_mapping' | 'filename'> {
  filename: string | null;
  /** Batches from readPeopleFromJson / readPeopleFromNdjson: they throw on a bad person (nothing is created). */
  people: AsyncIterable<PersonInput[]>;
}

export interface FileJobs {
  create(spec: InboundFileSpec): Promise<JobRecord>;
  /** As `create`, for people read from JSON or NDJSON; a bad body is an InboundRefusal (`invalid_rows`). */
  createFromPeople(spec: InboundPeopleSpec): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | null>;
  /**
   * Ends a job whose intake is still open although no one publishes it any more (the caller
   * knows its publisher died: a process killed while publishing the rows): purged like DELETE
   * (no results kept, no callback). False, and nothing changed, when the intake was closed.
   */
  endInterrupted(id: string): Promise<boolean>;
  resultExtension(job: JobRecord): 'csv' | 'xlsx';
  writeResult(job: JobRecord, locale: Locale, out: NodeJS.WritableStream): Promise<void>;
  /** The da/en text of a refusal code `create` threw (to tell it again later, e.g. in a reply). */
  refusalTexts(code: string): Record<Locale, string>;
}

/** A file refused for good (unreadable, no usable columns, …): the code and the text to send back. */
export class InboundRefusal extends PermanentError {
  readonly code: string;
  readonly texts: Record<Locale, string>;
  constructor(code: string, texts: Record<Locale, string>) {
    super(`file refused: ${code}`);
    this.name = 'InboundRefusal';
    this.code = code;
    this.texts = texts;
  }
}
