import { tryFormatKvhx } from '../../domain/index.ts';
import type { ListEntry } from '../../domain/types.ts';
import { ListFileFormatError, SkippedLines } from './list-file-errors.ts';

/**
 * The CPR office's Robinson list file (docs/decisions.md §12): ISO 8859-1 text, one record per line (LF or
 * CRLF), fields of fixed width separated by `#`. The first records are the header: one holding
 * the publication date, then one holding the column names laid out in the same fixed-width fields.
 * Every further record is a person at an address; `*` in Historikmarkering marks the person's
 * previous address.
 *
 * Decisions beyond the published layout (change them here, in CPR_LAYOUT, in one place):
 * - Door ("Sidedør") follows Etage as A4: the door part of the 19-character KVHX key is 4
 *   characters wide, so 4 is the widest door the key can carry. The Greenland building number that
 *   may follow is not read (it is not part of the KVHX key); any text after the door is ignored.
 * - The publication date is read from the first header record in any of the forms YYYY-MM-DD,
 *   DD-MM-YYYY, DD.MM.YYYY or YYYYMMDD; the writer writes `Publiceringsdato#YYYY-MM-DD`.
 * - The column-names record is recognised by its first field `Personnavn`; its `#` must sit where
 *   CPR_LAYOUT puts them, otherwise the layout changed and the file is refused as a whole
 *   (ListFileFormatError), since every field would be read from the wrong place.
 * - `Postnr og postdistrikt` gives postal_code and city. `Bynavn` (the supplementary town name) has
 *   no ListEntry field and is not kept.
 * - `Personnavn` is kept as written (`Efternavn,Fornavn`): the domain's name parser reads the comma
 *   as surname-first, which keeps multi-word surnames ("Due Hansen,Anne") intact.
 * - kvhx comes from the code fields via the domain's tryFormatKvhx (canonical form); a record whose
 *   codes make no key keeps its name and address and has no kvhx.
 * - A malformed record is skipped and counted; once every good entry has been yielded the reader
 *   throws ListFileRowsError with the count and line numbers (never content). Blank lines are no
 *   records and are not counted.
 */

export interface CprField {
  key: CprFieldKey;
  /** Column name as written in the column-names record. */
  column: string;
  width: number;
  /** 1-based position of the first character, as the published layout gives it. */
  position: number;
}

export type CprFieldKey =
  | 'name'
  | 'address'
  | 'locality'
  | 'postal'
  | 'history'
  | 'kommunekode'
  | 'vejkode'
  | 'husnummer'
  | 'etage'
  | 'door';

const FIELD_WIDTHS: ReadonlyArray<readonly [CprFieldKey, string, number]> = [
  ['name', 'Personnavn', 34],
  ['address', 'Standardadresse', 34],
  ['locality', 'Bynavn', 34],
  ['postal', 'Postnr og postdistrikt', 25],
  ['history', 'Historikmarkering', 3],
  ['kommunekode', 'Kommunekode', 4],
  ['vejkode', 'Vejkode', 4],
  ['husnummer', 'Husnummer', 4],
  ['etage', 'Etage', 2],
  ['door', 'Sidedør', 4],
];

/** The one table of the record layout; positions follow from widths plus one `#` between fields. */
export const CPR_LAYOUT: readonly CprField[] = (() => {
  let position = 1;
  return FIELD_WIDTHS.map(([key, column, width]) => {
    const field = { key, column, width, position };
    position += width + 1;
    return field;
  });
})();

/** Characters in a full record (without line end). */
export const CPR_RECORD_LENGTH = CPR_LAYOUT.at(-1)!.position - 1 + CPR_LAYOUT.at(-1)!.width;

const FIELD = Object.fromEntries(CPR_LAYOUT.map((f) => [f.key, f])) as Record<CprFieldKey, CprField>;
/** A record shorter than this lacks a required field (everything up to Husnummer). */
const MIN_RECORD_LENGTH = FIELD.husnummer.position;
const NUMERIC_FIELDS: readonly CprFieldKey[] = ['kommunekode', 'vejkode'];
/** A line longer than this is no record; its text is not kept (memory stays bounded). */
const MAX_LINE_CHARS = 64 * 1024;
/** Stands for such a line: too short to be a record, so it is counted as malformed. */
const OVERLONG = '\u0000overlong';

export type CprRecord = { type: 'header'; published_on: string } | { type: 'entry'; entry: ListEntry };

/** What the writer needs for one record. */
export interface CprWriteRecord {
  last_name: string;
  first_name: string;
  /** Standardadresse: street, house number, floor, door, e.g. `Gammel Kongevej 12A, 1. tv`. */
  address: string;
  locality?: string;
  postal_code: string;
  city: string;
  previous?: boolean;
  kommunekode: string;
  vejkode: string;
  husnummer: string;
  etage?: string;
  door?: string;
}

