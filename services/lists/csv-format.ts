import type { ListEntry } from '../domain/types.ts';
import { ListFileFormatError, SkippedLines } from './list-file-errors.ts';
import { createFallbackDecoder } from './text-decoding.ts';

/**
 * A customer's private list as CSV (DECISIONS §12: `source: customer`): a header row naming the
 * PersonInput columns, then one person per row.
 *
 * - Separator `,`, `;` or tab, detected from the header row (Danish Excel writes `;`).
 * - RFC 4180 quoting: `"..."`, `""` for a quote, line breaks inside quotes.
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

/** Far above any real field (the API takes 200 characters); bounds memory on broken files. */
const MAX_FIELD_CHARS = 64 * 1024;
const TRUE_VALUES = new Set(['true', '1', 'ja', 'yes', 'x', '*']);
const SEPARATORS = [',', ';', '\t'] as const;

export async function* parseListCsv(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ListEntry> {
  const decoder = createFallbackDecoder();
  const parser = createRowParser();
  let pending = ''; // text held back: until the header line is whole, or a quote that may be ""
  for await (const chunk of chunks) {
    const text = pending + decoder.decode(chunk);
    pending = '';
    if (parser.separator === null) {
      const sep = separatorOfFirstLine(text);
      if (sep === null) {
        if (text.length > MAX_FIELD_CHARS) throw new ListFileFormatError('missing_header', 'no line end where the header row should be', 1);
        pending = text;
        continue;
      }
      parser.separator = sep;
    }
    const held = parser.consume(text, false);
    pending = text.slice(text.length - held);
    yield* parser.drain();
  }
  const text = pending + decoder.end();
  parser.separator ??= separatorOfFirstLine(text + '\n') ?? ',';
  parser.consume(text, true);
  parser.finish();
  yield* parser.drain();
  parser.throwIfSkipped();
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

/** RFC 4180 state machine over decoded text, fed chunk by chunk. */
function createRowParser() {
  const skipped = new SkippedLines();
  let columns: (EntryColumn | null)[] = [];
  let ready: ListEntry[] = [];
  let entries = 0;
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  let quotedField = false;
  let line = 1; // current physical line
  let rowLine = 1; // line where the current row started
  let rowTooLong = false;

  /** A field this long is no list data (an unterminated quote, a binary file): stop keeping it. */
  function tooLong(): void {
    rowTooLong = true;
    field = '';
  }

  function finishRow(): void {
    fields.push(field);
    const row = fields;
    fields = [];
    field = '';
    quotedField = false;
    if (rowTooLong) {
      rowTooLong = false;
      if (columns.length === 0) throw new ListFileFormatError('missing_header', 'the header row is far too long', rowLine);
      skipped.add(rowLine);
      return;
    }
    if (row.every((f) => f.trim() === '')) return;
    if (columns.length === 0) {
      columns = row.map(columnOf);
      if (!columns.some((c) => c !== null)) {
        throw new ListFileFormatError('unknown_columns', 'the header row names none of the list columns', rowLine);
      }
      return;
    }
    const entry = toEntry(row, columns);
    if (entry === null) skipped.add(rowLine);
    else {
      entries++;
      ready.push(entry);
    }
  }

  return {
    separator: null as string | null,

    /** Parses `text`; returns how many characters at its end were held back for the next call. */
    consume(text: string, final: boolean): number {
      const sep = this.separator!;
      for (let i = 0; i < text.length; i++) {
        const ch = text[i];
        if (inQuotes) {
          if (ch !== '"') {
            if (ch === '\n') line++;
            field += ch;
            if (field.length > MAX_FIELD_CHARS) tooLong();
          } else if (i + 1 === text.length && !final) {
            return 1; // "" or a closing quote: decided by the next chunk
          } else if (text[i + 1] === '"') {
            field += '"';
            i++;
          } else inQuotes = false;
        } else if (ch === '"' && !quotedField && field.trim() === '') {
          inQuotes = true;
          quotedField = true;
          field = '';
        } else if (ch === sep) {
          fields.push(field);
          field = '';
          quotedField = false;
        } else if (ch === '\n') {
          if (field.endsWith('\r')) field = field.slice(0, -1);
          finishRow();
          line++;
          rowLine = line;
        } else {
          field += ch;
          if (field.length > MAX_FIELD_CHARS) tooLong();
        }
      }
      return 0;
    },

    /** End of input: an unterminated quote spoils its row; a last row without line end counts. */
    finish(): void {
      if (inQuotes) {
        if (columns.length === 0) throw new ListFileFormatError('missing_header', 'the header row has an unterminated quote', rowLine);
        skipped.add(rowLine);
        inQuotes = false;
        rowTooLong = false;
        fields = [];
        field = '';
      } else if (fields.length > 0 || field !== '' || rowTooLong) {
        if (field.endsWith('\r')) field = field.slice(0, -1);
        finishRow();
      }
      if (columns.length === 0) throw new ListFileFormatError('empty_file', 'the file holds no header row');
    },

    drain(): ListEntry[] {
      const out = ready;
      ready = [];
      return out;
    },

    throwIfSkipped(): void {
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
    const value = (row[i] ?? '').trim();
    if (column === null || value === '') continue;
    if (column === 'previous') entry.previous = TRUE_VALUES.has(value.toLowerCase());
    else if (entry[column] === undefined) entry[column] = value;
  }
  if (!entry.name && !entry.first_name && !entry.last_name) return null;
  if (!entry.address && !entry.street && !entry.kvhx) return null;
  entry.previous ??= false;
  return entry;
}
