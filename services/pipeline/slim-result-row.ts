/**
 * A result row read from the slim form that the projection stores without a CheckResult object
 * (docs/architecture.md "Slim results", "Result JSON from the slim form"). The store asks the row
 * for its stored line (job-results.ts WRITTEN_RESULT) and gets the text slim-result-json.ts writes
 * from the slim row, byte for byte what JSON.stringify of `result` gives; a reader that wants the
 * object (a monitor job's change, services/ingest/monitors/run-results.ts) reads `result` and
 * gets exactly what `fromSlim` gives, built then. Once the object is handed out the row writes no
 * line of its own (the object may have been changed), and the store stringifies it as any row's.
 *
 * The slim row is a private field: spreading the row (`{ ...row, result }`) copies `row` and
 * `cells` only, so a copy with another result never carries this row's line.
 */
import type { ResultRow } from '../platform/store/jobs-port.ts';
import { WRITTEN_RESULT, type WrittenResult } from '../platform/store/job-results.ts';
import type { CheckResult } from '../domain/types.ts';
import { createSlimResultWriter } from './slim-result-json.ts';
import { resultOfSlim, type SlimResults, type SlimRowResult } from './slim-results.ts';

/** What the rows of one chunk share: its labels and one line writer (it reuses the last row's verdict text). */
interface ChunkContext {
  labels: readonly string[];
  write: (s: SlimRowResult) => string;
}

export class SlimResultRow implements ResultRow {
  readonly row: number;
  readonly cells: Array<string | null> | null;
  readonly #slim: SlimRowResult;
  readonly #chunk: ChunkContext;
  #result: CheckResult | undefined = undefined;

  constructor(slim: SlimRowResult, chunk: ChunkContext) {
    this.row = slim.row;
    this.cells = slim.cells;
    this.#slim = slim;
    this.#chunk = chunk;
  }

  get result(): CheckResult {
    if (this.#result === undefined) this.#result = resultOfSlim(this.#slim, this.#chunk.labels);
    return this.#result;
  }

  set result(value: CheckResult) {
    this.#result = value;
  }

  [WRITTEN_RESULT](into: WrittenResult): boolean {
    if (this.#result !== undefined) return false;
    const s = this.#slim;
    into.line = this.#chunk.write(s);
    into.status = s.status;
    into.level = s.match_level === -1 ? null : s.match_level;
    return true;
  }
}

/** A chunk's rows as SlimResultRows (labels checked when the chunk was decoded). */
export function slimResultRows(slim: SlimResults): SlimResultRow[] {
  const chunk: ChunkContext = { labels: slim.labels, write: createSlimResultWriter(slim.labels) };
  const rows = new Array<SlimResultRow>(slim.rows.length);
  for (let i = 0; i < rows.length; i++) rows[i] = new SlimResultRow(slim.rows[i], chunk);
  return rows;
}
