import { open, stat } from 'node:fs/promises';
import { MAX_ROWS_PER_JOB, type FileFormat } from '../../domain/check-job.ts';
import { type CsvDialect, detectDelimiter, readCsvBatches } from './csv-reader.ts';
import { FileRefusedError } from './refusal.ts';
import { claimedFormat, formatOf, sniffKind } from './sniff.ts';
import { createStreamDecoder, detectTextEncoding } from './text-encoding.ts';
import { DEFAULT_XLS_LIMITS, readXlsBatches, type XlsLimits } from './xls-reader.ts';
import { readXlsxBatches } from './xlsx-reader.ts';
import { inspectXlsxZip } from './zip-inspect.ts';

export interface TableSource {
  /** Sniffed from the bytes, never from the name. */
  format: FileFormat;
  /**
   * Set for csv/txt input. The encoding is the one detected from the first 64 KiB; if a byte
   * further on proves a UTF-8 guess wrong, it reads `windows-1252` once rows() has got there.
   */
  readonly csv: CsvDialect | null;
  /**
   * Every non-blank row of the first sheet that holds data, header row included, in order; cells
   * as text, null when empty; trailing empty cells are left off (a row may be shorter than the
   * header). Streams. Throws FileRefusedError for problems found mid-way (more
   * than maxDataRows + 1 rows, a broken quote, a damaged sheet). Call once.
   */
  rows(): AsyncIterable<Array<string | null>>;
  /** The same rows in batches (up to a few thousand): for readers that care about per-row cost. */
  batches(): AsyncIterable<Array<Array<string | null>>>;
}

type Row = Array<string | null>;

export interface OpenTableOptions {
  /** The name the file came with: checked against the bytes (file_format_mismatch). */
  filename?: string | null;
  /** Data rows allowed (docs/decisions.md §14: 1,000,000); one more row is allowed for the header. */
  maxDataRows?: number;
  /** Zip-bomb cap on what an xlsx may unpack to. */
  maxInflatedBytes?: number;
  /** Cap on an xlsx's shared-strings table held while reading (xlsx-reader.ts). */
  maxSharedStringBytes?: number;
  xlsLimits?: XlsLimits;
}

export const DEFAULT_MAX_DATA_ROWS = MAX_ROWS_PER_JOB;
/** 1,000,000 rows of ten columns unpack to about 400 MB of sheet XML; 1 GiB leaves room. */
export const DEFAULT_MAX_INFLATED_BYTES = 1024 * 1024 * 1024;
const HEAD_BYTES = 64 * 1024;

/** Sniffs and opens a file on local disk. Throws FileRefusedError (and nothing else) for bad files. */
export async function openTable(path: string, options: OpenTableOptions = {}): Promise<TableSource> {
  const size = (await stat(path)).size;
  if (size === 0) throw new FileRefusedError('file_empty');
  const head = await readHead(path, Math.min(size, HEAD_BYTES));
  const kind = formatOf(sniffKind(head), options.filename);
  const maxRows = (options.maxDataRows ?? DEFAULT_MAX_DATA_ROWS) + 1;

  if (kind === 'csv') {
    const dialect: CsvDialect = { encoding: detectTextEncoding(head), delimiter: ',' };
    const headText = createStreamDecoder(dialect.encoding).decode(head);
    if (headText.trim() === '') throw new FileRefusedError(size <= HEAD_BYTES ? 'file_empty' : 'file_no_data', 'only blank text');
    dialect.delimiter = detectDelimiter(headText);
    return source('csv', dialect, () => readCsvBatches(path, dialect.encoding, dialect.delimiter, (e) => (dialect.encoding = e)), maxRows);
  }
  if (kind === 'xlsx-candidate') {
    await inspectXlsxZip(path, options.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES);
    return source('xlsx', null, () => readXlsxBatches(path, options.maxSharedStringBytes), maxRows);
  }
  // OLE2: an xls, or an encrypted/macro workbook. The worker parses the whole file before its
  // first answer, so waiting for that answer here refuses such files at open, not mid-way.
  const rows = readXlsBatches(path, options.xlsLimits ?? DEFAULT_XLS_LIMITS);
  const first = await rows.next();
  // An OLE2 file named .xlsx passes the name check only as an encrypted workbook (refused above).
  if (claimedFormat(options.filename) === 'xlsx') {
    await rows.return(undefined);
    throw new FileRefusedError('file_format_mismatch', 'named xlsx, bytes are xls');
  }
  return source('xls', null, () => replay(first, rows), maxRows);
}

async function* replay(first: IteratorResult<Row[]>, rest: AsyncGenerator<Row[]>): AsyncGenerator<Row[]> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}

async function readHead(path: string, length: number): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function source(format: FileFormat, csv: CsvDialect | null, read: () => AsyncGenerator<Row[]>, maxRows: number): TableSource {
  const batches = () => limited(read(), maxRows);
  return {
    format,
    csv,
    batches,
    rows: async function* () {
      for await (const batch of batches()) yield* batch;
    },
  };
}

/** Counts rows, refusing past the limit, and refuses a file whose sheets hold no row at all. */
async function* limited(batches: AsyncGenerator<Row[]>, maxRows: number): AsyncGenerator<Row[]> {
  let count = 0;
  for await (const batch of batches) {
    count += batch.length;
    if (count > maxRows) throw new FileRefusedError('file_too_many_rows', `more than ${maxRows - 1} data rows`);
    // Trailing empty cells are dropped so that every format reads alike (xlsx stores none).
    for (const row of batch) while (row.length > 0 && row[row.length - 1] === null) row.pop();
    if (batch.length > 0) yield batch;
  }
  if (count === 0) throw new FileRefusedError('file_no_data');
}
