import type { ColumnMapping, MappedField } from '../../domain/check-job.ts';
import type { PersonInput } from '../../domain/types.ts';
import { fieldOfHeader, normaliseHeader } from './header-names.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * From a file's first rows to the mapping of its columns onto the service's fields (docs/contract.md
 * ColumnMapping), and from a mapping to the person of each row. Pure.
 *
 * `header_row` is the 0-based index, among the rows openTable yields (blank rows are skipped), of
 * the header row; -1 means the file has none (a header-less file, mapped by content).
 */
export const NO_HEADER_ROW = -1;
/** Rows looked at for the header row (title lines may come before it). */
const HEADER_SEARCH_ROWS = 10;
/** Rows looked at when guessing columns by their content. */
const CONTENT_SAMPLE_ROWS = 20;

export const MAPPED_FIELDS: readonly MappedField[] = [
  'name', 'first_name', 'last_name', 'address', 'street', 'house_number', 'floor', 'door',
  'postal_code', 'city', 'phone', 'cvr', 'company_name', 'external_id',
];

export interface ResolvedColumnMapping {
  /** Index of the header row among the rows read; -1 when there is none. Data rows follow it. */
  header_row: number;
  /** Field → 0-based column index. */
  columns: Partial<Record<MappedField, number>>;
}

export interface ColumnMappingIssue {
  /** Where in the request, e.g. `column_mapping.first_name`. */
  path: string;
  code: 'column_not_found' | 'no_header_row' | 'no_columns_mapped' | 'header_row_out_of_range';
}

/** A mapping that does not fit the file: the API answers 422 with the issues. */
export class ColumnMappingError extends PermanentError {
  readonly issues: ColumnMappingIssue[];

  constructor(issues: ColumnMappingIssue[]) {
    super(`column mapping does not fit the file: ${issues.map((i) => `${i.path} ${i.code}`).join(', ')}`);
    this.name = 'ColumnMappingError';
    this.issues = issues;
  }
}

/**
 * Guess from Danish/English headers; a file without a recognisable header row is mapped by content
 * where it can (postal codes, street addresses, names, phone numbers). Null when no column could be
 * told: the caller asks the customer. Headers that occur once are given by name (readable in the
 * draft), repeated ones by index.
 */
export function guessColumnMapping(firstRows: Array<Array<string | null>>): ColumnMapping | null {
  const headerRow = findHeaderRow(firstRows);
  if (headerRow !== null) {
    const header = firstRows[headerRow];
    const mapping: ColumnMapping = { header_row: headerRow };
    header.forEach((cell, index) => {
      const field = fieldOfHeader(cell);
      if (field === null || mapping[field] !== undefined) return;
      const unique = header.filter((h) => h === cell).length === 1;
      mapping[field] = unique && cell !== null ? cell : index;
    });
    addAddressByContent(mapping, header, firstRows.slice(headerRow + 1, headerRow + 1 + CONTENT_SAMPLE_ROWS));
    return mapping;
  }
  return guessByContent(firstRows.slice(0, CONTENT_SAMPLE_ROWS));
}

/** The first row (of the first few) naming the most known fields; at least two, or one in row 0. */
function findHeaderRow(rows: Array<Array<string | null>>): number | null {
  let best: number | null = null;
  let bestScore = 0;
  for (let r = 0; r < Math.min(rows.length, HEADER_SEARCH_ROWS); r++) {
    const fields = new Set(rows[r].map(fieldOfHeader).filter((f) => f !== null));
    if (fields.size > bestScore) {
      best = r;
      bestScore = fields.size;
    }
  }
  if (best === null) return null;
  if (bestScore >= 2) return best;
  return best === 0 && rows[0].every((c) => c === null || !/\d/.test(c)) ? 0 : null;
}

/**
 * A header the names do not know ("Adr.", "Bopæl", "Leveringssted") over street-and-number texts
 * is the address: without it every row would be read as having no address and end as a manual
 * verdict (docs/files.md "Column mapping"). Only when the headers named no address or street, and
 * only a column whose header named nothing, so a known header is never overruled.
 */
function addAddressByContent(mapping: ColumnMapping, header: Array<string | null>, dataRows: Array<Array<string | null>>): void {
  if (mapping.address !== undefined || mapping.street !== undefined) return;
  const width = Math.max(header.length, 0, ...dataRows.map((r) => r.length));
  for (let c = 0; c < width; c++) {
    if (fieldOfHeader(header[c] ?? null) !== null) continue;
    if (shareOf(dataRows, c, (v) => STREET_ADDRESS.test(v)) < ADDRESS_SHARE) continue;
    const cell = header[c];
    const unique = cell !== null && cell !== undefined && cell.trim() !== '' && header.filter((h) => h === cell).length === 1;
    mapping.address = unique ? cell : c;
    return;
  }
}

/** Share of the filled cells of `column` that pass `test` (0 when none is filled). */
function shareOf(rows: Array<Array<string | null>>, column: number, test: (v: string) => boolean): number {
  let filled = 0;
  let hits = 0;
  for (const row of rows) {
    const v = row[column]?.trim();
    if (!v) continue;
    filled++;
    if (test(v)) hits++;
  }
  return filled === 0 ? 0 : hits / filled;
}

