/**
 * Job intake: every ingest path (API JSON and NDJSON, uploads, SFTP, email, connectors, monitors'
 * re-checks) turns its people into the same job record and the same events (docs/architecture.md "Flow"): one JobCreated,
 * the rows in chunks on checks.rows, one RowsComplete. Nothing downstream knows the source except
 * through `source`.
 *
 * Two phases, so that bad input changes nothing: `spool` reads and validates the whole input to
 * a local file (the reader throws on the first bad row); only then `commit` checks the job's
 * fields, pins the list version, creates the record and publishes. The API runs `commit` inside
 * its idempotency claim, whose fingerprint is only known once the body has been read.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  emptyLevelCounts, type CheckJobOptions, type ColumnMapping, type JobPrice, type JobSource, type PreviewRow,
} from '../../domain/check-job.ts';
import { TEST_LIST_VERSION } from '../../domain/index.ts';
import { needsPayment, priceFor, type PriceTable } from '../../domain/pricing.ts';
import type { ListVersionRef, Locale, MatchPolicy, PersonInput } from '../../domain/types.ts';
import { errorFields, type Logger } from '../../platform/logger.ts';
import type { Organisation } from '../../platform/store/accounts-port.ts';
import type { CsvDialectRecord, JobMonitorRef, JobRecord, JobStore } from '../../platform/store/jobs-port.ts';
import type { PipelineEvent, PipelineEvents } from '../../pipeline/events.ts';
import { createChunkPublisher, MAX_CHUNK_BYTES, NO_REGISTER_PINS, type ChunkPublisher, type RegisterPins } from './chunk-publisher.ts';
import {
  AddonRequiredError, JobInputError, jobInputIssue, ListNotReadyError, RegisterNotReadyError, type JobInputIssue,
} from './errors.ts';
import { spoolBody, spoolPeople, spoolRows, type SpoolBatch, type SpooledPeople, type SpoolRow } from './spool.ts';

export const DEFAULT_CHUNK_ROWS = 2000;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * How often the intake tells the job store it is still publishing (JobStore.touchIntake). The
 * projection fails a job whose intake was silent for INTAKE_STALE_SECONDS (at least 5 s), so a
 * slow but living intake is never mistaken for a dead one.
 */
export const DEFAULT_INTAKE_TOUCH_MS = 1000;
/** See JobIntakeDeps.overlapAfterRows. */
export const DEFAULT_OVERLAP_AFTER_ROWS = 10_000;

export interface JobIntakeDeps {
  jobs: JobStore;
  events: Pick<PipelineEvents, 'publish'>;
  /** The active cpr list version a live job pins; null when none is active yet. */
  currentListVersion: () => ListVersionRef | null;
  /**
   * The address register version a live job pins with its list version: the one the
   * synchronous check of this process uses right now (docs/addresses.md "One check, every
   * channel"); null (or absent): none active, the job is checked on text alone.
   */
  currentAddressRegisterVersion?: () => string | null;
  /** The active company register version a live job with check_companies pins; null (or absent): none. */
  currentCompanyRegisterVersion?: () => string | null;
  /**
   * The phone directory a live job with check_phones uses: the imported version it pins (null:
   * nothing imported), or the provider's API (`provider`, not versioned: nothing to pin).
   * Absent: no directory.
   */
  currentPhoneDirectory?: () => { provider: true } | { provider: false; versionId: string | null };
  /**
   * Throws when a callback URL may not be called (services/platform/outbound-http checkCallbackUrl
   * with the configured allow-list): a CallbackUrlError-like error with a `reason`.
   */
  checkCallbackUrl: (url: string) => Promise<unknown>;
  /**
   * The organisation's active private list version id (`source: customer`, docs/decisions.md §16), or
   * null when it has none. A live job with `use_private_list` pins it when queued; absent: such
   * jobs are refused (`option_unsupported`).
   */
  privateListVersion?: (orgId: string) => Promise<string | null>;
  logger: Logger;
  /** Where people wait while a body is read; default the system temp directory. */
  spoolDir?: string;
  chunkRows?: number;
  /** Row JSON per append of a job's rows (chunk-publisher.ts); the embedded log takes EMBEDDED_APPEND_BYTES. */
  maxAppendBytes?: number;
  /** Least time between two signs of life while publishing; default DEFAULT_INTAKE_TOUCH_MS. */
  touchIntervalMs?: number;
  /**
   * spoolAndPublish starts publishing once this many rows are validated (default 10,000):
   * smaller inputs are spooled whole first, so a bad row among them publishes nothing at all.
   */
  overlapAfterRows?: number;
  clock?: () => Date;
  newId?: () => string;
  /** Pay-per-list prices (docs/decisions.md §8); absent: every job starts queued without a price. */
  prices?: PriceTable;
}

