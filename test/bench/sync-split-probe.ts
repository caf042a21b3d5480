/**
 * Would one large synchronous check answer sooner spread over two threads? (docs/performance.md
 * "Measurements", the split of one synchronous check.) The bench's 1,000 people and 200,000-entry
 * list (http.bench.ts), checked (a) all on this thread, JSON.stringify of the answer, and (b) the
 * first `SPLIT_AT` here, the rest on a worker thread holding the same index (sync-split-worker.ts),
 * the two halves' JSON joined in input order. Same bytes (checked every round). Two passes, each
 * with 1 and 4 requests in flight, (a) and (b) one after the other: latency (from when a request
 * could start, so with 4 in flight it includes waiting for the others), CPU of this thread and of
 * the worker per request, people/s, and the resident memory the worker's index adds.
 * `node test/bench/sync-split-probe.ts`; SPLIT_PROBE_ROUNDS (default 200), SPLIT_PROBE_AT (default 500: people
 * checked here), SPLIT_PROBE_ENTRIES (default 200,000: list entries).
 */
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { buildListIndex, checkPerson } from '../../services/domain/index.ts';
import type { CheckOptions, PersonInput } from '../../services/domain/types.ts';
import { generateListEntries } from '../../services/synthetic/index.ts';
import { batchOfPeople } from './http.bench.ts';
import { percentile } from './http-load.ts';

const ENTRIES = Number(process.env.SPLIT_PROBE_ENTRIES ?? 200_000);
const SEED = 7;
const ROUNDS = Number(process.env.SPLIT_PROBE_ROUNDS ?? 200);
const SPLIT_AT = Number(process.env.SPLIT_PROBE_AT ?? 500);
if (!(Number.isInteger(SPLIT_AT) && SPLIT_AT > 0 && SPLIT_AT < 1000)) throw new Error('SPLIT_PROBE_AT must be a whole number from 1 to 999');
const options: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };
const head = '{"list_version":{"id":"x","source":"cpr","published_on":"2026-10-01"},"results":';

const rssBefore = process.memoryUsage().rss;
const index = buildListIndex(generateListEntries(ENTRIES, SEED));
const rssOneIndex = process.memoryUsage().rss;
const worker = new Worker(new URL('./sync-split-worker.ts', import.meta.url), { workerData: { entries: ENTRIES, seed: SEED } });
const waiting = new Map<number, (answer: { json: string; cpuMs: number }) => void>();
await new Promise<void>((resolve, reject) => {
  worker.once('error', reject);
  worker.on('message', (m: { ready?: true; id: number; json: string; cpuMs: number }) => {
    if (m.ready) return resolve();
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
});
const rssTwoIndexes = process.memoryUsage().rss;
const people = batchOfPeople();
let nextId = 0;
let workerCpuMs = 0;

function whole(persons: PersonInput[]): string {
  return `${head}${JSON.stringify({ results: persons.map((p) => checkPerson(index, p, options)) }).slice(11, -1)}}`;
}

async function split(persons: PersonInput[]): Promise<string> {
  const id = nextId++;
  const theirs = new Promise<{ json: string; cpuMs: number }>((resolve) => waiting.set(id, resolve));
  worker.postMessage({ id, people: persons.slice(SPLIT_AT), options });
  const mine = JSON.stringify(persons.slice(0, SPLIT_AT).map((p) => checkPerson(index, p, options)));
  const other = await theirs;
  workerCpuMs += other.cpuMs;
  return `${head}${mine.slice(0, -1)},${other.json.slice(1)}}`;
}

async function run(kind: 'whole' | 'split', inFlight: number, rounds: number, expected: string) {
  const latencies: number[] = [];
  const cpu = process.threadCpuUsage();
  const workerBefore = workerCpuMs;
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    for (let i = 0; i < rounds / inFlight; i++) {
      // Sent now; with others in flight it waits for its turn, as an API request does.
      const t = performance.now();
      await new Promise((resolve) => setImmediate(resolve));
      const json = kind === 'whole' ? whole(people) : await split(people);
      latencies.push(performance.now() - t);
      if (json !== expected) throw new Error(`${kind}: not the same bytes`);
    }
  }));
  const wall = performance.now() - started;
  const used = process.threadCpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), peoplePerS: Math.round((latencies.length * people.length) / (wall / 1000)),
    mainCpuMs: (used.user + used.system) / 1000 / latencies.length, workerCpuMs: (workerCpuMs - workerBefore) / latencies.length,
  };
}

const expected = whole(people);
const round2 = (n: number) => Math.round(n * 100) / 100;
console.log(`load ${loadavg()[0].toFixed(2)}; RSS ${Math.round(rssBefore / 1e6)} MB, one index ${Math.round(rssOneIndex / 1e6)} MB, with the worker's ${Math.round(rssTwoIndexes / 1e6)} MB`);
await run('whole', 1, 40, expected);
await run('split', 1, 40, expected);
for (let pass = 0; pass < 2; pass++) {
  for (const inFlight of [1, 4]) {
    for (const kind of ['whole', 'split'] as const) {
      const r = await run(kind, inFlight, ROUNDS, expected);
      console.log(JSON.stringify({ pass, kind, inFlight, p50: round2(r.p50), p99: round2(r.p99), peoplePerS: r.peoplePerS, mainCpuMs: round2(r.mainCpuMs), workerCpuMs: round2(r.workerCpuMs) }));
    }
  }
}
console.log(`load ${loadavg()[0].toFixed(2)}`);
await worker.terminate();