// ---------------------------------------------------------------------------------------------
// Reading

/**
 * Reads a CPR list file as a stream: yields the header first, then one entry per good record.
 * Memory stays bounded by the chunk size, whatever the file's length.
 */
export async function* parseCprFile(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<CprRecord> {
  const skipped = new SkippedLines();
  let lineNo = 0;
  let rest = '';
  let publishedOn: string | null = null;
  let inBody = false;
  let entries = 0;

  let overlong = false;

  /** One line in; the record to yield, if any. */
  function handle(line: string): CprRecord | null {
    lineNo++;
    if (line === OVERLONG && !inBody) throw new ListFileFormatError('missing_header', 'no line end where the header should be', lineNo);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (isBlank(line)) return null;
    if (inBody) {
      const entry = readEntry(line);
      if (entry === null) {
        skipped.add(lineNo);
        return null;
      }
      entries++;
      return { type: 'entry', entry };
    }
    if (isColumnRecord(line)) {
      if (publishedOn === null) throw new ListFileFormatError('missing_header', 'no publication date before the column names', lineNo);
      if (!columnsMatchLayout(line)) throw new ListFileFormatError('unknown_columns', 'column layout differs from CPR_LAYOUT', lineNo);
      inBody = true;
      return null;
    }
    if (publishedOn !== null) throw new ListFileFormatError('missing_header', 'expected the column names record', lineNo);
    publishedOn = findDate(line);
    if (publishedOn === null) throw new ListFileFormatError('missing_header', 'first record holds no publication date', lineNo);
    return { type: 'header', published_on: publishedOn };
  }

  for await (const chunk of chunks) {
    // ISO 8859-1 is one byte per character, so chunks decode independently.
    const text = rest + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const record = handle(overlong ? OVERLONG : text.slice(start, nl));
      overlong = false;
      start = nl + 1;
      if (record !== null) yield record;
    }
    rest = text.slice(start);
    if (rest.length > MAX_LINE_CHARS) {
      // No line end in sight (not a CPR file, or a broken one): keep memory bounded, drop the
      // text and count the line as malformed when its end comes.
      overlong = true;
      rest = '';
    }
  }
  if (overlong) rest = OVERLONG;
  if (rest.length > 0) {
    const record = handle(rest);
    if (record !== null) yield record;
  }

  if (lineNo === 0 || (publishedOn === null && !inBody)) throw new ListFileFormatError('empty_file', 'the file holds no records');
  if (!inBody) throw new ListFileFormatError('missing_columns', 'no column names record', lineNo);
  skipped.throwIfAny(entries);
}

function isBlank(line: string): boolean {
  // A DOS end-of-file mark (0x1A) is no record either.
  return /^[\s\x1a]*$/.test(line);
}

function field(line: string, key: CprFieldKey): string {
  const f = FIELD[key];
  return line.slice(f.position - 1, f.position - 1 + f.width).trim();
}

function isColumnRecord(line: string): boolean {
  return field(line, 'name').toLowerCase() === 'personnavn';
}

function columnsMatchLayout(line: string): boolean {
  return separatorsInPlace(line) && line.length >= MIN_RECORD_LENGTH;
}

/** Every `#` the layout puts within the line's length is there. */
function separatorsInPlace(line: string): boolean {
  for (let i = 1; i < CPR_LAYOUT.length; i++) {
    const at = CPR_LAYOUT[i].position - 2; // 0-based index of the '#' before field i
    if (at >= line.length) break;
    if (line.charCodeAt(at) !== 35 /* # */) return false;
  }
  return true;
}

function readEntry(line: string): ListEntry | null {
  if (line.length < MIN_RECORD_LENGTH || !separatorsInPlace(line)) return null;
  const name = field(line, 'name');
  const address = field(line, 'address');
  const postal = /^(\d{4})(?:\s+(.*))?$/.exec(field(line, 'postal'));
  const history = field(line, 'history');
  if (name === '' || address === '' || postal === null || (history !== '' && history !== '*')) return null;
  const codes: Record<string, string> = {};
  for (const key of NUMERIC_FIELDS) {
    const value = field(line, key);
    if (!/^\d{1,4}$/.test(value)) return null;
    codes[key] = value.padStart(4, '0');
  }
  const husnummer = field(line, 'husnummer');
  if (!/^[0-9A-Za-z]{0,4}$/.test(husnummer)) return null;
  const entry: ListEntry = { name, address, postal_code: postal[1], city: postal[2] ?? '' };
  // A record whose codes make no valid key (e.g. no house number) still names a person at an
  // address: it is kept, without kvhx, and matched on its address text.
  const kvhx = tryFormatKvhx({
    kommunekode: codes.kommunekode,
    vejkode: codes.vejkode,
    husnummer,
    etage: field(line, 'etage'),
    door: field(line, 'door'),
  });
  if (kvhx !== null) entry.kvhx = kvhx;
  entry.previous = history === '*';
  return entry;
}

