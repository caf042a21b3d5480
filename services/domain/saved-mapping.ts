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
