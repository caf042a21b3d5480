/**
 * What `use_private_list` costs (docs/decisions.md §16, docs/matching.md "Private lists"): every row is
 * checked against the national index and against the organisation's private index, so the rate
 * with the private list is measured against the national-only rate in alternating passes (both
 * see the same machine load), and the private index's memory per entry (the figure behind
 * PRIVATE_LIST_CACHE_ENTRIES) against the national index's per entry, both measured here.
 * Sizes: PRIVATE_BENCH_NATIONAL (default 500,000), PRIVATE_BENCH_PRIVATE (default 1,000,000, the
 * default cache bound), 100,000 inputs. Run alone: `npm exec -- node --expose-gc test/bench/private-lists.bench.ts`.
 */
import { applyPrivateList, buildListIndex, checkPerson, type ListIndex } from '../../services/domain/index.ts';
import type { CheckOptions, ListEntry, PersonInput } from '../../services/domain/types.ts';
import { createRng, generateListEntries, generatePeople, variantOf } from '../../services/synthetic/index.ts';
import type { Bench, BenchSection } from './types.ts';

const NATIONAL = Number(process.env.PRIVATE_BENCH_NATIONAL ?? 500_000);
const PRIVATE = Number(process.env.PRIVATE_BENCH_PRIVATE ?? 1_000_000);
const INPUTS = 100_000;
const ROUNDS = 5;
const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };
const MB = 1024 * 1024;
/** The version private matches name (applyPrivateList); any customer version will do for timing. */
const PRIVATE_VERSION = { id: '00000000-0000-4000-8000-0000000000c1', source: 'customer' as const, published_on: '2026-01-01' };

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Heap growth of building an index (after GC on both sides), and the index. */
function measuredBuild(entries: Iterable<ListEntry>): { index: ListIndex; bytes: number; seconds: number } {
  collectGarbage();
  const before = process.memoryUsage();
  const started = performance.now();
  const index = buildListIndex(entries);
  const seconds = (performance.now() - started) / 1000;
  collectGarbage();
  const after = process.memoryUsage();
  // Typed arrays live outside the JS heap (arrayBuffers); both count.
  const bytes = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
  return { index, bytes, seconds };
}

function pass(check: (person: PersonInput) => string, inputs: PersonInput[]): { rate: number; blocked: number } {
  let blocked = 0;
  const started = performance.now();
  for (const person of inputs) if (check(person) === 'blocked') blocked++;
  return { rate: inputs.length / ((performance.now() - started) / 1000), blocked };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const bench: Bench = async (): Promise<BenchSection> => {
  const national = measuredBuild(generateListEntries(NATIONAL, 'bench-private:national'));
  const privateMembers: ListEntry[] = [];
  let i = 0;
  const privateBuild = measuredBuild((function* () {
    for (const entry of generateListEntries(PRIVATE, 'bench-private:own')) {
      if (i++ % Math.max(1, Math.floor(PRIVATE / (INPUTS / 4))) === 0) privateMembers.push(entry);
      yield entry;
    }
  })());
  // A quarter of the inputs are on the private list (written as customers write), the rest not on it.
  const rng = createRng('bench-private:variants');
  const inputs = [...privateMembers.slice(0, INPUTS / 4).map((e) => variantOf(e, rng)), ...generatePeople(INPUTS - Math.min(privateMembers.length, INPUTS / 4), 'bench-private')];

  const nationalOnly = (person: PersonInput) => checkPerson(national.index, person, OPTIONS).status;
  const withPrivate = (person: PersonInput) =>
    applyPrivateList(checkPerson(national.index, person, OPTIONS), checkPerson(privateBuild.index, person, OPTIONS), PRIVATE_VERSION).status;
  pass(nationalOnly, inputs);
  pass(withPrivate, inputs);
  const rates = { national: [] as number[], both: [] as number[] };
  let blockedNational = 0;
  let blockedBoth = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const a = pass(nationalOnly, inputs);
    const b = pass(withPrivate, inputs);
    rates.national.push(a.rate);
    rates.both.push(b.rate);
    blockedNational = a.blocked;
    blockedBoth = b.blocked;
  }
  const nationalRate = median(rates.national);
  const bothRate = median(rates.both);
  const privatePerEntry = privateBuild.bytes / PRIVATE;
  const nationalPerEntry = national.bytes / NATIONAL;

  return {
    title: `Private lists: a ${PRIVATE.toLocaleString('en')}-entry private list beside a ${NATIONAL.toLocaleString('en')}-entry national list`,
    metrics: [
      {
        name: 'matching with use_private_list, one thread',
        value: Math.round(bothRate),
        unit: 'rows/s',
        ratio: { value: Number((bothRate / nationalRate).toFixed(2)), of: 'the national-only rate in alternating passes of the same run' },
        note: `median of ${ROUNDS} passes over ${inputs.length.toLocaleString('en')} inputs, a quarter on the private list; national only: ${Math.round(nationalRate).toLocaleString('en')} rows/s`,
      },
      {
        name: 'private index memory per entry',
        value: Math.round(privatePerEntry),
        unit: 'bytes',
        ratio: { value: Number((privatePerEntry / nationalPerEntry).toFixed(2)), of: `the national index per entry (${Math.round(nationalPerEntry)} bytes), same run` },
        note: `${(privateBuild.bytes / MB).toFixed(0)} MB for ${PRIVATE.toLocaleString('en')} entries (heap + typed arrays after GC): what PRIVATE_LIST_CACHE_ENTRIES bounds`,
      },
      {
        name: 'private index build',
        value: Number(privateBuild.seconds.toFixed(2)),
        unit: 's',
        ratio: { value: Number((privateBuild.seconds / PRIVATE / (national.seconds / NATIONAL)).toFixed(2)), of: 'the national build per entry, same run' },
        note: 'generator included; paid once per version per process (cached)',
      },
    ],
    notes: [
      `blocked with the private list: ${blockedBoth.toLocaleString('en')} of ${inputs.length.toLocaleString('en')} (national only: ${blockedNational.toLocaleString('en')})`,
    ],
  };
};

export default bench;

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await bench(), null, 2));
}
