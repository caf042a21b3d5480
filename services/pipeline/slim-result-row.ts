/**
 * A result row read from the slim form that the embedded store can store without a CheckResult
 * object (docs/architecture.md "Slim results", "Where a result's stored JSON is made"). Under
 * OWN_RECORD_BYTES it holds the writer of a run's record bytes straight from the slim rows
 * (slim-record-bytes.ts); a reader that wants the object (the ClickHouse store, a monitor job's
 * change in services/ingest/monitors/run-results.ts) reads `result` and gets exactly what
 * `fromSlim` gives, built then. Once the object is handed out (or replaced) the row has no bytes
 * of its own (the object may have been changed), and its run is stored from the objects.
 *
 * The slim row is a private field: spreading the row (`{ ...row, result }`) copies `row` and
 * `cells` only, so a copy with another result never carries this row's bytes.
 */
import type { ResultRow } from '../platform/store/jobs-port.ts';
import { OWN_RECORD_BYTES, type OwnRecordBytes, type OwnRecordWriter } from '../platform/store/job-results.ts';
import type { CheckResult } from '../domain/types.ts';
import { createSlimRecordWriter, type SlimRowRef } from './slim-record-bytes.ts';
import { resultOfSlim, type SlimResults } from './slim-results.ts';

/** One writer for the process: the store binds what it gives before it writes the next record. */
const writeSlimRecord = createSlimRecordWriter();

export class SlimResultRow implements ResultRow {
  readonly row: number;
  readonly cells: Array<string | null> | null;
  readonly #ref: SlimRowRef;
  #result: CheckResult | undefined = undefined;

  constructor(ref: SlimRowRef) {
    this.row = ref.slim.row;
    this.cells = ref.slim.cells;
    this.#ref = ref;
  }

  get result(): CheckResult {
    if (this.#result === undefined) this.#result = resultOfSlim(this.#ref.slim, this.#ref.labels);
    return this.#result;
  }

  set result(value: CheckResult) {
    this.#result = value;
  }

  get [OWN_RECORD_BYTES](): OwnRecordWriter {
    return ownRecordBytes;
  }

  /** The row's slim form while its result object was never handed out; null after. */
  static untouched(row: ResultRow): SlimRowRef | null {
    if (!(row instanceof SlimResultRow) || row.#result !== undefined) return null;
    return row.#ref;
  }
}

/** A run's record bytes from its slim rows; null when any row of it has none (OWN_RECORD_BYTES). */
function ownRecordBytes(run: readonly ResultRow[]): OwnRecordBytes | null {
  const refs = new Array<SlimRowRef>(run.length);
  for (let i = 0; i < run.length; i++) {
    const ref = SlimResultRow.untouched(run[i]);
    if (ref === null) return null;
    refs[i] = ref;
  }
  return writeSlimRecord(refs);
}

/** A chunk's rows as SlimResultRows (labels checked when the chunk was decoded). */
export function slimResultRows(slim: SlimResults): SlimResultRow[] {
  const rows = new Array<SlimResultRow>(slim.rows.length);
  for (let i = 0; i < rows.length; i++) rows[i] = new SlimResultRow({ slim: slim.rows[i], labels: slim.labels });
  return rows;
}