/** Everything about a job except its people. */
export interface JobSpec {
  source: JobSource;
  /** `addons` absent: none (company and phone options are then refused with AddonRequiredError). */
  org: Pick<Organisation, 'id' | 'stop_level' | 'retention_days' | 'plan'> & Partial<Pick<Organisation, 'addons'>>;
  mode: 'live' | 'test';
  /** Hex SHA-256 of the API key that created the job: the callback signing secret. */
  keyHash: string;
  options?: CheckJobOptions;
  /** The body's top-level `policy`; wins over `options.policy`. */
  policy?: MatchPolicy;
  callback_url?: string | null;
  external_ref?: string | null;
  /** Language of match labels in the results. */
  locale: Locale;
  /** Hex SHA-256 of the input as submitted (raw body bytes); default the hash of the spooled rows. */
  inputSha256?: string;
  filename?: string | null;
  file_format?: JobRecord['file_format'];
  /** File input: the header row as read, and the mapping its rows were (or will be) read with. */
  columns?: string[];
  column_mapping?: ColumnMapping | null;
  csv_dialect?: CsvDialectRecord | null;
  /** A monitor's re-check: the contacts' monitor and generation (docs/monitors.md). */
  monitor?: JobMonitorRef | null;
}

/** What spoolAndPublish read: the spool, and the job it created early (null when none). */
export interface StreamedPeople extends SpooledPeople {
  early: {
    job: JobRecord;
    spec: JobSpec;
    publisher: ChunkPublisher;
    state: 'open' | 'sealed' | 'abandoned';
    alive: () => Promise<void>;
  } | null;
}

/** A file read but not started (docs/decisions.md §14): what the draft shows. */
export interface DraftContent {
  /** The job id, chosen by the caller (its draft file is kept under it before the record exists). */
  jobId?: string;
  rowCount: number;
  preview: PreviewRow[];
  /** Hex SHA-256 of the file as uploaded. */
  inputSha256: string;
}

/** The spool directory when none is configured. */
export const DEFAULT_SPOOL_DIR = join(tmpdir(), 'robinson-spool');

