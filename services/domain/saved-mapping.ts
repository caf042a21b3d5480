/**
 * When a file's header row "matches" a saved column mapping (docs/web.md "Saved column
 * mappings"): the same header cells in the same order, each compared after folding: Unicode NFC,
 * lower case, spaces at the ends dropped and runs of white space made one space. So "Post nr"
 * and "post  nr " are the same column; "Postnr" and "Post nr" are not (a different export), nor
 * is a file with a column added, removed or moved (its indexes would point at other cells).
 */
export function foldHeaderCell(cell: string): string {
  return cell.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** One text per header row, equal exactly when the rows match (a JSON list of the folded cells). */
export function headerKey(columns: readonly string[]): string {
  return JSON.stringify(columns.map(foldHeaderCell));
}

/** A header row worth saving a mapping for: at least one cell with text (a file without headers has nothing to recognise). */
export function hasHeaderText(columns: readonly string[]): boolean {
  return columns.some((cell) => foldHeaderCell(cell) !== '');
}

/** The channels a saved mapping can be kept to (docs/inbound.md "Saved column mappings on every channel"). */
export const MAPPING_CHANNELS = ['upload', 'sftp', 'email', 'connector'] as const;
export type MappingChannel = (typeof MAPPING_CHANNELS)[number];

/** What the choice needs of a saved mapping (the store's record has more). */
export interface SavedMappingCandidate<M> {
  columns: readonly string[];
  column_mapping: M & { header_row?: number };
  /** Absent or null: every channel of the organisation; else only these. */
  channels?: readonly MappingChannel[] | null;
}

/** A saved mapping applies to a file of `channel` unless it is kept to other channels. */
export function appliesToChannel(mapping: Pick<SavedMappingCandidate<unknown>, 'channels'>, channel: string): boolean {
  return !mapping.channels || mapping.channels.length === 0 || (mapping.channels as readonly string[]).includes(channel);
}

/** The header cells without the empty ones at the end (a reader pads short header rows with them). */
function withoutTrailingEmpty(cells: ReadonlyArray<string | null>): string[] {
  const texts = cells.map((cell) => cell ?? '');
  let end = texts.length;
  while (end > 0 && foldHeaderCell(texts[end - 1]) === '') end -= 1;
  return texts.slice(0, end);
}

/**
 * The first saved mapping (oldest first, as the store lists them) that applies to `channel` and
 * whose header row is the file's row at the mapping's `header_row` (default 0), compared as
 * headerKey does; null when none. `firstRows` are the file's first rows as read.
 */
export function savedMappingFor<T extends SavedMappingCandidate<unknown>>(
  saved: readonly T[], firstRows: ReadonlyArray<ReadonlyArray<string | null>>, channel: string,
): T | null {
  for (const mapping of saved) {
    if (!appliesToChannel(mapping, channel)) continue;
    const at = mapping.column_mapping.header_row ?? 0;
    const row = at >= 0 ? firstRows[at] : undefined;
    if (!row || !hasHeaderText(mapping.columns)) continue;
    if (headerKey(withoutTrailingEmpty(row)) === headerKey(withoutTrailingEmpty(mapping.columns))) return mapping;
  }
  return null;
}
