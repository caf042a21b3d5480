/**
 * Errors of the list-file readers (CPR file, customer CSV). Their messages carry line numbers and
 * counts only, never a field's content, so they can be logged and shown as they are.
 *
 * - `ListFileFormatError`: the file as a whole cannot be read (no header, unknown columns). Thrown
 *   as soon as it is known; nothing has been yielded that should be trusted.
 * - `ListFileRowsError`: some lines could not be read. The readers skip them, yield every good
 *   entry, and throw this once at the END of the stream, so a caller that ignores it still cannot
 *   lose lines silently. An importer that accepts a few bad lines catches it after the loop and
 *   decides (e.g. seal the version anyway, or reject the import).
 */
import { PermanentError } from '../../platform/errors.ts';

export type ListFileFormatProblem = 'empty_file' | 'missing_header' | 'missing_columns' | 'unknown_columns';

export class ListFileFormatError extends PermanentError {
  override readonly name = 'ListFileFormatError';
  readonly problem: ListFileFormatProblem;
  /** 1-based line where the problem was found, when there is one. */
  readonly line: number | null;

  constructor(problem: ListFileFormatProblem, message: string, line: number | null = null) {
    super(line === null ? message : `${message} (line ${line})`);
    this.problem = problem;
    this.line = line;
  }
}

/** How many line numbers an error keeps; the count is always exact. */
const MAX_REPORTED_LINES = 100;

export class ListFileRowsError extends PermanentError {
  override readonly name = 'ListFileRowsError';
  /** Number of lines (records) skipped. */
  readonly count: number;
  /** 1-based line numbers of the first `MAX_REPORTED_LINES` skipped lines, ascending. */
  readonly lines: readonly number[];
  /** Entries that were read and yielded. */
  readonly entriesRead: number;

  constructor(count: number, lines: readonly number[], entriesRead: number) {
    const shown = lines.join(', ') + (count > lines.length ? ', …' : '');
    super(`${count} malformed line(s) skipped, ${entriesRead} entries read; lines: ${shown}`);
    this.count = count;
    this.lines = lines;
    this.entriesRead = entriesRead;
  }
}

/** Collects the line numbers of skipped lines while a reader runs. */
export class SkippedLines {
  count = 0;
  readonly lines: number[] = [];

  add(line: number): void {
    this.count++;
    if (this.lines.length < MAX_REPORTED_LINES) this.lines.push(line);
  }

  /** Throws `ListFileRowsError` when anything was skipped; call after the last entry. */
  throwIfAny(entriesRead: number): void {
    if (this.count > 0) throw new ListFileRowsError(this.count, this.lines, entriesRead);
  }
}
