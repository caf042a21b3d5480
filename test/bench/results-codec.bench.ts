/**
 * The results codec on checks.results (docs/architecture.md "Slim results"): what writing and
 * reading ResultsChunks costs per 1,000,000 results in the slim form of ResultsChunk v6, against
 * the full form every writer used up to v5, in the same run on the same results.
 *
 * Both go through the pipeline events as shipped (static registry, sealed with the job's data key);
 * the full form is the `slimResults: false` writer (results in `sealed_results`, as v5 wrote them,
 * the same bytes plus two null fields). Passes alternate, full first, 2 of each after a warm-up,
 * so both see the same load. The answers are checked, not only timed: the SHA-256 of every decoded
 * result (canonical JSON, row order) must be the same for both forms.
 *
 * RESULTS_CODEC_BENCH_ROWS: fewer results while developing. Run alone:
 * `npm exec -- node test/bench/results-codec.bench.ts`, or `npm run bench -- results-codec`.
 */
import { createHash } from 'node:crypto';
import { buildListIndex, checkPerson } from '../../services/domain/index.ts';
import { createPipelineEvents, type PipelineEvent, type PipelineEvents, type ResultsChunkEvent, type RowResult } from '../../services/pipeline/events.ts';
import { createJobDataKeys } from '../../services/platform/keys/data-keys.ts';
import { createStaticSchemaRegistry } from '../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedDataKeyStore } from '../../services/platform/store/embedded/data-keys.ts';
import { createEmbeddedKeyRing } from '../../services/platform/store/embedded/keyring.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { ratioMetric, relativeTo, timed, type Reference } from './reference.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';

const ROWS = Number(process.env.RESULTS_CODEC_BENCH_ROWS ?? 1_000_000);
const CHUNK_ROWS = 2000;
/** Distinct results computed; the chunks cycle through them (a million result objects would be the heap). */
const DISTINCT_ROWS = Math.min(ROWS, 200_000);
const LIST_ENTRIES = 200_000;
const MEMBER_SHARE = 0.2;
const SEED = 11;
const JOB_ID = '0b7c2a4e-1f3d-4c5b-8a6e-9d0f1e2a3b4c';
/** The goal: reading and writing slim results at most this multiple of the full form's cost. */
const GOAL = 0.5;

/** Results of DISTINCT_ROWS people, a fifth of them list members, as the matcher makes them. */
function distinctResults(): RowResult[] {
  const entries = [...generateListEntries(LIST_ENTRIES, SEED)];
  const index = buildListIndex(entries);
  const members = Math.round(DISTINCT_ROWS * MEMBER_SHARE);
  const people: Array<Record<string, string>> = entries.slice(0, members).map(({ previous: _p, ...person }, i) => ({ ...person, id: `r${i}` }));
  for (let batch = 0; people.length < DISTINCT_ROWS; batch++) {
    for (const p of generatePeople(Math.min(100_000, DISTINCT_ROWS - people.length), `${SEED}-${batch}`)) people.push({ ...p, id: `r${people.length}` });
  }
  return people.map((person, row) => ({ row, cells: null, result: checkPerson(index, person, { policy: 'standard', stopLevel: 1, locale: 'da' }) }));
}

