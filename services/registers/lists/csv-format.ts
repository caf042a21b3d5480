import type { ListEntry } from '../../domain/types.ts';
import { nfc } from '../../domain/normalize.ts';
import { ListFileFormatError, SkippedLines } from './list-file-errors.ts';
import { type CsvRecord, type CsvTokenizer, createCsvTokenizer } from '../../ingest/files/csv-tokenizer.ts';
import { createFallbackDecoder } from './text-decoding.ts';

/**
 * A customer's private list as CSV (docs/decisions.md §12: `source: customer`): a header row naming the
 * PersonInput columns, then one person per row.
 *
 * - Separator `,`, `;` or tab, detected from the header row (Danish Excel writes `;`).
 * - RFC 4180 quoting: `"..."`, `""` for a quote, line breaks inside quotes (the service's one CSV
 *   tokenizer, services/ingest/files/csv-tokenizer.ts, shared with uploaded check files).
 * - UTF-8 with or without BOM. A file that is not valid UTF-8 is read as Windows-1252 from the
 *   first invalid byte on (Excel's "CSV" on a Danish Windows); the text before that byte was
 *   ASCII-compatible, so nothing is read twice or differently.
 * - Column names are matched without regard to case, spaces, `-` or `_`; the Danish names in
 *   COLUMN_ALIASES are accepted too. Unknown columns (id, phone, anything else) are ignored. A
 *   header with none of the known columns is refused (ListFileFormatError).
 * - A row is skipped and counted (ListFileRowsError at the end, line numbers only) when it has
 *   more non-empty fields than the header has columns, has an unterminated quote, has no name
 *   (name, first_name and last_name all empty) or no address (address, street and kvhx all empty).
 *   Empty rows are no rows and are not counted. Missing trailing fields are empty.
 * - `previous` (optional): true for `true`, `1`, `ja`, `yes`, `x`, `*`.
 * - Line numbers are physical: the line where the row starts, the header being line 1.
 */

type EntryColumn = Exclude<keyof ListEntry, 'previous'> | 'previous';

const COLUMNS: readonly EntryColumn[] = [
  'name',
  'first_name',
  'last_name',
  'address',
  'street',
  'house_number',
  'floor',
  'door',
  'postal_code',
  'city',
  'kvhx',
  'previous',
];

/** Danish (and common English) headers a customer's spreadsheet may carry, normalised. */
const COLUMN_ALIASES: Readonly<Record<string, EntryColumn>> = {
  navn: 'name',
  fuldtnavn: 'name',
  fullname: 'name',
  fornavn: 'first_name',
  firstname: 'first_name',
  givenname: 'first_name',
  efternavn: 'last_name',
  lastname: 'last_name',
  surname: 'last_name',
  adresse: 'address',
  vej: 'street',
  vejnavn: 'street',
  gade: 'street',
  husnr: 'house_number',
  husnummer: 'house_number',
  housenumber: 'house_number',
  etage: 'floor',
  dør: 'door',
  doer: 'door',
  sidedør: 'door',
  postnr: 'postal_code',
  postnummer: 'postal_code',
  postalcode: 'postal_code',
  zip: 'postal_code',
  by: 'city',
  bynavn: 'city',
  postdistrikt: 'city',
  tidligere: 'previous',
};

/** Far above any real row (the API takes 200 characters a field); bounds memory on broken files. */
const MAX_RECORD_CHARS = 64 * 1024;
const TRUE_VALUES = new Set(['true', '1', 'ja', 'yes', 'x', '*']);
const SEPARATORS = [',', ';', '\t'] as const;

