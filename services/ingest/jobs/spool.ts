/**
 * A job's validated people on local disk while its body is still being read, so that a body of
 * 1,000,000 people is never held in memory and nothing is published before the whole body has
 * been validated (bad input changes nothing). One file per job, deleted once the rows are on the
 * event log or the job was refused: the validated people as NDJSON lines (spoolRows), or, in the
 * overlapped intake of a JSON/NDJSON body, the body as received (spoolBody). Personal data: the file lives for seconds to minutes,
 * mode 0600, in the spool directory (shared at most by the API processes of one machine); files
 * of a killed process are removed by the next one to start (removeStaleSpoolFiles).
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { PersonInput } from '../../domain/types.ts';
import { modifiedAtMs, sweepFolder } from '../../platform/folder-sweep.ts';
import type { PeopleBatch } from '../people/batches.ts';
import { PERSON_FIELDS } from '../people/tokens.ts';
import { SpoolNotKeptError, spoolFullIfDiskFull } from './errors.ts';

/**
 * One input row: the person, and for file input the row's cells as read (kept with the result so
 * the result file can give the customer's own columns back); null for JSON input.
 */
export interface SpoolRow {
  person: PersonInput;
  cells: Array<string | null> | null;
  /** The row's spool line length without its newline, when its reader measured it while mapping (file-rows.ts); else counted here. */
  size?: number;
}

export interface SpoolBatch {
  people: PersonInput[];
  /** Per person, the file cells (null for JSON input); same length as `people`. */
  cells: Array<Array<string | null> | null>;
  /** Per person, its line's JSON text length: an upper estimate of its Avro size. */
  sizes: number[];
  /** JSON text length of the batch. */
  bytes: number;
}

export interface SpooledPeople {
  rowCount: number;
  /**
   * Hex SHA-256 of the spooled rows (one canonical JSON line per person); '' when spooled with
   * `hashRows: false` (then `rowsSha256` reads it from the file).
   */
  sha256: string;
  /** The rows' SHA-256: the one taken while spooling, else the file's, read once now. */
  rowsSha256(): Promise<string>;
  /**
   * Reads the people back in input order, in batches of at most `maxRows` people and, unless a
   * single person is larger, at most about `maxBytes` of JSON text (`bytes` of each batch).
   */
  read(limits: { maxRows: number; maxBytes?: number }): AsyncGenerator<SpoolBatch>;
  /** Deletes the file; safe to call more than once. */
  discard(): Promise<void>;
}

/**
 * Writes every batch of `people` to a new file in `dir` and returns it once the iterable ends.
 * If the iterable throws (bad input), the file is deleted and the error passes on.
 */
export async function spoolPeople(people: AsyncIterable<PersonInput[]>, dir: string): Promise<SpooledPeople> {
  return spoolRows(people, dir);
}

/**
 * As spoolPeople, for batches of people (JSON input) or of rows with their cells (file input).
 * A line is the person's JSON, or `[person, cells]` when the row has cells.
 */
