import { normalisePhone, type DirectoryEntry } from '../../domain/index.ts';
import {
  importRegister, utf8Lines, type ParsedLine, type RegisterImportDeps, type RegisterImportResult,
} from '../companies/register-import.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * The phone directory file (docs/decisions.md §17): CSV, UTF-8, a header row, then one number per row.
 * Columns (any order, case and `-`/`_`/spaces ignored, Danish names accepted):
 * `number` (nummer, telefon, phone), `name` (navn), `address` (adresse), `listed` (synlig,
 * offentlig): true for `true`, `1`, `ja`, `yes`, `x`; false for `false`, `0`, `nej`, `no`, empty.
 * Separator `,`, `;` or tab, detected from the header; RFC 4180 quotes within a line.
 * Numbers are stored in E.164 (normalisePhone), so any written form finds them. A row is skipped
 * with its reason (line numbers only): `bad_number`, `no_name` (a listed number without a name),
 * `bad_listed`, `too_many_fields`, `bad_quotes`.
 */
type Column = 'number' | 'name' | 'address' | 'listed';

const ALIASES: Record<string, Column> = {
  number: 'number', nummer: 'number', telefon: 'number', telefonnummer: 'number', phone: 'number', tlf: 'number',
  name: 'name', navn: 'name',
  address: 'address', adresse: 'address',
  listed: 'listed', synlig: 'listed', offentlig: 'listed', public: 'listed',
};

const TRUE = new Set(['true', '1', 'ja', 'yes', 'x']);
const FALSE = new Set(['false', '0', 'nej', 'no', '']);

export class DirectoryFileError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'DirectoryFileError';
  }
}

/** Fields of one CSV line, or null when a quote is not closed. */
export function splitCsvLine(line: string, separator: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i += 1;
      for (;;) {
        const quote = line.indexOf('"', i);
        if (quote < 0) return null;
        field += line.slice(i, quote);
        if (line[quote + 1] === '"') {
          field += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
      const next = line.indexOf(separator, i);
      if (next < 0) {
        if (line.slice(i).trim() !== '') return null;
        fields.push(field);
        return fields;
      }
      if (line.slice(i, next).trim() !== '') return null;
      fields.push(field);
      i = next + separator.length;
    } else {
      const next = line.indexOf(separator, i);
      if (next < 0) {
        fields.push(line.slice(i).trim());
        return fields;
      }
      fields.push(line.slice(i, next).trim());
      i = next + separator.length;
    }
  }
}

function detectSeparator(header: string): string {
  const counts = [';', ',', '\t'].map((s) => [s, header.split(s).length] as const);
  return counts.reduce((best, c) => (c[1] > best[1] ? c : best))[0];
}

export async function* parseDirectoryCsv(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ParsedLine<DirectoryEntry>> {
  let columns: Array<Column | null> | null = null;
  let separator = ',';
  let number = 0;
  for await (const line of utf8Lines(chunks)) {
    number += 1;
    if (line.trim() === '') continue;
    if (!columns) {
      separator = detectSeparator(line);
      const header = splitCsvLine(line, separator) ?? [];
      columns = header.map((h) => ALIASES[h.toLowerCase().replace(/[\s_-]/g, '')] ?? null);
      const missing = (['number', 'name', 'address', 'listed'] as const).filter((c) => !columns!.includes(c));
      if (missing.length > 0) throw new DirectoryFileError(`the header row lacks the column(s) ${missing.join(', ')}`);
      continue;
    }
    const fields = splitCsvLine(line, separator);
    if (!fields) {
      yield { skipped: 'bad_quotes', line: number };
      continue;
    }
    if (fields.length > columns.length && fields.slice(columns.length).some((f) => f !== '')) {
      yield { skipped: 'too_many_fields', line: number };
      continue;
    }
    const row: Partial<Record<Column, string>> = {};
    columns.forEach((column, i) => {
      if (column) row[column] = (fields[i] ?? '').trim();
    });
    const e164 = normalisePhone(row.number ?? '');
    const listedText = (row.listed ?? '').toLowerCase();
    if (!e164) yield { skipped: 'bad_number', line: number };
    else if (!TRUE.has(listedText) && !FALSE.has(listedText)) yield { skipped: 'bad_listed', line: number };
    else if (TRUE.has(listedText) && !row.name) yield { skipped: 'no_name', line: number };
    else yield { record: { number: e164, name: row.name ?? '', address: row.address ?? '', listed: TRUE.has(listedText) } };
  }
  if (!columns) throw new DirectoryFileError('the file is empty: a header row is needed');
}

/** Imports a directory file as a new `phones` register version (not activated). */
export function importDirectoryFile(
  deps: RegisterImportDeps,
  request: { chunks: AsyncIterable<Uint8Array>; publishedOn?: string; maxSkipped?: number },
): Promise<RegisterImportResult> {
  return importRegister<DirectoryEntry>(deps, {
    kind: 'phones',
    ...(request.publishedOn ? { publishedOn: request.publishedOn } : {}),
    ...(request.maxSkipped !== undefined ? { maxSkipped: request.maxSkipped } : {}),
  }, parseDirectoryCsv(request.chunks));
}