export interface JobIntake {
  /** Reads and validates every person to a spool file; the iterable's error passes on unchanged. */
  spool(people: AsyncIterable<PersonInput[]>): Promise<SpooledPeople>;
  /** Creates the job from spooled people and publishes its events. Does not discard the spool. */
  commit(spooled: SpooledPeople, spec: JobSpec): Promise<JobRecord>;
  /** spool + commit + discard, for ingest paths without idempotency keys. */
  createJob(spec: JobSpec & { people: AsyncIterable<PersonInput[]> }): Promise<JobRecord>;
  /**
   * The overlapped intake (docs/architecture.md "Job intake", "Overlapped intake"): spools like
   * `spool` and, as soon as the first batch is validated and `early()` gives the job's fields
   * (null: not known yet, so no overlap), creates the job `queued` with its intake open and
   * publishes the rows while the rest of the input is still being read. Nothing is counted as
   * done before `seal`: the record has no final row count until RowsComplete. If the input then
   * fails, the job is abandoned (deleted, its results never kept) and the error passes on.
   */
  spoolAndPublish(
    people: AsyncIterable<PersonInput[] | SpoolRow[]>, early: () => JobSpec | null,
    /**
     * fixedSpec: every field `seal` compares with the early job's (options, policy, callback,
     * reference, locale, mode, organisation) is the same at seal as `early()` gave it (a file job,
     * whose fields all come before its rows), so once the job is open its rows are handed on and
     * not spooled; a seal that still found them different fails with SpoolNotKeptError.
     */
    options?: { fixedSpec?: boolean },
  ): Promise<StreamedPeople>;
  /**
   * spoolAndPublish for a JSON or NDJSON body: its bytes are spooled as received and `readPeople`
   * reads the people from them (and, should the job be committed from the spool, from the file
   * again: spool.ts spoolBody).
   */
  spoolBodyAndPublish(
    body: AsyncIterable<Uint8Array>, readPeople: (chunks: AsyncIterable<Uint8Array>) => AsyncIterable<PersonInput[]>, early: () => JobSpec | null,
  ): Promise<StreamedPeople>;
  /**
   * Ends an intake of spoolAndPublish with the job's final fields: RowsComplete when the rows are
   * on the log under the same fields, else (no early job, or a field came after the people) the
   * early job is abandoned and the job committed from the spool as `commit` does.
   */
  seal(streamed: StreamedPeople, spec: JobSpec): Promise<JobRecord>;
  /** Gives up an unsealed overlapped job (bad input, idempotency replay); safe to call twice. */
  abandon(streamed: StreamedPeople): Promise<void>;
  /** Spools rows that carry their file cells (see spoolRows). */
  spoolRows(rows: AsyncIterable<SpoolRow[]>): Promise<SpooledPeople>;
  /** Creates a `draft` (nothing published, no intake open): checks the job's fields like commit. */
  createDraft(spec: JobSpec, content: DraftContent): Promise<JobRecord>;
  /**
   * Moves a draft on (docs/decisions.md §7): checks the fields of `spec` (the draft's, with the start's
   * changes), pins the list version, opens the intake, sets the job `queued` and publishes its
   * rows from `spooled`, as commit does for a new job. The caller makes sure only one start of a
   * job runs at a time.
   */
  startDraft(draft: JobRecord, spooled: SpooledPeople, spec: JobSpec): Promise<JobRecord>;
}


/** docs/decisions.md §5/§17: the add-on comes first (403), whatever else is wrong with the job. */
export function requireAddons(options: JobSpec['options'], org: Pick<JobSpec['org'], 'addons'>): void {
  if (options?.check_companies === true && !org.addons?.includes('company')) throw new AddonRequiredError('company');
  if (options?.check_phones === true && !org.addons?.includes('phone')) throw new AddonRequiredError('phone');
}

