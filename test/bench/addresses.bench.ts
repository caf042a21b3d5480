/**
 * The address register: import of a 3,000,000-unit DAR extract into the embedded
 * store (time, peak RSS), building the in-memory register from the store, resolution throughput
 * on one core, and matching throughput with the register loaded (2,000,000 list entries, the goal
 * of the domain bench). Every figure is also given as a ratio to something measured in the same
 * run: the import to generating the same DAR JSON alone, the build to reading the store alone,
 * resolution to parse-only resolution, matching with the register to matching without it and
 * to the code the matching goal was set on (matching-reference.ts).
 * Run alone: `npm exec -- node --expose-gc test/bench/addresses.bench.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { darSourcesOf } from '../../services/registers/addresses/dar-generate.ts';
import { importAddressRegister } from '../../services/registers/addresses/import.ts';
import {
  buildListIndex, checkPerson, createAddressRegisterBuilder, resolveAddressText, resolveWithRegister,
  type AddressRegister,
} from '../../services/domain/index.ts';
import type { CheckOptions, PersonInput } from '../../services/domain/types.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedAddressStore } from '../../services/platform/store/embedded/addresses.ts';
import { createRng, generateListEntries, generatePeople, variantOf } from '../../services/synthetic/index.ts';
import { generateRegisterAddresses } from '../../services/synthetic/register.ts';
import {
  MATCHING_GOAL_RATE, MATCHING_GOAL_RATIO, REFERENCE_COMMIT, REFERENCE_REPORTED_RATE, interleavedRates, loadReferenceMatcher,
} from './matching-reference.ts';
import { ratioMetric } from './reference.ts';
import type { Bench, BenchSection } from './types.ts';

/** BENCH_ADDRESS_UNITS / BENCH_LIST_ENTRIES scale a run down for a quick look; the report is made at full size. */
const UNITS = Number(process.env.BENCH_ADDRESS_UNITS ?? 3_000_000);
const LIST_ENTRIES = Number(process.env.BENCH_LIST_ENTRIES ?? 2_000_000);
const INPUTS = 100_000;
const MIN_SECONDS = 4;
const SEED = 'bench-addresses';
const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };
const MB = 1024 * 1024;

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** Median items per second over whole passes of at least MIN_SECONDS in all. */
function rate<T>(items: T[], work: (item: T) => unknown): number {
  const rates: number[] = [];
  const started = performance.now();
  while (performance.now() - started < MIN_SECONDS * 1000 || rates.length < 3) {
    const pass = performance.now();
    for (const item of items) work(item);
    rates.push(items.length / ((performance.now() - pass) / 1000));
  }
  return median(rates);
}