/** Share of a column's cells that must look like street and number for it to be the address. */
const ADDRESS_SHARE = 0.6;
const POSTAL_CODE = /^\d{4}$/;
const STREET_ADDRESS = /^\p{L}[\p{L}\s.'-]*\s\d{1,4}\s?[A-Za-z]?(\b|,|$)/u;
const FORMATTED_PHONE = /^(\+45|0045)?[\s-]?(\d{2}[\s-]?){3}\d{2}$/;
const WORDS = /^[\p{L}][\p{L}\s.'-]*$/u;

function guessByContent(rows: Array<Array<string | null>>): ColumnMapping | null {
  const width = Math.max(0, ...rows.map((r) => r.length));
  const share = (column: number, test: (v: string) => boolean) => shareOf(rows, column, test);
  const kinds: Array<'postal' | 'address' | 'phone' | 'multiword' | 'word' | null> = [];
  for (let c = 0; c < width; c++) {
    if (share(c, (v) => POSTAL_CODE.test(v)) >= 0.8) kinds.push('postal');
    else if (share(c, (v) => STREET_ADDRESS.test(v)) >= ADDRESS_SHARE) kinds.push('address');
    else if (share(c, (v) => FORMATTED_PHONE.test(v) && /[\s+-]/.test(v)) >= 0.8) kinds.push('phone');
    else if (share(c, (v) => WORDS.test(v) && v.includes(' ')) >= 0.6) kinds.push('multiword');
    else if (share(c, (v) => WORDS.test(v)) >= 0.8) kinds.push('word');
    else kinds.push(null);
  }
  const mapping: ColumnMapping = { header_row: NO_HEADER_ROW };
  const postal = kinds.indexOf('postal');
  const address = kinds.indexOf('address');
  if (postal !== -1) {
    mapping.postal_code = postal;
    // The column after the postal code holding words is the city (Danish order: 2100 København Ø).
    if (kinds[postal + 1] === 'word' || kinds[postal + 1] === 'multiword') mapping.city = postal + 1;
  }
  if (address !== -1) mapping.address = address;
  const phone = kinds.indexOf('phone');
  if (phone !== -1) mapping.phone = phone;
  const taken = new Set(Object.values(mapping).filter((v) => typeof v === 'number' && v >= 0));
  const free = (c: number) => !taken.has(c);
  const multiword = kinds.findIndex((k, c) => k === 'multiword' && free(c));
  const firstWord = kinds.findIndex((k, c) => k === 'word' && free(c) && kinds[c + 1] === 'word' && free(c + 1));
  if (multiword !== -1 && (firstWord === -1 || multiword < firstWord)) mapping.name = multiword;
  else if (firstWord !== -1) {
    mapping.first_name = firstWord;
    mapping.last_name = firstWord + 1;
  }
  const hasName = mapping.name !== undefined || mapping.first_name !== undefined;
  const hasAddress = mapping.address !== undefined || mapping.postal_code !== undefined;
  return hasName && hasAddress ? mapping : null;
}

/** Checks a mapping against the file; every column it names must exist (else ColumnMappingError). */
export function resolveColumnMapping(mapping: ColumnMapping, header: Array<string | null> | null, columnCount: number): ResolvedColumnMapping {
  const issues: ColumnMappingIssue[] = [];
  const headerRow = mapping.header_row ?? 0;
  if (!Number.isInteger(headerRow) || headerRow < NO_HEADER_ROW) issues.push({ path: 'column_mapping.header_row', code: 'header_row_out_of_range' });
  const columns: Partial<Record<MappedField, number>> = {};
  const normalisedHeader = header?.map((h) => (h === null ? null : normaliseHeader(h))) ?? null;
  for (const field of MAPPED_FIELDS) {
    const target = mapping[field];
    if (target === undefined) continue;
    const path = `column_mapping.${field}`;
    if (typeof target === 'number') {
      if (Number.isInteger(target) && target >= 0 && target < columnCount) columns[field] = target;
      else issues.push({ path, code: 'column_not_found' });
      continue;
    }
    if (header === null || normalisedHeader === null) {
      issues.push({ path, code: 'no_header_row' });
      continue;
    }
    let index = header.indexOf(target);
    if (index === -1) index = normalisedHeader.indexOf(normaliseHeader(target));
    if (index === -1 || normaliseHeader(target) === '') issues.push({ path, code: 'column_not_found' });
    else columns[field] = index;
  }
  if (issues.length === 0 && Object.keys(columns).length === 0) issues.push({ path: 'column_mapping', code: 'no_columns_mapped' });
  if (issues.length > 0) throw new ColumnMappingError(issues);
  return { header_row: headerRow, columns };
}

export type MappedPerson = PersonInput & { cvr?: string; company_name?: string };

/** One data row → PersonInput fields plus cvr/company_name; `external_id` becomes `id`. Trimmed; empty cells are left out. */
export function personFromCells(cells: Array<string | null>, mapping: ResolvedColumnMapping): MappedPerson {
  const person: MappedPerson = {};
  for (const field of MAPPED_FIELDS) {
    const index = mapping.columns[field];
    if (index === undefined) continue;
    const value = cells[index]?.trim();
    if (!value) continue;
    if (field === 'external_id') person.id = value;
    else person[field] = value;
  }
  return person;
}
