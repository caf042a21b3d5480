/**
 * A job's events on the log (docs/architecture.md "Pipeline events"): JobCreated, the rows in
 * RowsChunks, RowsComplete. Rows are added in any batch size; chunks are cut at `chunkRows` rows
 * or 256 KB of row JSON, and one append holds at most 8 chunks and 768 KB: Kafka refuses a record
 * batch over `message.max.bytes` (1 MB by default), and one append's messages for a partition
 * travel as one batch; 200-character values in every field would make a 2,000-row chunk ~5 MB.
 * Used from the spool (a job published after its input was read) and while the input is still
 * being read (the overlapped intake).
 *
 * Appends of rows go out several at a time (MAX_APPENDS_IN_FLIGHT), so reading, encoding and
 * sealing the next rows overlap the log's acknowledgement of the previous ones instead of waiting
 * for it (docs/architecture.md "Job intake", "Appends in flight"). Every chunk has a key of its own
 * (`<job_id>:<chunk>`), so no order among them is promised or needed; what the consumers rely on
 * holds: JobCreated is on the log before the first RowsChunk is sent, and RowsComplete is sent
 * only once every RowsChunk is durable. The first failed append fails the next `add` or
 * `complete`; `drain` waits for the appends in flight before a job is given up.
 */
import type { JobRowInput } from '../../domain/job-row.ts';
import type { Locale } from '../../domain/types.ts';
import type { JobRecord } from '../../platform/store/jobs-port.ts';
import { toAvroPerson, type PipelineEvent } from '../../pipeline/events.ts';
import { takePersonCells } from '../../pipeline/person-cells.ts';

export const MAX_CHUNK_BYTES = 256 * 1024;
/** One append's row JSON at most, by default: what a Kafka record batch may hold (above). */
const MAX_APPEND_BYTES = 768 * 1024;
const MAX_CHUNKS_PER_APPEND = 8;
/**
 * One append's row JSON on the embedded log, which has no batch limit: always 8 whole chunks, so
 * a 1,000,000-row job commits ~65 times instead of ~170. Each commit waits for its fsync on the
 * publishing thread (docs/architecture.md "Job intake", measured in docs/performance.md "Measurements").
 */
export const EMBEDDED_APPEND_BYTES = MAX_CHUNKS_PER_APPEND * MAX_CHUNK_BYTES;
/**
 * Row appends awaiting the log's acknowledgement at once: enough to keep encoding busy while one
 * round trip is out (measured in docs/performance.md "Measurements"), few enough that what waits
 * in memory stays a few MB (each append ≤ MAX_APPEND_BYTES of row JSON).
 */
export const MAX_APPENDS_IN_FLIGHT = 4;

type Cells = Array<string | null> | null;

export interface ChunkPublisher {
  created(): Promise<void>;
  /** Adds rows (each with its cells and JSON size); publishes whole appends as they fill. */
  add(people: JobRowInput[], cells: Cells[], sizes: number[]): Promise<void>;
  /** Publishes what is left, waits until every row is durable, then RowsComplete; returns the counts. */
  complete(inputSha256: string, completedAt: string): Promise<{ rows: number; chunks: number }>;
  /** Waits until no append is in flight (their failures are kept for `add`/`complete`). */
  drain(): Promise<void>;
  readonly rows: number;
}

/**
 * The register versions a live job pinned when it was queued, like its list version (docs/decisions.md §7):
 * its rows are checked against these whatever is activated meanwhile. Not stored on the job
 * record: they travel on every chunk, and an intake that dies is never resumed.
 */
export interface RegisterPins {
  company_register_version_id: string | null;
  phone_directory_version_id: string | null;
  /** The address register the job's people are checked with (docs/addresses.md "One check, every channel"); null: text only. */
  address_register_version_id: string | null;
}

export const NO_REGISTER_PINS: RegisterPins = Object.freeze({
  company_register_version_id: null, phone_directory_version_id: null, address_register_version_id: null,
});

