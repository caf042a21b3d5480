/**
 * The people of a csv/xlsx/xls file on local disk, read with the same readers, mapping rules and
 * limits as a file job (createJobFromFile): for channels that keep people rather than check them
 * at once (a monitor's contacts). The whole file is checked before anything is yielded by the
 * caller's consumer: a refused file (FileRefusedError), a mapping naming a missing column
 * (ColumnMappingError), no usable mapping or an over-long value (JobInputError) throw.
 */
import type { ColumnMapping } from '../../domain/check-job.ts';
import type { PersonInput } from '../../domain/types.ts';
import { FileRefusedError, openTable, resolveColumnMapping } from '../files/index.ts';
import { JobInputError, jobInputIssue } from '../jobs/errors.ts';
import { spoolRowsOf } from './file-rows.ts';
import { summariseTable } from './table-summary.ts';

export interface FilePeople {
  format: 'xlsx' | 'xls' | 'csv';
  rowCount: number;
  /** The mapping used: the caller's, else the one guessed from the headers. */
  column_mapping: ColumnMapping;
  people(): AsyncGenerator<PersonInput[]>;
}

export async function readPeopleFromFile(path: string, options: { filename?: string | null; column_mapping?: ColumnMapping | null } = {}): Promise<FilePeople> {
  const table = await openTable(path, { filename: options.filename ?? null });
  const summary = await summariseTable(table, options.column_mapping ?? null);
  if (summary.rowCount === 0) throw new FileRefusedError('file_no_data');
  if (!summary.mapping) throw new JobInputError([jobInputIssue('column_mapping', 'column_mapping_required')]);
  const mapping = summary.mapping;
  const resolved = resolveColumnMapping(mapping, summary.header, summary.columnCount);
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
