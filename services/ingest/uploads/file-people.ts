/**
 * The people of a csv/xlsx/xls file on local disk, read with the same readers, mapping rules and
 * limits as a file job (createJobFromFile): for channels that keep people rather than check them
 * at once (a monitor's contacts). The whole file is checked before anything is yielded by the
 * caller's consumer: a refused file (FileRefusedError), a mapping naming a missing column
 * (ColumnMappingError), no usable mapping or an over-long value (JobInputError) throw.
 */
import type { ColumnMapping } from '../../domain/check-job.ts';
import type { PersonInput } from '../../domain/types.ts';
import { FileRefusedError, mappingWarnings, MappingWarningsError, openTable, resolveColumnMapping } from '../files/index.ts';
import { JobInputError, jobInputIssue } from '../jobs/errors.ts';
import { spoolRowsOf, unreadableRows } from './file-rows.ts';
import { summariseTable, type Cells } from './table-summary.ts';

export interface FilePeople {
  format: 'xlsx' | 'xls' | 'csv';
  rowCount: number;
  /** The mapping used: the caller's, else the saved one for the header row, else the one guessed from the headers. */
  column_mapping: ColumnMapping;
  people(): AsyncGenerator<PersonInput[]>;
}

export interface FilePeopleOptions {
  filename?: string | null;
  column_mapping?: ColumnMapping | null;
  /**
   * Without `column_mapping`: the organisation's saved mapping for the file's first rows, if any,
   * used before guessing (docs/inbound.md "Saved column mappings on every channel").
   */
  savedMapping?: (firstRows: Cells[]) => ColumnMapping | null;
  /**
   * For a channel where no person looks at the columns first (an SFTP folder or a connector feeding
   * a monitor): a mapping with warnings (no name or address column, most first rows unreadable) is
   * refused with MappingWarningsError, as a file job that starts at once is (docs/uploads.md
   * "Warnings before a check"), instead of making contacts no check could read.
   */
  refuseWarnings?: boolean;
}

export async function readPeopleFromFile(path: string, options: FilePeopleOptions = {}): Promise<FilePeople> {
  const table = await openTable(path, { filename: options.filename ?? null });
  const summary = await summariseTable(table, options.column_mapping ?? null, options.savedMapping);
  if (summary.rowCount === 0) throw new FileRefusedError('file_no_data');
  if (!summary.mapping && options.refuseWarnings === true) throw new MappingWarningsError(mappingWarnings(null, {}, []));
  if (!summary.mapping) throw new JobInputError([jobInputIssue('column_mapping', 'column_mapping_required')]);
  const mapping = summary.mapping;
  const resolved = resolveColumnMapping(mapping, summary.header, summary.columnCount);
  if (options.refuseWarnings === true) {
    // A monitor checks people only (docs/monitors.md): the people warnings.
    const warnings = mappingWarnings(mapping, {}, unreadableRows(summary.preview, resolved));
    if (warnings.length > 0) throw new MappingWarningsError(warnings);
  }
  return {
    format: table.format,
    rowCount: summary.rowCount,
    column_mapping: mapping,
    async* people() {
      const again = await openTable(path, { filename: options.filename ?? null });
      for await (const rows of spoolRowsOf(again, resolved, summary.headerRow)) yield rows.map((r) => r.person);
    },
  };
}
