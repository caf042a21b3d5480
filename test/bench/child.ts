/**
 * Runs ONE bench file in this (fresh) process for test/bench/run.ts: measures the calibration (a
 * fixed CPU workload, reference.ts), imports the bench, calls its default export, measures the
 * calibration again and sends the section back over the IPC channel. A process of its own per
 * bench, so RSS and GC numbers are the bench's own and one bench's heap never slows the next;
 * the calibration before and after, so every figure has a same-run reference and a drift between
 * the two shows the machine's load changing under the bench.
 */
import { pathToFileURL } from 'node:url';
import { calibrate } from './reference.ts';
import type { Bench, BenchSection } from './types.ts';

export type ChildMessage =
  | { ok: true; section: BenchSection; calibration_ms: [number, number] }
  | { ok: false; error: string };

const file = process.argv[2];
if (!file || !process.send) throw new Error('usage: forked by test/bench/run.ts with the bench file as argument');

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => process.send!(message, undefined, {}, () => resolve()));
}

try {
  const module = (await import(pathToFileURL(file).href)) as { default?: Bench };
  if (typeof module.default !== 'function') throw new Error(`${file} has no default-exported Bench function`);
  const before = calibrate();
  const section = await module.default();
  const after = calibrate();
  await send({ ok: true, section, calibration_ms: [before, after] });
} catch (error) {
  await send({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
// A bench may leave servers or timers behind; its numbers are in, so end here.
process.exit(0);