export async function spoolRows(
  rows: AsyncIterable<PersonInput[] | SpoolRow[]>,
  dir: string,
  /** Called with each batch once it is on disk (the overlapped intake publishes it then). */
  onBatch?: (batch: SpoolBatch) => Promise<void>,
  /**
   * false: no hash while spooling, for callers that give the input's own hash (the API's body,
   * an upload's file): hashing 130 MB of rows text was ~0.3 CPU s of the API thread per
   * 1,000,000 rows (docs/performance.md "Measurements").
   */
  { hashRows = true, keep }: {
    hashRows?: boolean;
    /**
     * Asked before each batch: false once the caller will never read the rows back (the overlapped
     * intake of a file, whose job is open under its final fields); from then on rows are counted
     * and handed on, not written, and reading back or hashing the spool throws.
     */
    keep?: () => boolean;
  } = {},
): Promise<SpooledPeople> {
  const people = rows;
  let partial = false;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, spoolFileName(randomUUID()));
  const file = spoolFile(path);
  const hash = hashRows ? createHash('sha256') : null;
  let rowCount = 0;
  const discard = file.discard;
  try {
    for await (const batch of people) {
      if (batch.length === 0) continue;
      if (onBatch && keep && (partial || !keep())) {
        partial = true;
        rowCount += batch.length;
        await onBatch(unspooledBatch(batch));
        continue;
      }
      let text = '';
      const sizes: number[] = onBatch ? new Array(batch.length) : [];
      for (let i = 0; i < batch.length; i++) {
        const line = spoolLine(batch[i]);
        if (onBatch) sizes[i] = line.length - 1;
        text += line;
      }
      // Encoded once, for the hash and the file alike.
      const bytes = Buffer.from(text, 'utf8');
      hash?.update(bytes);
      rowCount += batch.length;
      await file.write(bytes);
      if (onBatch) {
        const items = batch as Array<PersonInput | SpoolRow>;
        await onBatch({
          people: items.map((item) => (isSpoolRow(item) ? item.person : item)),
          cells: items.map((item) => (isSpoolRow(item) ? item.cells : null)),
          sizes,
          bytes: text.length,
        });
      }
    }
    await file.end();
  } catch (error) {
    await discard();
    throw spoolFullIfDiskFull(error);
  }
  const sha256 = hash ? hash.digest('hex') : '';
  return {
    rowCount,
    sha256,
    async rowsSha256() {
      if (partial) throw new SpoolNotKeptError();
      if (sha256 !== '') return sha256;
      const fileHash = createHash('sha256');
      for await (const chunk of createReadStream(path)) fileHash.update(chunk as Buffer);
      return fileHash.digest('hex');
    },
    discard,
    async *read({ maxRows, maxBytes = Infinity }) {
      if (partial) throw new SpoolNotKeptError();
      let people: PersonInput[] = [];
      let cells: Array<Array<string | null> | null> = [];
      let sizes: number[] = [];
      let bytes = 0;
      const text = createReadStream(path, { encoding: 'utf8', highWaterMark: 1024 * 1024 });
      for await (const lines of newlineSeparated(text)) {
        for (const line of lines) {
          if (line === '') continue;
          if (people.length > 0 && bytes + line.length > maxBytes) {
            yield { people, cells, sizes, bytes };
            people = [];
            cells = [];
            sizes = [];
            bytes = 0;
          }
          if (line.startsWith('[')) {
            const [person, rowCells] = JSON.parse(line) as [PersonInput, Array<string | null>];
            people.push(person);
            cells.push(rowCells);
          } else {
            people.push(JSON.parse(line) as PersonInput);
            cells.push(null);
          }
          bytes += line.length;
          sizes.push(line.length);
          if (people.length >= maxRows) {
            yield { people, cells, sizes, bytes };
            people = [];
            cells = [];
            sizes = [];
            bytes = 0;
          }
        }
      }
      if (people.length > 0) yield { people, cells, sizes, bytes };
    },
  };
}

/**
 * A JSON or NDJSON body spooled as it arrives, for the overlapped intake: its bytes go to the file
 * as received (one write per chunk, nothing made per row) while `readPeople` validates them, and
 * each batch is handed to `onBatch` with the sizes a line of the row spool would have had. Read
 * back (only when the job has to be committed from the spool: docs/architecture.md "Overlapped
 * intake") by reading the file with `readPeople` again, which gives the same people: the body was
 * validated whole on the way in. Writing every person's JSON line and encoding it was most of the
 * spool's ~0.7 CPU s of the API thread per 1,000,000 rows (docs/performance.md "Measurements").
 */
export async function spoolBody(
  body: AsyncIterable<Uint8Array>,
  readPeople: (chunks: AsyncIterable<Uint8Array>) => AsyncIterable<PersonInput[]>,
  dir: string,
  onBatch: (batch: SpoolBatch) => Promise<void>,
): Promise<SpooledPeople> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, spoolFileName(randomUUID()));
  const file = spoolFile(path);
  let rowCount = 0;
  async function* written(): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      await file.write(chunk);
      yield chunk;
    }
  }
  try {
    for await (const people of readPeople(written())) {
      if (people.length === 0) continue;
      const sizes = jsonLengthsOf(people);
      let bytes = 0;
      for (let i = 0; i < people.length; i++) bytes += sizes[i] + 1; // as the row spool's lines with their newlines
      rowCount += people.length;
      await onBatch({ people, cells: new Array(people.length).fill(null), sizes, bytes });
    }
    await file.end();
  } catch (error) {
    await file.discard();
    throw spoolFullIfDiskFull(error);
  }
  const read = (limits: { maxRows: number; maxBytes?: number }) => rebatched(readPeople(createReadStream(path)), limits);
  return {
    rowCount,
    sha256: '',
    async rowsSha256() {
      // The row spool's hash: one JSON line per person.
      const hash = createHash('sha256');
      for await (const batch of read({ maxRows: 10_000 })) for (const person of batch.people) hash.update(spoolLine(person));
      return hash.digest('hex');
    },
    discard: file.discard,
    read,
  };
}