export function createChunkPublisher(options: {
  job: JobRecord;
  locale: Locale;
  chunkRows: number;
  publish: (events: PipelineEvent | PipelineEvent[]) => Promise<void>;
  pins?: RegisterPins;
  /** Row JSON per append at most; default MAX_APPEND_BYTES (Kafka's), EMBEDDED_APPEND_BYTES on the embedded log. */
  maxAppendBytes?: number;
}): ChunkPublisher {
  const { job, locale, chunkRows, publish } = options;
  const maxAppendBytes = options.maxAppendBytes ?? MAX_APPEND_BYTES;
  const pins = options.pins ?? NO_REGISTER_PINS;
  const checks = {
    check_people: job.options.check_people ?? true,
    check_companies: job.options.check_companies ?? false,
    check_phones: job.options.check_phones ?? false,
  };
  const policy = job.options.policy ?? 'standard';
  const stopLevel = job.options.stop_level ?? 1;
  const listVersionId = job.mode === 'test' ? null : (job.list_version?.id ?? null);
  const privateListVersionId = job.mode === 'test' ? null : (job.private_list_version_id ?? null);
  let chunk = 0;
  let row = 0;
  let rows: Array<{ row: number; person: ReturnType<typeof toAvroPerson>; cells: Cells }> = [];
  let chunkBytes = 0;
  let pending: PipelineEvent[] = [];
  let pendingBytes = 0;

  const inFlight = new Set<Promise<void>>();
  let failed: { error: unknown } | null = null;

  /** After a failed append: the others in flight end first, so nothing of the job is still being sealed or sent when the error is handled. */
  async function throwIfFailed(): Promise<void> {
    if (!failed) return;
    await drain();
    throw failed.error;
  }

  /** Starts an append once fewer than MAX_APPENDS_IN_FLIGHT are out; its failure is kept, not thrown here. */
  async function flush(): Promise<void> {
    if (pending.length === 0) return;
    const events = pending;
    pending = [];
    pendingBytes = 0;
    while (inFlight.size >= MAX_APPENDS_IN_FLIGHT) await Promise.race(inFlight);
    await throwIfFailed();
    const append: Promise<void> = publish(events).then(
      () => { inFlight.delete(append); },
      (error: unknown) => {
        inFlight.delete(append);
        failed ??= { error };
      },
    );
    inFlight.add(append);
  }

  async function drain(): Promise<void> {
    while (inFlight.size > 0) await Promise.all(inFlight);
  }

  async function closeChunk(): Promise<void> {
    if (rows.length === 0) return;
    if (pending.length > 0 && pendingBytes + chunkBytes > maxAppendBytes) await flush();
    pendingBytes += chunkBytes;
    // RowsChunk v7: a file row's person fields that are its cells travel once, as cells.
    const personCells = takePersonCells(rows);
    pending.push({
      type: 'RowsChunk',
      value: {
        job_id: job.id, chunk, org_id: job.org_id, mode: job.mode, list_version_id: listVersionId, policy, stop_level: stopLevel, locale, rows,
        private_list_version_id: privateListVersionId,
        ...checks, company_register_version_id: pins.company_register_version_id, phone_directory_version_id: pins.phone_directory_version_id,
        address_register_version_id: pins.address_register_version_id, person_cells: personCells,
      },
    });
    chunk += 1;
    rows = [];
    chunkBytes = 0;
    if (pending.length >= MAX_CHUNKS_PER_APPEND) await flush();
  }

  return {
    get rows() {
      return row;
    },
    async created() {
      await publish({
        type: 'JobCreated',
        value: {
          job_id: job.id, org_id: job.org_id, mode: job.mode, source: job.source, list_version_id: listVersionId,
          policy, stop_level: stopLevel, ...checks,
          use_private_list: job.options.use_private_list === true, row_count: job.row_count, delete_after: job.delete_after, created_at: job.created_at,
        },
      });
    },
    async add(people, cells, sizes) {
      await throwIfFailed();
      for (let i = 0; i < people.length; i++) {
        if (rows.length > 0 && chunkBytes + sizes[i] > MAX_CHUNK_BYTES) await closeChunk();
        rows.push({ row: row++, person: toAvroPerson(people[i]), cells: cells[i] });
        chunkBytes += sizes[i];
        if (rows.length >= chunkRows) await closeChunk();
      }
    },
    async complete(inputSha256, completedAt) {
      await closeChunk();
      await flush();
      await drain();
      await throwIfFailed();
      await publish({ type: 'RowsComplete', value: { job_id: job.id, row_count: row, chunk_count: chunk, input_sha256: inputSha256, completed_at: completedAt } });
      return { rows: row, chunks: chunk };
    },
    drain,
  };
}
