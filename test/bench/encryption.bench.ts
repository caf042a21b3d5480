/**
 * What sealing rows and results with the job's data key costs (crypto-shredding), two
 * ways, each with and without sealing in the same run:
 *
 * 1. The 1,000,000-row check job, submit → done, on the embedded deployment as npm start runs it
 *    (API on the main thread, matcher and projection in worker threads), once with sealing (as
 *    shipped) and once without (`sealChunks: false`, a bench-only override), each on a fresh
 *    deployment; ratio sealed / unsealed.
 * 2. The codec alone, the part that runs in every deployment's intake, matchers and projection:
 *    1,000,000 rows as RowsChunks and their ResultsChunks encoded and decoded through the pipeline
 *    events, sealed and unsealed in alternating passes (so both see the same load); ratio sealed /
 *    unsealed, in wall and in CPU seconds. A pass goes CODEC_REPEATS times over the chunks of
 *    CODEC_ROWS rows, not once over 1,000,000 rows held in memory: a real process holds a chunk
 *    at a time, and a heap of a million decoded rows made every large sealed buffer trigger a
 *    full collection of that heap (sealed 5.7x unsealed at 1,000,000 held rows, about 1.3x at
 *    100,000; AES-GCM itself is ~1 % of the CPU profile). (The distributed deployment's processes cannot be told to
 *    skip sealing, on purpose; its per-row cost is this codec figure.)
 *
 * ENCRYPTION_BENCH_ROWS: a smaller job while developing. Run alone:
 * `npm exec -- node test/bench/encryption.bench.ts`.
 */
import { createPipelineEvents, toAvroPerson, type PipelineEvent, type ResultsChunkEvent, type RowsChunkEvent } from '../../services/pipeline/events.ts';
import { checkPerson, buildListIndex } from '../../services/domain/index.ts';
import { createJobDataKeys } from '../../services/platform/keys/data-keys.ts';
import { createStaticSchemaRegistry } from '../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedDataKeyStore } from '../../services/platform/store/embedded/data-keys.ts';
import { createEmbeddedKeyRing } from '../../services/platform/store/embedded/keyring.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { startEmbedded } from '../support/deployments.ts';
import { relativeTo, timed, type Reference } from './reference.ts';
import type { Bench, BenchMetric, BenchSection } from './types.ts';

const ROWS = Number(process.env.ENCRYPTION_BENCH_ROWS ?? 1_000_000);
const CHUNK_ROWS = 2000;
const LIST_ENTRIES = 200_000;
const SEED = 11;
const CODEC_ROWS = Math.min(ROWS, 100_000);
const CODEC_REPEATS = Math.round(ROWS / CODEC_ROWS);
const CODEC_PASSES = 4;

function peopleOf(rows: number) {
  const people = [];
  for (let batch = 0; people.length < rows; batch++) people.push(...generatePeople(Math.min(100_000, rows - people.length), `${SEED}-${batch}`));
  return people.map((p, i) => ({ ...p, id: `r${i}` }));
}

async function call(baseUrl: string, key: string, method: string, path: string, body?: Buffer): Promise<any> {
  const response = await fetch(new URL(path, baseUrl), {
    method, headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body,
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

/** Submit → done of the job on a fresh embedded deployment; seconds. */
async function jobSeconds(body: Buffer, listEntries: ReturnType<typeof generateListEntries> extends Iterable<infer T> ? T[] : never, seal: boolean): Promise<number> {
  const d = await startEmbedded(null, {
    listEntries, jobChunkRows: CHUNK_ROWS, workers: true, env: { PROJECTION_COUNT_INTERVAL_MS: '1000' },
    overrides: seal ? {} : { sealChunks: false },
  });
  try {
    const warm = await call(d.baseUrl, d.liveKey, 'POST', '/v2/check-jobs', Buffer.from(JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] })));
    await waitDone(d.baseUrl, d.liveKey, warm.json.id);
    const started = performance.now();
    const created = await call(d.baseUrl, d.liveKey, 'POST', '/v2/check-jobs', body);
    if (created.status !== 202) throw new Error(`POST answered ${created.status}`);
    const job = await waitDone(d.baseUrl, d.liveKey, created.json.id);
    if (job.status !== 'done' || job.processed_count !== ROWS) throw new Error(`job ended ${job.status} with ${job.processed_count} rows`);
    return (performance.now() - started) / 1000;
  } finally {
    await d.stop();
  }
}

