/**
 * Same-run references for bench figures. An absolute figure does not carry from
 * one machine to another: the same commit measured 18.4 s on one run and 41.7 s on a quiet run of
 * another machine of the same kind. A figure divided by something measured in the same process
 * run, on the same machine under the same load, does carry. Two kinds of reference:
 *
 * - the calibration: a fixed CPU workload (`calibrate`), measured by child.ts before and after
 *   every bench; the runner adds a ratio to it to every time and rate figure that has none;
 * - a floor or baseline the bench measures itself (the physical floor of a job, a bare read of
 *   the same file, the same call without the feature): `relativeTo` / `ratioMetric`.
 *
 * See test/bench/README.md for how a bench section uses them.
 */
import type { BenchMetric } from './types.ts';

/** Something measured in the same run that figures are divided by. */
export interface Reference {
  /** How the report names it after the "×", e.g. 'the floor', 'a bare JSON.parse'. */
  name: string;
  value: number;
  unit: string;
}

/** The records one calibration pass handles: its rate is CALIBRATION_RECORDS / its time. */
export const CALIBRATION_RECORDS = 40_000;

/** What the report calls the calibration in the ratio column. */
export const CALIBRATION_NAME = 'calibration';

/**
 * The fixed CPU workload, one pass: the kind of work the pipeline does (JSON text both ways,
 * string normalisation, a Map, a sort) on the same seeded records every time, so its time moves
 * only with the machine and its load. Returns a checksum so the work cannot be optimised away.
 */
export function calibrationPass(): number {
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const givenNames = ['Anne', 'Søren', 'Åse', 'Jens', 'Mette', 'Niels', 'Birgitte', 'Ærø'];
  const streets = ['Vestergade', 'Østerbrogade', 'Gl. Kongevej', 'Skt. Clemens Stræde', 'Ågade'];
  const records = [];
  for (let i = 0; i < CALIBRATION_RECORDS; i++) {
    records.push({
      id: `r${i}`,
      name: `${givenNames[next() % givenNames.length]} ${givenNames[next() % givenNames.length]}sen`,
      address: `${streets[next() % streets.length]} ${next() % 200}, ${1000 + (next() % 8000)} By`,
    });
  }
  const parsed = JSON.parse(JSON.stringify(records)) as typeof records;
  const byKey = new Map<string, number>();
  for (const record of parsed) {
    const key = `${record.name}|${record.address}`.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    byKey.set(key, (byKey.get(key) ?? 0) + 1);
  }
  const keys = [...byKey.keys()].sort();
  return keys.length + (keys[0]?.length ?? 0);
}

/** The calibration's time in ms: the median of `passes` passes after one warm-up pass. */
export function calibrate(passes = 5): number {
  calibrationPass();
  const times: number[] = [];
  for (let i = 0; i < passes; i++) {
    const started = performance.now();
    calibrationPass();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return round(times[Math.floor(times.length / 2)], 1);
}

/** The figure `metric` as a multiple of `reference` (same unit), shown in the report's ratio column. */
export function relativeTo(metric: BenchMetric, reference: Reference): BenchMetric {
  if (metric.unit !== reference.unit) {
    throw new Error(`${metric.name} (${metric.unit}) cannot be divided by ${reference.name} (${reference.unit})`);
  }
  return { ...metric, ratio: { value: round(metric.value / reference.value, 2), of: reference.name } };
}

/**
 * A metric whose value IS the ratio, for goals stated as ratios ("≤ 4× the floor"); the absolute
 * figure and the reference go into the note.
 */
export function ratioMetric(name: string, figure: number, reference: Reference, goal?: BenchMetric['goal']): BenchMetric {
  return {
    name,
    value: round(figure / reference.value, 2),
    unit: `× ${reference.name}`,
    ...(goal ? { goal } : {}),
    note: `${formatNumber(figure)} ${reference.unit} / ${formatNumber(reference.value)} ${reference.unit}`,
  };
}

const TIME_UNITS: Record<string, number> = { s: 1000, ms: 1, 'µs': 0.001 };

/**
 * The ratio to the calibration the runner adds to a metric that has no ratio of its own: a time
 * as a multiple of the calibration's time, a rate (unit ending in "/s") as a multiple of the
 * calibration's rate (CALIBRATION_RECORDS records per pass). Null for other units (MB, counts):
 * those need a reference of their own (e.g. RSS before the work).
 */
export function calibrationRatio(metric: BenchMetric, calibrationMs: number): BenchMetric['ratio'] | null {
  if (!(calibrationMs > 0)) return null;
  const msPerUnit = TIME_UNITS[metric.unit];
  if (msPerUnit !== undefined) return { value: round((metric.value * msPerUnit) / calibrationMs, 2), of: CALIBRATION_NAME };
  if (metric.unit.endsWith('/s')) {
    const calibrationRate = CALIBRATION_RECORDS / (calibrationMs / 1000);
    return { value: round(metric.value / calibrationRate, 3), of: CALIBRATION_NAME };
  }
  return null;
}

/** Times `work` (ms, wall clock) and returns its result too. */
export async function timed<T>(work: () => T | Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

function round(n: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(n * factor) / factor;
}

function formatNumber(n: number): string {
  return n.toLocaleString('en', { maximumFractionDigits: 2 });
}
