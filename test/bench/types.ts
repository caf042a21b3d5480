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
}

export interface BenchSection {
  title: string;
  metrics: BenchMetric[];
  notes?: string[];
}

export type Bench = () => Promise<BenchSection>;
