/**
 * Files as bytes (docs/decisions.md §14): sniffing and reading CSV, xlsx and xls uploads, refusing
 * bad ones with a code and da/en text, mapping their columns onto the service's fields, and writing
 * result files. Used by the upload intake and, next, by the SFTP, email, connector and monitor
 * channels. See docs/files.md.
 *
 * Notes on the agreed interface (coord/files-interface.md), where this barrel differs or adds:
 * - A header-less file's mapping has `header_row: -1` (NO_HEADER_ROW); `header_row` counts the
 *   rows openTable yields, and blank rows are not yielded.
 * - ResolvedColumnMapping is `{ header_row, columns: { field → index } }`.
 * - writeResultFile's spec takes `columnCount` for a header-less input (the width of its rows).
 * - openTable also takes `maxInflatedBytes` (zip-bomb cap) and `xlsLimits` (worker time/memory);
 *   FileRefusedError has `line` (1-based, CSV) and the extra code `file_parser_limit`.
 */
export { type CsvDelimiter, type CsvDialect, detectDelimiter } from './csv-reader.ts';
export { type CsvRecord, type CsvTokenizer, createCsvTokenizer } from './csv-tokenizer.ts';
export {
  type ColumnMappingIssue,
  ColumnMappingError,
  guessColumnMapping,
  MAPPED_FIELDS,
  type MappedPerson,
  NO_HEADER_ROW,
  personFromCells,
  type ResolvedColumnMapping,
  resolveColumnMapping,
} from './column-mapping.ts';
export { fieldOfHeader, normaliseHeader } from './header-names.ts';
export { DEFAULT_MAX_DATA_ROWS, DEFAULT_MAX_INFLATED_BYTES, type OpenTableOptions, openTable, type TableSource } from './open-table.ts';
export { FILE_REFUSAL_CODES, type FileRefusalCode, FileRefusedError, fileRefusalMessage } from './refusal.ts';
export { neutraliseFormula, type ResultFileRow, type ResultFileSpec, verdictHeaders, verdictHeadersOf, writeResultFile } from './result-file.ts';
export type { TextEncodingName } from './text-encoding.ts';
export { DEFAULT_XLS_LIMITS, type XlsLimits } from './xls-reader.ts';
export {
  isUnreadablePerson, isUnreadableResult, type MappingWarning, type MappingWarningCode, mappingWarnings, MappingWarningsError,
  mappingWarningText, MOSTLY_UNREADABLE_SHARE, warningsOfRefusalCode, warningsRefusalCode, warningsRefusalTexts,
} from './mapping-warnings.ts';