/** Texts people write for register addresses: the register's form, unit spellings, slips, missing ones. */
function resolutionInputs(count: number): string[] {
  const rng = createRng(`${SEED}:texts`);
  const out: string[] = [];
  let i = 0;
  for (const a of generateRegisterAddresses(UNITS)) {
    if (i++ % Math.floor(UNITS / count) !== 0) continue;
    const unit = a.floor === null ? '' : rng.pick([`, ${a.floor}. ${a.door}`, ` ${a.floor}${a.door}`, `, ${a.floor} sal ${a.door}`]);
    let street = rng.chance(0.5) && a.addressingName ? a.addressingName : a.street;
    if (rng.chance(0.1)) street = street.slice(0, 3) + street.slice(4); // a slip: corrected or unresolved
    const number = rng.chance(0.05) ? String(Number.parseInt(a.houseNumber, 10) + 500) : a.houseNumber; // not found
    out.push(`${street} ${number}${unit}, ${a.postalCode} ${a.postalName}`);
    if (out.length === count) break;
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const bench: Bench = async (): Promise<BenchSection> => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-addresses-'));
  try {
    const sources = darSourcesOf(() => generateRegisterAddresses(UNITS));

    // 1. Generating the DAR JSON alone (the reference for the import).
    let started = performance.now();
    let bytes = 0;
    for (const source of Object.values(sources)) for await (const chunk of source()) bytes += chunk.length;
    const generateSeconds = (performance.now() - started) / 1000;
    collectGarbage();
    const rssBefore = process.memoryUsage().rss / MB;

    // 2. The import: generate + parse + join + store, as `addresses import` does it.
    const db = openEmbeddedDatabase(join(dir, 'bench.sqlite'));
    const store = createEmbeddedAddressStore(db);
    started = performance.now();
    const { version, stats } = await importAddressRegister(store, sources, { publishedOn: '2026-11-01' });
    const importSeconds = (performance.now() - started) / 1000;
    const importPeakRss = peakRssMb();
    if (version.address_count !== UNITS) throw new Error(`imported ${version.address_count} of ${UNITS}`);
    collectGarbage();

    // 3. Reading the version back alone, then reading and building the register (a service's boot).
    started = performance.now();
    let read = 0;
    for await (const chunk of store.readAddresses(version.id)) read += chunk.length;
    const readSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const builder = createAddressRegisterBuilder();
    for await (const chunk of store.readAddresses(version.id)) for (const a of chunk) builder.add(a);
    const register: AddressRegister = builder.build();
    const buildSeconds = (performance.now() - started) / 1000;
    db.close();
    collectGarbage();
    const rssWithRegister = process.memoryUsage().rss / MB;
    if (read !== UNITS || register.unitCount !== UNITS) throw new Error('register incomplete');

    // 4. Resolution on this one thread, against parse-only resolution of the same texts.
    const texts = resolutionInputs(INPUTS);
    const confidence = { exact: 0, corrected: 0, unresolved: 0 };
    for (const text of texts) confidence[resolveWithRegister(register, text).address.confidence]++;
    const resolveRate = rate(texts, (text) => resolveWithRegister(register, text));
    const parseRate = rate(texts, (text) => resolveAddressText(text));

    // 5. Matching with the register loaded, against the same list without it.
    const members: PersonInput[] = [];
    const rng = createRng(`${SEED}:variants`);
    let n = 0;
    const entries = function* () {
      for (const entry of generateListEntries(LIST_ENTRIES, SEED)) {
        if (n++ % (LIST_ENTRIES / INPUTS) === 0) members.push(variantOf(entry, rng));
        yield entry;
      }
    };
    started = performance.now();
    const withRegister = buildListIndex(entries(), register);
    const indexSeconds = (performance.now() - started) / 1000;
    const inputs = [...members, ...generatePeople(INPUTS, SEED)];
    started = performance.now();
    const plain = buildListIndex(generateListEntries(LIST_ENTRIES, SEED));
    const plainIndexSeconds = (performance.now() - started) / 1000;
    // The code the matching goal was set on (matching-reference.ts), on the same list and inputs.
    const reference = await loadReferenceMatcher();
    const referenceIndex = reference.matcher.buildListIndex(generateListEntries(LIST_ENTRIES, SEED));
    const { wall, cpu } = interleavedRates([
      { check: (person) => checkPerson(withRegister, person, OPTIONS) },
      { check: (person) => checkPerson(plain, person, OPTIONS) },
      { check: (person) => reference.matcher.checkPerson(referenceIndex, person, OPTIONS) },
    ], inputs, MIN_SECONDS);
    reference.dispose();
    const [registerRate, plainRate, referenceRate] = wall;
    const [registerCpuRate, plainCpuRate, referenceCpuRate] = cpu;
    const peakAll = peakRssMb();
    const referenceName = `the reference code (${REFERENCE_COMMIT.slice(0, 7)}) without the register`;

    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    return {
      title: `Address register: DAR import, resolution, matching with the register (${UNITS.toLocaleString('en')} units)`,
      metrics: [
        {
          name: `DAR import, ${UNITS.toLocaleString('en')} unit addresses`, value: round(importSeconds), unit: 's',
          note: `${ratio(importSeconds, generateSeconds)}× generating the same ${Math.round(bytes / MB)} MB of DAR JSON alone (${round(generateSeconds)} s); into the embedded store; ${stats.addresses} joined, history rows skipped`,
        },
        {
          name: 'peak RSS during the import', value: Math.round(importPeakRss), unit: 'MB',
          note: `${ratio(importPeakRss, rssBefore)}× the process before it (${Math.round(rssBefore)} MB): house numbers, streets and postal codes held, unit addresses streamed`,
        },
        {
          name: 'register build from the store', value: round(buildSeconds), unit: 's',
          note: `${ratio(buildSeconds, readSeconds)}× reading the version alone (${round(readSeconds)} s); ${register.accessCount} access addresses`,
        },
        {
          name: 'RSS with the register built, after GC', value: Math.round(rssWithRegister), unit: 'MB',
          note: `${ratio(rssWithRegister, rssBefore)}× the process before the import`,
        },
        {
          name: 'resolution throughput, one thread', value: Math.round(resolveRate), unit: 'addresses/s',
          note: `${ratio(resolveRate, parseRate)}× parse-only resolution of the same texts (${Math.round(parseRate)}/s); ${INPUTS} texts: exact ${confidence.exact}, corrected ${confidence.corrected}, unresolved ${confidence.unresolved}`,
        },
        {
          ...ratioMetric(
            'matching with the register, as a multiple of the code the matching goal was set on',
            registerRate, { name: referenceName, value: referenceRate, unit: 'rows/s' }, { op: '>=', value: MATCHING_GOAL_RATIO },
          ),
          note: `the matching bench's goal (${MATCHING_GOAL_RATE.toLocaleString('en')} rows/s where ${REFERENCE_COMMIT.slice(0, 7)} made ${REFERENCE_REPORTED_RATE.toLocaleString('en')}) as a same-run ratio (matching-reference.ts): ${Math.round(registerRate)} / ${Math.round(referenceRate)} rows/s, same list and inputs, interleaved chunks; per CPU second ${ratio(registerCpuRate, referenceCpuRate)}×`,
        },
        {
          name: 'matching throughput with the register, one thread', value: Math.round(registerRate), unit: 'rows/s',
          note: `${inputs.length} inputs, half list members as customer variants; the goal is the ratio above`,
        },
        ratioMetric('matching with the register, as a multiple of the same list without it', registerRate, {
          name: 'the list without the register', value: plainRate, unit: 'rows/s',
        }),
        ratioMetric('matching without the register, as a multiple of the reference code', plainRate, {
          name: referenceName, value: referenceRate, unit: 'rows/s',
        }),
        {
          name: 'matching with the register per CPU second', value: Math.round(registerCpuRate), unit: 'rows/s',
          note: `${ratio(registerCpuRate, plainCpuRate)}× the same list without the register (${Math.round(plainCpuRate)} rows per CPU second), same chunks: the process's CPU time, less moved by other work on the machine than the wall clock`,
        },
        {
          name: `list index build with the register, ${LIST_ENTRIES.toLocaleString('en')} entries`, value: round(indexSeconds), unit: 's',
          note: `${ratio(indexSeconds, plainIndexSeconds)}× without the register (${round(plainIndexSeconds)} s): every entry is resolved once`,
        },
        { name: 'peak RSS, register and both indexes', value: Math.round(peakAll), unit: 'MB' },
      ],
      notes: [
        'Unit addresses from services/synthetic/register.ts (the synthetic country: ~15 units per access address, the real register has ~1.5), written as DAR JSON by services/registers/addresses/dar-generate.ts.',
        'The machine is shared with other work: rates are lower bounds when the load average is high.',
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