/** The people of `batches` again in batches of at most `maxRows` and about `maxBytes` (as SpooledPeople.read). */
async function* rebatched(batches: AsyncIterable<PersonInput[]>, { maxRows, maxBytes = Infinity }: { maxRows: number; maxBytes?: number }): AsyncGenerator<SpoolBatch> {
  let people: PersonInput[] = [];
  let sizes: number[] = [];
  let bytes = 0;
  const batch = (): SpoolBatch => ({ people, cells: new Array(people.length).fill(null), sizes, bytes });
  for await (const read of batches) {
    const readSizes = jsonLengthsOf(read);
    for (let i = 0; i < read.length; i++) {
      const person = read[i];
      const size = readSizes[i];
      if (people.length > 0 && bytes + size > maxBytes) {
        yield batch();
        people = [];
        sizes = [];
        bytes = 0;
      }
      people.push(person);
      sizes.push(size);
      bytes += size;
      if (people.length >= maxRows) {
        yield batch();
        people = [];
        sizes = [];
        bytes = 0;
      }
    }
  }
  if (people.length > 0) yield batch();
}

/** A batch handed on without being spooled: the sizes its lines would have had. */
function unspooledBatch(batch: PersonInput[] | SpoolRow[]): SpoolBatch {
  const items = batch as Array<PersonInput | SpoolRow>;
  const people: PersonInput[] = new Array(items.length);
  const cells: Array<Array<string | null> | null> = new Array(items.length);
  const sizes: number[] = new Array(items.length);
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const row = isSpoolRow(item);
    people[i] = row ? item.person : item;
    cells[i] = row ? item.cells : null;
    // spoolLine's length without its newline: the person's JSON, or `[person,cells]`.
    sizes[i] = row && item.size !== undefined ? item.size
      : cells[i] === null ? jsonTextLength(people[i]) : 3 + jsonTextLength(people[i]) + cellsTextLength(cells[i] as Array<string | null>);
    bytes += sizes[i] + 1; // and the newline, as a written batch counts its text
  }
  return { people, cells, sizes, bytes };
}

/**
 * `jsonTextLength` of every person of a reader's batch: the lengths the tokenizer counted while
 * reading (PeopleBatch), measured here only where it did not count one.
 */
function jsonLengthsOf(people: PeopleBatch): number[] {
  const counted = people.jsonLengths;
  if (counted === undefined || counted.length !== people.length) return people.map(jsonTextLength);
  for (let i = 0; i < counted.length; i++) if (counted[i] < 0) counted[i] = jsonTextLength(people[i]);
  return counted;
}

/** `JSON.stringify(cells).length` without making the string. */
export function cellsTextLength(cells: ReadonlyArray<string | null>): number {
  let length = cells.length === 0 ? 2 : 1 + cells.length;
  for (const cell of cells) {
    if (cell === null) length += 4;
    else if (typeof cell !== 'string') return JSON.stringify(cells).length;
    else length += ESCAPED_IN_JSON.test(cell) ? JSON.stringify(cell).length : cell.length + 2;
  }
  return length;
}

