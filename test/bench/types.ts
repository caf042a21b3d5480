/**
 * Convention for `npm run bench`: every `test/bench/*.bench.ts` default-exports a function that
 * returns one section of the report. test/bench/run.ts runs each file in a fresh child process
 * (so RSS numbers are its own) and writes the sections to test/bench/REPORT.md and report.json.
 */
export interface BenchMetric {
  name: string;
  value: number;
  unit: string;
  /** The goal from the issue, e.g. { op: '>=', value: 200000 }. */
  goal?: { op: '<=' | '>='; value: number };
  note?: string;
  /**
   * The figure as a multiple of a reference measured in the same run ("3.2× the floor"); see
   * reference.ts. When absent, the runner adds one to the calibration for times and rates.
   */
  ratio?: { value: number; of: string };
}

export interface BenchSection {
  title: string;
  metrics: BenchMetric[];
  notes?: string[];
}

export type Bench = () => Promise<BenchSection>;