function chunksOf(results: RowResult[]): PipelineEvent[] {
  const events: PipelineEvent[] = [];
  const distinctChunks = Math.ceil(results.length / CHUNK_ROWS);
  for (let chunk = 0; chunk * CHUNK_ROWS < ROWS; chunk++) {
    const from = (chunk % distinctChunks) * CHUNK_ROWS;
    const value: ResultsChunkEvent = {
      job_id: JOB_ID, list_version_id: '00000000-0000-4000-8000-000000000001', chunk,
      results: results.slice(from, from + Math.min(CHUNK_ROWS, ROWS - chunk * CHUNK_ROWS)),
    };
    events.push({ type: 'ResultsChunk', value });
  }
  return events;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface Pass {
  encodeMs: number;
  decodeMs: number;
  bytes: number;
}

async function pass(codec: PipelineEvents, events: PipelineEvent[]): Promise<Pass> {
  const buffers: Buffer[] = new Array(events.length);
  const { ms: encodeMs } = await timed(async () => {
    for (let i = 0; i < events.length; i++) buffers[i] = (await codec.encode(events[i])).message.value;
  });
  let decoded = 0;
  const { ms: decodeMs } = await timed(async () => {
    for (const buffer of buffers) decoded += ((await codec.decode(buffer)).value as ResultsChunkEvent).results.length;
  });
  const expected = events.reduce((n, e) => n + (e.value as ResultsChunkEvent).results.length, 0);
  if (decoded !== expected) throw new Error(`decoded ${decoded} results of ${expected}`);
  return { encodeMs, decodeMs, bytes: buffers.reduce((n, b) => n + b.length, 0) };
}

/** SHA-256 of every decoded result in row order, canonical JSON one line each. */
async function answersSha256(codec: PipelineEvents, events: PipelineEvent[]): Promise<string> {
  const hash = createHash('sha256');
  for (const event of events) {
    const { value } = await codec.decode((await codec.encode(event)).message.value);
    for (const r of (value as ResultsChunkEvent).results) hash.update(`${r.row}:${canonicalJson(r)}\n`);
  }
  return hash.digest('hex');
}

const bench: Bench = async (): Promise<BenchSection> => {
  const events = chunksOf(distinctResults());
  const db = openEmbeddedDatabase(':memory:');
  const dataKeys = createJobDataKeys({ store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db) });
  const registry = createStaticSchemaRegistry();
  const log = { publish: async () => {} };
  const slim = createPipelineEvents({ log, registry, dataKeys });
  const full = createPipelineEvents({ log, registry, dataKeys, slimResults: false });

  // Warm-up: JIT, the job's key made once.
  await pass(full, events.slice(0, 50));
  await pass(slim, events.slice(0, 50));
  const passes: Record<'full' | 'slim', Pass[]> = { full: [], slim: [] };
  for (let i = 0; i < 2; i++) {
    passes.full.push(await pass(full, events));
    passes.slim.push(await pass(slim, events));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const per1M = 1_000_000 / ROWS;
  const figures = (kind: 'full' | 'slim') => {
    const encode = mean(passes[kind].map((p) => p.encodeMs)) / 1000 * per1M;
    const decode = mean(passes[kind].map((p) => p.decodeMs)) / 1000 * per1M;
    return { encode, decode, both: encode + decode, bytesPerResult: passes[kind][0].bytes / ROWS };
  };
  const f = figures('full');
  const s = figures('slim');
  const [fullSha, slimSha] = [await answersSha256(full, events), await answersSha256(slim, events)];

  const fullBoth: Reference = { name: 'the full form (v5) in the same run', value: f.both, unit: 's' };
  const fullEncode: Reference = { name: 'the full form\'s encode', value: f.encode, unit: 's' };
  const fullDecode: Reference = { name: 'the full form\'s decode', value: f.decode, unit: 's' };
  const fullBytes: Reference = { name: 'the full form', value: f.bytesPerResult, unit: 'bytes/result' };
  const metrics: BenchMetric[] = [
    { name: 'full form (v5): encode + decode per 1,000,000 results, sealed (mean of 2)', value: round(f.both), unit: 's', note: `encode ${round(f.encode)} s, decode ${round(f.decode)} s` },
    ratioMetric('slim form (v6): encode + decode per 1,000,000 results, sealed', s.both, fullBoth, { op: '<=', value: GOAL }),
    relativeTo({ name: 'slim form: encode per 1,000,000 results', value: round(s.encode), unit: 's' }, fullEncode),
    relativeTo({ name: 'slim form: decode per 1,000,000 results', value: round(s.decode), unit: 's' }, fullDecode),
    { name: 'full form: bytes per result on the log', value: Math.round(f.bytesPerResult), unit: 'bytes/result' },
    relativeTo({ name: 'slim form: bytes per result on the log', value: Math.round(s.bytesPerResult), unit: 'bytes/result' }, fullBytes),
    { name: 'decoded results differing between the forms (SHA-256)', value: fullSha === slimSha ? 0 : 1, unit: 'count', goal: { op: '<=', value: 0 } },
  ];
  return {
    title: 'Results codec: slim ResultsChunk v6 against the full form of v5',
    metrics,
    notes: [
      `${ROWS.toLocaleString('en')} results in ${events.length} ResultsChunks of ${CHUNK_ROWS} (${DISTINCT_ROWS.toLocaleString('en')} distinct results of checkPerson against ${LIST_ENTRIES.toLocaleString('en')} synthetic list entries, ${MEMBER_SHARE * 100}% members, cycled), sealed with the job's data key, static registry; passes alternate full, slim (2 each)`,
      `results SHA-256 (canonical JSON per result, row order): full ${fullSha}, slim ${slimSha}${fullSha === slimSha ? ' (the same)' : ' (DIFFERENT)'}`,
      `absolute: full encode ${round(f.encode)} s + decode ${round(f.decode)} s, slim encode ${round(s.encode)} s + decode ${round(s.decode)} s per 1,000,000 results`,
    ],
  };
};

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