/** A string JSON.stringify writes with an escape: a quote, a backslash, a control character or a surrogate. */
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(person).length` (a row spool line's length without its newline, the chunk
 * publisher's size estimate) without making the string: `{"key":"value",…}`, each string's
 * length plus its quotes, or its JSON's length when it needs an escape.
 */
export function jsonTextLength(person: PersonInput): number {
  let length = 1;
  for (const key in person) {
    const value = (person as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') return JSON.stringify(person).length;
    length += (PERSON_FIELDS.has(key) || !ESCAPED_IN_JSON.test(key) ? key.length + 2 : JSON.stringify(key).length) + 2
      + (ESCAPED_IN_JSON.test(value) ? JSON.stringify(value).length : value.length + 2);
  }
  return length === 1 ? 2 : length;
}

/**
 * What the spool's write stream may hold before a write waits for the disk. The stream's default
 * (16 KB) made every 64 KB body chunk wait for a thread-pool write, and on a busy machine that
 * thread waits for a core: the intake then read its body slower than the disk writes it.
 */
const SPOOL_WRITE_BUFFER_BYTES = 8 * 1024 * 1024;

/** A spool file written in order. */
function spoolFile(path: string) {
  const out = createWriteStream(path, { mode: 0o600, highWaterMark: SPOOL_WRITE_BUFFER_BYTES });
  // A write error (a full disk) can come while a batch is being published, when nothing waits
  // on the stream: kept here and thrown at the next write or the end, never an unhandled 'error' event.
  const failed: { error: Error | null } = { error: null };
  out.on('error', (error) => {
    failed.error ??= error;
  });
  let discarded = false;
  return {
    async write(bytes: Uint8Array): Promise<void> {
      if (failed.error) throw failed.error;
      if (!out.write(bytes)) await once(out, 'drain');
    },
    async end(): Promise<void> {
      if (failed.error) throw failed.error;
      out.end();
      await finished(out);
    },
    /** Deletes the file; safe to call more than once. */
    async discard(): Promise<void> {
      if (discarded) return;
      discarded = true;
      // The file is opened asynchronously: wait until the stream has closed, or an open still in
      // flight would create the file again after it was removed.
      if (!out.closed) {
        const closed = once(out, 'close');
        out.destroy();
        await closed.catch(() => undefined);
      }
      await rm(path, { force: true });
    },
  };
}

function spoolLine(item: PersonInput | SpoolRow): string {
  if (isSpoolRow(item)) {
    return item.cells === null ? `${JSON.stringify(item.person)}\n` : `${JSON.stringify([item.person, item.cells])}\n`;
  }
  return `${JSON.stringify(item)}\n`;
}

function isSpoolRow(item: PersonInput | SpoolRow): item is SpoolRow {
  // PersonInput has no `person` field (its schema is strict), so the shapes cannot be confused.
  return typeof (item as SpoolRow).person === 'object' && (item as SpoolRow).person !== null && 'cells' in item;
}

/**
 * The lines of a text stream split at "\n" only, a chunk's worth at a time (one await per chunk,
 * not per line). node:readline also ends a line at U+2028 and U+2029, which JSON.stringify
 * leaves unescaped inside strings, so a field holding one would be cut in two and its line would
 * no longer parse.
 */
async function* newlineSeparated(chunks: AsyncIterable<string>): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of chunks) {
    const text = rest + chunk;
    const lines: string[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      lines.push(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
    yield lines;
  }
  if (rest !== '') yield [rest];
}

/**
 * `job-<host>-<pid>-<uuid>.ndjson`: the owner is in the name, so a process starting later on the
 * same machine knows at once whether the process that wrote a file is gone.
 */
export function spoolFileName(id: string, owner: { host?: string; pid?: number } = {}): string {
  return `job-${owner.host ?? spoolHost()}-${owner.pid ?? process.pid}-${id}.ndjson`;
}

/**
 * `upload-<host>-<pid>-<uuid>.part`: an uploaded file while it is received and read (multipart
 * POST /v2/check-jobs). Removed with the request, or by the next API start like a job spool file.
 */
export function uploadFileName(id: string): string {
  return `upload-${spoolHost()}-${process.pid}-${id}.part`;
}

/** This machine's name as it appears in spool file names. */
export function spoolHost(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 64) || 'host';
}

const OWNED_SPOOL_FILE = /^(?:job|upload)-([A-Za-z0-9._-]{1,64})-(\d{1,10})-[0-9a-f-]{36}\.(?:ndjson|part)$/;
const ANY_SPOOL_FILE = /^(?:job-(?:[A-Za-z0-9._-]{1,64}-\d{1,10}-)?[0-9a-f-]{36}\.ndjson|upload-[A-Za-z0-9._-]{1,64}-\d{1,10}-[0-9a-f-]{36}\.part)$/;
/** A live pid may be a reused one; no request keeps its spool file this long. */
const LIVE_OWNER_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export interface StaleSpoolOptions {
  /** Files of other machines (or without an owner) untouched this long go. Default one hour. */
  olderThanMs?: number;
  now?: number;
  /** This machine's name (spoolHost()) and whether a pid of it runs; for tests. */
  host?: string;
  isAlive?: (pid: number) => boolean;
}

/**
 * Removes spool files left behind by a process that died mid-request (personal data must not
 * linger); call at start. Several processes may share the directory, so a file goes only when
 * its writer is surely done with it:
 * - written on this machine by a pid that no longer runs: at once;
 * - written on this machine by a pid that runs: only after a day (the pid was reused);
 * - anything else (another machine, the old unowned name): once untouched for `olderThanMs`
 *   (the writer touches it with every batch while reading the body).
 * Returns how many were removed.
 */
export async function removeStaleSpoolFiles(dir: string, options: StaleSpoolOptions = {}): Promise<number> {
  const now = options.now ?? Date.now();
  const olderThan = now - (options.olderThanMs ?? 60 * 60 * 1000);
  const host = options.host ?? spoolHost();
  const isAlive = options.isAlive ?? processRuns;
  return sweepFolder(dir, async (name, path) => {
    if (!ANY_SPOOL_FILE.test(name)) return false;
    const modified = await modifiedAtMs(path);
    if (modified === null) return false;
    const owner = OWNED_SPOOL_FILE.exec(name);
    const ours = owner !== null && owner[1] === host;
    return ours ? !isAlive(Number(owner[2])) || modified < now - LIVE_OWNER_MAX_AGE_MS : modified < olderThan;
  });
}

function processRuns(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