async function waitDone(baseUrl: string, key: string, id: string): Promise<any> {
  const end = Date.now() + 900_000;
  for (;;) {
    const { json } = await call(baseUrl, key, 'GET', `/v2/check-jobs/${id}`);
    if (json.status === 'done' || json.status === 'failed') return json;
    if (Date.now() > end) throw new Error(`job not done: ${json.status} ${json.processed_count}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The job's rows and results as pipeline events (500 chunks of each for 1,000,000 rows). */
function chunksOf(people: ReturnType<typeof peopleOf>, listEntries: ReturnType<typeof generateListEntries> extends Iterable<infer T> ? T[] : never): PipelineEvent[] {
  const index = buildListIndex(listEntries.slice(0, 20_000));
  const jobId = '0b7c2a4e-1f3d-4c5b-8a6e-9d0f1e2a3b4c';
  const events: PipelineEvent[] = [];
  for (let chunk = 0; chunk * CHUNK_ROWS < people.length; chunk++) {
    const slice = people.slice(chunk * CHUNK_ROWS, (chunk + 1) * CHUNK_ROWS);
    const rows: RowsChunkEvent = {
      job_id: jobId, chunk, org_id: 'org', mode: 'live', list_version_id: '00000000-0000-4000-8000-000000000001',
      policy: 'standard', stop_level: 1, locale: 'da', private_list_version_id: null,
      check_people: true, check_companies: false, check_phones: false, company_register_version_id: null, phone_directory_version_id: null, address_register_version_id: null,
      rows: slice.map((p, i) => ({ row: chunk * CHUNK_ROWS + i, person: toAvroPerson(p), cells: null })),
    };
    const results: ResultsChunkEvent = {
      job_id: jobId, list_version_id: rows.list_version_id as string, chunk,
      results: slice.map((p, i) => ({ row: chunk * CHUNK_ROWS + i, cells: null, result: checkPerson(index, p, { policy: 'standard', stopLevel: 1, locale: 'da' }) })),
    };
    events.push({ type: 'RowsChunk', value: rows }, { type: 'ResultsChunk', value: results });
  }
  return events;
}

const bench: Bench = async (): Promise<BenchSection> => {
  const listEntries = [...generateListEntries(LIST_ENTRIES, SEED)];
  const people = peopleOf(ROWS);
  const metrics: BenchMetric[] = [];
  const label = `${ROWS.toLocaleString('en')}-row`;

  // 2. The codec, alternating passes.
  const events = chunksOf(people.slice(0, CODEC_ROWS), listEntries);
  const db = openEmbeddedDatabase(':memory:');
  const registry = createStaticSchemaRegistry();
  const log = { publish: async () => {} };
  const sealed = createPipelineEvents({ log, registry, dataKeys: createJobDataKeys({ store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db) }) });
  const plain = createPipelineEvents({ log, registry });
  const roundTrip = async (codec: typeof plain, some = events, repeats = CODEC_REPEATS) => {
    for (let r = 0; r < repeats; r++) for (const event of some) await codec.decode((await codec.encode(event)).message.value);
  };
  const pass = async (codec: typeof plain) => {
    const cpuBefore = process.cpuUsage();
    const { ms } = await timed(() => roundTrip(codec));
    const cpu = process.cpuUsage(cpuBefore);
    return { wall: ms / 1000, cpu: (cpu.user + cpu.system) / 1e6 };
  };
  const passes: Record<'sealed' | 'plain', { wall: number; cpu: number }[]> = { sealed: [], plain: [] };
  await roundTrip(sealed, events.slice(0, 100), 1); // warm-up: JIT, the job's key made once
  await roundTrip(plain, events.slice(0, 100), 1);
  for (let i = 0; i < CODEC_PASSES; i++) {
    passes.plain.push(await pass(plain));
    passes.sealed.push(await pass(sealed));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const of = (variant: 'sealed' | 'plain', measure: 'wall' | 'cpu') => median(passes[variant].map((p) => p[measure]));
  const plainWall: Reference = { name: 'the same without sealing', value: of('plain', 'wall'), unit: 's' };
  const plainCpu: Reference = { name: 'the same without sealing, CPU', value: of('plain', 'cpu'), unit: 's' };
  metrics.push(
    { name: `codec: ${label} rows + results encoded and decoded, unsealed (median of ${CODEC_PASSES})`, value: round(of('plain', 'wall')), unit: 's' },
    relativeTo({ name: `codec: ${label} rows + results encoded and decoded, sealed (median of ${CODEC_PASSES})`, value: round(of('sealed', 'wall')), unit: 's' }, plainWall),
    relativeTo({ name: `codec: CPU seconds of the same, sealed`, value: round(of('sealed', 'cpu')), unit: 's' }, plainCpu),
    relativeTo({ name: 'codec: sealing\'s own CPU cost per 1,000,000 rows (sealed − unsealed)', value: round((of('sealed', 'cpu') - of('plain', 'cpu')) * 1_000_000 / ROWS), unit: 's' }, plainCpu),
  );

  // 1. The whole job, unsealed then sealed.
  const body = Buffer.from(JSON.stringify({ people }));
  const unsealedS = await jobSeconds(body, listEntries, false);
  const sealedS = await jobSeconds(body, listEntries, true);
  const unsealedJob: Reference = { name: 'the same job unsealed', value: unsealedS, unit: 's' };
  metrics.push(
    { name: `embedded: ${label} job, submit → done, unsealed`, value: round(unsealedS), unit: 's' },
    relativeTo({ name: `embedded: ${label} job, submit → done, sealed (as shipped)`, value: round(sealedS), unit: 's' }, unsealedJob),
  );
  return {
    title: 'Encryption: sealing rows and results with per-job data keys',
    metrics,
    notes: [
      `${ROWS.toLocaleString('en')} synthetic people, ${CHUNK_ROWS} rows per chunk; AES-256-GCM from node:crypto over the Avro binary of each chunk's rows/results`,
      `codec: encode + decode of the RowsChunks and ResultsChunks of ${CODEC_ROWS.toLocaleString('en')} rows, ${CODEC_REPEATS} times per pass, through the pipeline events (static registry), sealed and unsealed passes alternating (${CODEC_PASSES} each, after a warm-up on 100 chunks); CPU seconds from process.cpuUsage`,
      'job: embedded deployment as npm start runs it, each variant on a fresh deployment, unsealed first; the whole-job ratio carries the machine\'s load drift between the two runs (the codec ratio does not)',
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