export function createJobIntake(deps: JobIntakeDeps): JobIntake {
  const logger = deps.logger.child({ module: 'ingest.jobs' });
  const clock = deps.clock ?? (() => new Date());
  const newId = deps.newId ?? randomUUID;
  const chunkRows = Math.max(1, deps.chunkRows ?? DEFAULT_CHUNK_ROWS);
  const spoolDir = deps.spoolDir ?? DEFAULT_SPOOL_DIR;
  const touchIntervalMs = deps.touchIntervalMs ?? DEFAULT_INTAKE_TOUCH_MS;
  const overlapAfterRows = Math.max(1, deps.overlapAfterRows ?? DEFAULT_OVERLAP_AFTER_ROWS);

  /**
   * Checks the job's fields; returns the private list version a live job with `use_private_list`
   * pins (null: none asked for, or a test job: test keys never touch real list data, §3).
   */
  async function checkFields(spec: JobSpec): Promise<string | null> {
    requireAddons(spec.options, spec.org);
    const issues: JobInputIssue[] = [];
    // check_people false is a job of companies and/or phones only; a job must check something.
    if (spec.options?.check_people === false && spec.options.check_companies !== true && spec.options.check_phones !== true) {
      issues.push(jobInputIssue('options.check_people', 'no_check_asked'));
    }
    let privateList: string | null = null;
    if (spec.options?.use_private_list === true && spec.mode === 'live') {
      if (!deps.privateListVersion) issues.push(jobInputIssue('options.use_private_list', 'option_unsupported'));
      else {
        privateList = await deps.privateListVersion(spec.org.id);
        if (privateList === null) issues.push(jobInputIssue('options.use_private_list', 'private_list_missing'));
      }
    }
    if (spec.callback_url != null) {
      try {
        await deps.checkCallbackUrl(spec.callback_url);
      } catch (error) {
        issues.push(jobInputIssue('callback_url', callbackProblem(error)));
      }
    }
    if (issues.length > 0) throw new JobInputError(issues);
    return privateList;
  }

  function pinnedVersion(mode: 'live' | 'test'): ListVersionRef {
    // Test jobs never touch real list data (docs/decisions.md §3); live jobs pin what is active now (§7).
    if (mode === 'test') return { ...TEST_LIST_VERSION };
    const version = deps.currentListVersion();
    if (!version) throw new ListNotReadyError();
    return version;
  }

  /**
   * The register versions a live job pins, like its list version (the same moment: queueing):
   * the address register always (null when none is active), the company register and phone
   * directory when it checks companies or phones. Test jobs read no register (docs/decisions.md §3).
   */
  function pinnedRegisters(spec: JobSpec): RegisterPins {
    if (spec.mode === 'test') return NO_REGISTER_PINS;
    const addresses = deps.currentAddressRegisterVersion?.() ?? null;
    let company: string | null = null;
    let phone: string | null = null;
    if (spec.options?.check_companies === true) {
      company = deps.currentCompanyRegisterVersion?.() ?? null;
      if (company === null) throw new RegisterNotReadyError('company_register_not_ready');
    }
    if (spec.options?.check_phones === true) {
      const directory = deps.currentPhoneDirectory?.();
      if (!directory || (!directory.provider && directory.versionId === null)) throw new RegisterNotReadyError('phone_directory_not_ready');
      phone = directory.provider ? null : directory.versionId;
    }
    return { company_register_version_id: company, phone_directory_version_id: phone, address_register_version_id: addresses };
  }

  /**
   * Where a job with rows goes (docs/decisions.md §7, §8): a live job of a pay-per-list organisation waits
   * in awaiting_payment with its price; its rows are published anyway (docs/privacy-and-proof.md
   * "Billing": matched at once, released on payment).
   */
  function readyState(spec: JobSpec, rowCount: number): { status: 'queued' | 'awaiting_payment'; price: JobPrice | null } {
    if (!deps.prices || !needsPayment(spec.org.plan, spec.mode)) return { status: 'queued', price: null };
    return { status: 'awaiting_payment', price: priceFor(rowCount, deps.prices) };
  }

  function newRecord(
    rows: { rowCount: number; sha256: string },
    spec: JobSpec,
    version: ListVersionRef | null,
    status: 'queued' | 'draft' | 'awaiting_payment' = 'queued',
    price: JobPrice | null = null,
  ): JobRecord {
    const now = clock();
    const options = resolvedOptions(spec);
    const retentionDays = options.retention_days as number;
    return {
      id: newId(),
      org_id: spec.org.id,
      mode: spec.mode,
      source: spec.source,
      status,
      filename: spec.filename ?? null,
      file_format: spec.file_format ?? null,
      row_count: rows.rowCount,
      processed_count: 0,
      allowed_count: 0,
      blocked_count: 0,
      manual_count: 0,
      level_counts: emptyLevelCounts(),
      columns: spec.columns ?? [],
      column_mapping: spec.column_mapping ?? null,
      options,
      preview: [],
      price,
      list_version: version,
      certificate_token: null,
      error: null,
      delete_after: new Date(now.getTime() + retentionDays * DAY_MS).toISOString(),
      created_at: now.toISOString(),
      finished_at: null,
      callback_url: spec.callback_url ?? null,
      callback: null,
      external_ref: spec.external_ref ?? null,
      key_hash: spec.keyHash,
      input_sha256: spec.inputSha256 ?? rows.sha256,
      csv_dialect: spec.csv_dialect ?? null,
      ...(spec.monitor ? { monitor: spec.monitor } : {}),
      updated_at: now.toISOString(),
    };
  }

  /**
   * A sign of life after each append, at most every touchIntervalMs and one at a time. Best
   * effort: a store that fails here fails the closing touch too, and that one is not ignored.
   * Not awaited by the publishing (a store round trip per second is not on the 202's path): a
   * touch that lands after the closing one changes nothing (JobStore.touchIntake: closed is
   * final, an earlier `at` does not move the sign of life back).
   */
  function heartbeat(jobId: string): () => Promise<void> {
    let last = clock().getTime();
    let touching: Promise<void> | null = null;
    return () => {
      if (touching) return touching;
      const now = clock();
      if (now.getTime() - last < touchIntervalMs) return Promise.resolve();
      last = now.getTime();
      touching = deps.jobs.touchIntake(jobId, { at: now.toISOString(), closed: false })
        .catch((error: unknown) => logger.warn({ job_id: jobId, ...errorFields(error) }, 'intake.touch_failed'))
        .finally(() => { touching = null; });
      return touching;
    };
  }

  /** A publish that also gives a sign of life (at most every touchIntervalMs, not waited for). */
  function livePublish(jobId: string) {
    const alive = heartbeat(jobId);
    return async (events: PipelineEvent | PipelineEvent[]) => {
      await deps.events.publish(events);
      void alive();
    };
  }

  async function publishJob(job: JobRecord, spooled: SpooledPeople, locale: Locale, pins: RegisterPins): Promise<number> {
    const publisher = createChunkPublisher({ job, locale, chunkRows, publish: livePublish(job.id), pins, maxAppendBytes: deps.maxAppendBytes });
    await publisher.created();
    for await (const { people, cells, sizes } of spooled.read({ maxRows: chunkRows, maxBytes: MAX_CHUNK_BYTES })) {
      await publisher.add(people, cells, sizes);
    }
    if (publisher.rows !== job.row_count) throw new Error(`spool gave ${publisher.rows} rows, expected ${job.row_count}`);
    const { chunks } = await publisher.complete(job.input_sha256 ?? '', clock().toISOString());
    return chunks;
  }

  async function commit(spooled: SpooledPeople, spec: JobSpec): Promise<JobRecord> {
    const privateList = await checkFields(spec);
    const version = pinnedVersion(spec.mode);
    const pins = pinnedRegisters(spec);
    const ready = readyState(spec, spooled.rowCount);
    const rows = { rowCount: spooled.rowCount, sha256: spec.inputSha256 ?? await spooled.rowsSha256() };
    const job = { ...newRecord(rows, spec, version, ready.status, ready.price), private_list_version_id: privateList };
    await deps.jobs.createJob(job);
    return publishQueued(job, spooled, spec.locale, pins);
  }

  async function spoolAndPublish(
    people: AsyncIterable<PersonInput[] | SpoolRow[]>, early: () => JobSpec | null, options: { fixedSpec?: boolean } = {},
  ): Promise<StreamedPeople> {
    // Both callers (the API's body, an upload's file) give the input's own hash at seal: the
    // rows are hashed only if one does not (SpooledPeople.rowsSha256). With a fixed spec, seal
    // never commits from the spool once the job is open: the rows after that are not written.
    return overlapped((onBatch, opened) => spoolRows(people, spoolDir, onBatch, {
      hashRows: false,
      ...(options.fixedSpec ? { keep: () => !opened() } : {}),
    }), early);
  }

  function spoolBodyAndPublish(
    body: AsyncIterable<Uint8Array>, readPeople: (chunks: AsyncIterable<Uint8Array>) => AsyncIterable<PersonInput[]>, early: () => JobSpec | null,
  ): Promise<StreamedPeople> {
    return overlapped((onBatch) => spoolBody(body, readPeople, spoolDir, onBatch), early);
  }

  /** The overlapped intake around a spool that hands each batch on disk to `onBatch`. */
  async function overlapped(
    spool: (onBatch: (batch: SpoolBatch) => Promise<void>, opened: () => boolean) => Promise<SpooledPeople>, early: () => JobSpec | null,
  ): Promise<StreamedPeople> {
    const holder: { opened: StreamedPeople['early'] } = { opened: null };
    let decided = false;
    // Rows validated before the overlap starts wait here (at most overlapAfterRows, a few MB).
    let waiting: SpoolBatch[] = [];
    let waitingRows = 0;
    try {
      const spooled = await spool(async (batch) => {
        if (!decided) {
          waiting.push(batch);
          waitingRows += batch.people.length;
          if (waitingRows < overlapAfterRows) return;
          decided = true;
          const spec = early();
          const held = waiting;
          waiting = [];
          // A job that will wait for payment is priced on its final row count: no overlap for it
          // (seal commits it from the spool, awaiting_payment with its price).
          if (!spec || readyState(spec, 0).status === 'awaiting_payment') return;
          const privateList = await checkFields(spec);
          // No final row count and no input hash yet: the projection cannot complete the job
          // before seal writes both and RowsComplete confirms them (job-tracker.ts rowsComplete).
          const version = pinnedVersion(spec.mode);
          const pins = pinnedRegisters(spec);
          const job = { ...newRecord({ rowCount: 0, sha256: '' }, spec, version), input_sha256: null, private_list_version_id: privateList };
          await deps.jobs.createJob(job);
          const publisher = createChunkPublisher({ job, locale: spec.locale, chunkRows, publish: livePublish(job.id), pins, maxAppendBytes: deps.maxAppendBytes });
          holder.opened = { job, spec, publisher, state: 'open', alive: heartbeat(job.id) };
          await publisher.created();
          for (const b of held) await publisher.add(b.people, b.cells, b.sizes);
          return;
        }
        if (holder.opened) {
          await holder.opened.publisher.add(batch.people, batch.cells, batch.sizes);
          // A slow body is not a dead intake: every batch read is a sign of life (throttled).
          void holder.opened.alive();
        }
      }, () => holder.opened !== null);
      return Object.assign(spooled, { early: holder.opened });
    } catch (error) {
      await abandonEarly(holder.opened);
      throw error;
    }
  }

  async function abandon(streamed: StreamedPeople): Promise<void> {
    await abandonEarly(streamed.early);
  }

  async function abandonEarly(early: StreamedPeople['early']): Promise<void> {
    if (!early || early.state !== 'open') return;
    early.state = 'abandoned';
    // Appends still in flight end first: one sealing rows after the purge below would make the
    // job a new data key (platform/keys/data-keys.ts writerKey) after its keys were forgotten.
    await early.publisher.drain();
    const at = clock().toISOString();
    // Never visible to the customer (no answer named it): deleted at once, its results are never
    // kept (JobStore: a deleted job stores no results), and the sweep leaves a closed intake alone.
    await deps.jobs.updateJob(early.job.id, { error: 'intake_refused' });
    const deleted = await deps.jobs.purgeJob(early.job.id, at);
    await deps.jobs.touchIntake(early.job.id, { at, closed: true });
    await deps.events.publish({
      type: 'JobStateChanged',
      value: { job_id: early.job.id, org_id: early.job.org_id, status: 'deleted', error: null, changed_at: at, processed_count: deleted?.processed_count ?? 0, finished_at: null },
    }).catch((error: unknown) => logger.warn({ job_id: early.job.id, ...errorFields(error) }, 'job.abandoned_publish_failed'));
    logger.info({ job_id: early.job.id, org_id: early.job.org_id, rows: early.publisher.rows }, 'job.overlap_abandoned');
  }

  /** The fields that shape the record and the chunks: the same early and at the end, or no overlap. */
  function sameJob(a: JobSpec, b: JobSpec): boolean {
    const shape = (s: JobSpec) => JSON.stringify([s.options ?? null, s.policy ?? null, s.callback_url ?? null, s.external_ref ?? null, s.locale, s.mode, s.org.id]);
    return shape(a) === shape(b);
  }

  async function seal(streamed: StreamedPeople, spec: JobSpec): Promise<JobRecord> {
    const early = streamed.early;
    if (!early || early.state !== 'open' || !sameJob(early.spec, spec)) {
      await abandon(streamed);
      return commit(streamed, spec);
    }
    early.state = 'sealed';
    const job: JobRecord = { ...early.job, row_count: streamed.rowCount, input_sha256: spec.inputSha256 ?? await streamed.rowsSha256() };
    await queueOrFail(job, async () => {
      // The final count and hash go on the record before RowsComplete is on the log, so the
      // projection's completion (which needs RowsComplete) never races this write, and GET shows
      // what the 202 shows. Unless the job is finished already (the projection failed it while
      // the body still arrived): it stays what its callback said it was.
      await deps.jobs.updateJob(job.id, { row_count: job.row_count, input_sha256: job.input_sha256 }, unfinished);
      return (await early.publisher.complete(job.input_sha256 as string, clock().toISOString())).chunks;
    }, { overlapped: true });
    // The record gets row_count and input_sha256 from RowsComplete (the projection writes it);
    // the answer shows them now.
    return job;
  }

  async function createDraft(spec: JobSpec, content: DraftContent): Promise<JobRecord> {
    await checkFields(spec);
    // A draft names the list version its preview was checked against, and a pay-per-list draft
    // the price it would cost as it stands, so both are known before /start (which pins the
    // version active then and prices the final row count; docs/uploads.md "Drafts show").
    const ready = readyState(spec, content.rowCount);
    // A live draft made while no list is active names none (its preview says list_not_ready); /start pins one or answers 503.
    const version = spec.mode === 'test' ? pinnedVersion('test') : deps.currentListVersion();
    const job = newRecord({ rowCount: content.rowCount, sha256: content.inputSha256 }, spec, version, 'draft', ready.price);
    if (content.jobId) job.id = content.jobId;
    job.preview = content.preview;
    await deps.jobs.createJob(job);
    logger.info({ job_id: job.id, org_id: job.org_id, mode: job.mode, source: job.source, rows: job.row_count }, 'job.draft_created');
    return job;
  }

  async function startDraft(draft: JobRecord, spooled: SpooledPeople, spec: JobSpec): Promise<JobRecord> {
    const privateList = await checkFields(spec);
    const version = pinnedVersion(spec.mode);
    const pins = pinnedRegisters(spec);
    const options = resolvedOptions(spec);
    const now = clock().toISOString();
    // The intake opens before the job is queued: killed in between, an open intake of a draft is
    // never listed (listStalledIntakes wants queued/running), while a queued job without an
    // intake would never be swept.
    await deps.jobs.touchIntake(draft.id, { at: now, closed: false });
    const ready = readyState(spec, spooled.rowCount);
    const queued = await deps.jobs.updateJob(draft.id, {
      status: ready.status,
      price: ready.price,
      list_version: version,
      private_list_version_id: privateList,
      options,
      column_mapping: spec.column_mapping ?? draft.column_mapping,
      columns: spec.columns ?? draft.columns,
      row_count: spooled.rowCount,
      // The draft's preview was computed before the version was pinned; the done job gets its
      // own from the stored results (cells included).
      preview: [],
      callback_url: spec.callback_url ?? draft.callback_url,
    });
    if (!queued) throw new Error('the draft disappeared while starting');
    return publishQueued(queued, spooled, spec.locale, pins);
  }

  async function publishQueued(job: JobRecord, spooled: SpooledPeople, locale: Locale, pins: RegisterPins): Promise<JobRecord> {
    await queueOrFail(job, () => publishJob(job, spooled, locale, pins));
    return job;
  }

  /**
   * Puts a job's rows on the log (`publish` answers how many chunks) and closes its intake. When
   * that fails the record exists but its rows are not all on the log: the job is failed rather
   * than left queued forever, and the error goes on, so the request answers 500 and the client
   * knows. If even that write fails (store down), the intake stays open and the projection's
   * sweep fails the job later (intake_interrupted).
   */
  async function queueOrFail(job: JobRecord, publish: () => Promise<number>, logged: Record<string, unknown> = {}): Promise<void> {
    const started = performance.now();
    try {
      const chunks = await publish();
      // Every row is on the log: the stalled-intake sweep must leave the job alone from now on.
      await deps.jobs.touchIntake(job.id, { at: clock().toISOString(), closed: true });
      logger.info(
        { job_id: job.id, org_id: job.org_id, mode: job.mode, source: job.source, rows: job.row_count, chunks, ms: Math.round(performance.now() - started), ...logged },
        'job.queued',
      );
    } catch (error) {
      logger.error({ job_id: job.id, ...errorFields(error) }, 'job.publish_failed');
      const at = clock().toISOString();
      const failed = await deps.jobs.updateJob(job.id, { status: 'failed', error: 'intake_failed', finished_at: at }).catch(() => null);
      if (failed) await deps.jobs.touchIntake(job.id, { at, closed: true }).catch(() => undefined);
      throw error;
    }
  }

  return {
    spool: (people) => spoolPeople(people, spoolDir),
    spoolRows: (rows) => spoolRows(rows, spoolDir),
    spoolAndPublish,
    spoolBodyAndPublish,
    seal,
    abandon,
    commit,
    createDraft,
    startDraft,
    async createJob(spec) {
      const spooled = await spoolPeople(spec.people, spoolDir);
      try {
        return await commit(spooled, spec);
      } finally {
        await spooled.discard();
      }
    },
  };
}

/** Not yet done or failed: a finished job's row count and input hash are what its callback showed. */
function unfinished(job: JobRecord): boolean {
  return job.status !== 'done' && job.status !== 'failed';
}

/** The options a job stores: every default applied (see docs/architecture.md "Job intake"). */
function resolvedOptions(spec: JobSpec): CheckJobOptions {
  return {
    check_people: true,
    check_companies: false,
    check_phones: false,
    use_private_list: false,
    ...spec.options,
    policy: spec.policy ?? spec.options?.policy ?? 'standard',
    stop_level: spec.options?.stop_level ?? spec.org.stop_level ?? 1,
    retention_days: spec.options?.retention_days ?? spec.org.retention_days ?? 30,
  };
}

/** A refused callback URL as the issue a job (or monitor) field gets; other errors pass on. */
export function callbackProblem(error: unknown): JobInputIssue['problem'] {
  const reason = (error as { reason?: unknown } | null)?.reason;
  switch (reason) {
    case 'not_https':
      return 'callback_not_https';
    case 'invalid_url':
    case 'credentials_in_url':
      return 'callback_invalid';
    case 'unresolvable':
      return 'callback_unresolvable';
    case 'blocked_address':
      return 'callback_refused';
    default:
      throw error;
  }
}