export async function* parseListCsv(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ListEntry> {
  const decoder = createFallbackDecoder();
  const rows = createEntryRows();
  let tokenizer: CsvTokenizer | null = null;
  let pending = ''; // text held back until the header line is whole (it decides the separator)
  for await (const chunk of chunks) {
    let text = decoder.decode(chunk);
    if (tokenizer === null) {
      text = pending + text;
      pending = '';
      const sep = separatorOfFirstLine(text);
      if (sep === null) {
        if (text.length > MAX_RECORD_CHARS) throw new ListFileFormatError('missing_header', 'no line end where the header row should be', 1);
        pending = text;
        continue;
      }
      tokenizer = createCsvTokenizer(sep, MAX_RECORD_CHARS);
    }
    yield* rows.take(tokenizer.push(text));
  }
  const text = pending + decoder.end();
  tokenizer ??= createCsvTokenizer(separatorOfFirstLine(text + '\n') ?? ',', MAX_RECORD_CHARS);
  yield* rows.take([...tokenizer.push(text), ...tokenizer.end()]);
  rows.finish();
}

/** The separator, once the first non-blank line of `text` is complete; null before that. */
function separatorOfFirstLine(text: string): string | null {
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    const line = text.slice(start, nl);
    if (line.trim() !== '') return detectSeparator(line);
    start = nl + 1;
  }
  return null;
}

/** From CSV records (the shared RFC 4180 tokenizer) to list entries: header first, bad rows counted. */
function createEntryRows() {
  const skipped = new SkippedLines();
  let columns: (EntryColumn | null)[] = [];
  let entries = 0;

  function* take(records: CsvRecord[]): Generator<ListEntry> {
    for (const record of records) {
      if (record.problem !== null) {
        if (columns.length === 0) {
          const why = record.problem === 'too_long' ? 'the header row is far too long' : 'the header row has an unterminated quote';
          throw new ListFileFormatError('missing_header', why, record.line);
        }
        skipped.add(record.line);
        continue;
      }
      const row = record.fields;
      if (row.every((f) => f.trim() === '')) continue;
      if (columns.length === 0) {
        columns = row.map(columnOf);
        if (!columns.some((c) => c !== null)) {
          throw new ListFileFormatError('unknown_columns', 'the header row names none of the list columns', record.line);
        }
        continue;
      }
      const entry = toEntry(row, columns);
      if (entry === null) skipped.add(record.line);
      else {
        entries++;
        yield entry;
      }
    }
  }

  return {
    take,
    /** End of input: a file without a header row is refused; skipped rows are reported. */
    finish(): void {
      if (columns.length === 0) throw new ListFileFormatError('empty_file', 'the file holds no header row');
      skipped.throwIfAny(entries);
    },
  };
}

function detectSeparator(headerLine: string): string {
  const unquoted = headerLine.replace(/"[^"]*"/g, '');
  let best: string = ',';
  let bestCount = 0;
  for (const sep of SEPARATORS) {
    const count = unquoted.split(sep).length - 1;
    if (count > bestCount) {
      best = sep;
      bestCount = count;
    }
  }
  return best;
}

function columnOf(header: string): EntryColumn | null {
  const key = header.trim().toLowerCase().replace(/[\s_\-.]/g, '');
  const direct = COLUMNS.find((c) => c.replace(/_/g, '') === key);
  return direct ?? COLUMN_ALIASES[key] ?? null;
}

function toEntry(row: string[], columns: (EntryColumn | null)[]): ListEntry | null {
  for (let i = columns.length; i < row.length; i++) if (row[i].trim() !== '') return null;
  const entry: ListEntry = {};
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i];
    // Stored in NFC, as matching reads it (docs/list-files.md): an exported "Åse" in NFD is the same person.
    const value = nfc((row[i] ?? '').trim());
    if (column === null || value === '') continue;
    if (column === 'previous') entry.previous = TRUE_VALUES.has(value.toLowerCase());
    else if (entry[column] === undefined) entry[column] = value;
  }
  if (!entry.name && !entry.first_name && !entry.last_name) return null;
  if (!entry.address && !entry.street && !entry.kvhx) return null;
  entry.previous ??= false;
  return entry;
}