/** The publication date of a header record as YYYY-MM-DD, or null. */
function findDate(line: string): string | null {
  let m = /(\d{4})-(\d{2})-(\d{2})/.exec(line);
  if (m) return validDate(m[1], m[2], m[3]);
  m = /(\d{2})[.-](\d{2})[.-](\d{4})/.exec(line);
  if (m) return validDate(m[3], m[2], m[1]);
  m = /(?<!\d)(\d{4})(\d{2})(\d{2})(?!\d)/.exec(line);
  if (m) return validDate(m[1], m[2], m[3]);
  return null;
}

function validDate(y: string, m: string, d: string): string | null {
  const iso = `${y}-${m}-${d}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(iso) ? iso : null;
}

// ---------------------------------------------------------------------------------------------
// Writing (generator, tests, fixtures)

/** The file's records as text lines (without line ends): header, column names, entries. */
export function* cprFileLines(publishedOn: string, records: Iterable<CprWriteRecord>): Generator<string> {
  if (validDate(publishedOn.slice(0, 4), publishedOn.slice(5, 7), publishedOn.slice(8, 10)) !== publishedOn) {
    throw new RangeError('publishedOn must be YYYY-MM-DD');
  }
  yield `Publiceringsdato#${publishedOn}`;
  yield CPR_LAYOUT.map((f) => fit(f.column.slice(0, f.width), f)).join('#');

  for (const r of records) {
    const line =
      fit(`${r.last_name},${r.first_name}`, FIELD.name) + '#' +
      fit(r.address, FIELD.address) + '#' +
      fit(r.locality ?? '', FIELD.locality) + '#' +
      fit(`${r.postal_code} ${r.city}`, FIELD.postal) + '#' +
      fit(r.previous ? '*' : '', FIELD.history) + '#' +
      fit(r.kommunekode.padStart(4, '0'), FIELD.kommunekode) + '#' +
      fit(r.vejkode.padStart(4, '0'), FIELD.vejkode) + '#' +
      fit(r.husnummer, FIELD.husnummer) + '#' +
      fit(r.etage ?? '', FIELD.etage) + '#' +
      fit(r.door ?? '', FIELD.door);
    // One check over the whole record: only printable latin1, and no `#` inside a field.
    if (!LATIN1_RECORD.test(line) || countSeparators(line) !== CPR_LAYOUT.length - 1) {
      throw new RangeError('a CPR record holds a character latin1 records cannot carry');
    }
    yield line;
  }
}

const LATIN1_RECORD = /^[\x20-\x7e\xa0-\xff]*$/;

function countSeparators(line: string): number {
  let n = 0;
  for (let i = line.indexOf('#'); i !== -1; i = line.indexOf('#', i + 1)) n++;
  return n;
}

/** The file as latin1 chunks of about `chunkBytes` (each a fresh buffer), for streaming a large file. */
export function* cprFileChunks(
  publishedOn: string,
  records: Iterable<CprWriteRecord>,
  chunkBytes = 1 << 20,
): Generator<Buffer> {
  let chunk = Buffer.allocUnsafe(chunkBytes);
  let used = 0;
  for (const line of cprFileLines(publishedOn, records)) {
    const bytes = line.length + 2; // latin1: one byte per character, plus CRLF
    if (used + bytes > chunk.length) {
      if (used > 0) yield chunk.subarray(0, used);
      chunk = Buffer.allocUnsafe(Math.max(chunkBytes, bytes));
      used = 0;
    }
    used += chunk.write(line, used, 'latin1');
    chunk[used++] = 13;
    chunk[used++] = 10;
  }
  if (used > 0) yield chunk.subarray(0, used);
}

/** The whole file in one buffer (CRLF line ends, as the CPR office writes them). */
export function writeCprFile(publishedOn: string, records: Iterable<CprWriteRecord>): Buffer {
  return Buffer.concat([...cprFileChunks(publishedOn, records)]);
}

function fit(value: string, f: CprField): string {
  if (value.length > f.width) throw new RangeError(`CPR field ${f.column} is wider than ${f.width} characters`);
  return value.padEnd(f.width, ' ');
}
