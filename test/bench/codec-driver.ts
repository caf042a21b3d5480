/**
 * The chunk codec alone (docs/architecture.md "The compiled codec", "Performance"): what
 * writing and reading the pipeline's hot records costs per row, on the bench job's own data
 * (2,000-row chunks of the synthetic people, a fifth of them list members, results as the matcher
 * makes them; every CODEC_CELLS-th chunk with file cells, as a CSV upload's rows carry them).
 *
 * Two parts, each pass of each side interleaved with the other so both see the same load:
 * 1. `fields`: the sealed fields' Avro (RowsChunk.rows, ResultsChunk v6 SlimResults) written and
 *    read by avsc (the generic path) and by the compiled codec (services/platform/schema-registry/compiled-codec.ts),
 *    and AES-256-GCM of the same bytes; ns per row, and whether the bytes are identical.
 * 2. `events`: the pipeline events as shipped (static registry, sealed with the job's data key):
 *    encode + decode of every chunk, ns per row, and the SHA-256 of every decoded chunk as JSON,
 *    so two checkouts can be compared (run this file from each, alternately).
 *
 * Run: `node test/bench/codec-driver.ts [fields|events]` (default both). CODEC_CHUNKS: chunks of
 * each kind (default 500, the 1,000,000-row job's); CODEC_PASSES (default 5).
 */
import { createHash } from 'node:crypto';
import type avro from 'avsc';
import { buildListIndex, checkPerson } from '../../services/domain/index.ts';
import { createPipelineEvents, toAvroPerson, type PipelineEvent, type ResultsChunkEvent, type RowsChunkEvent } from '../../services/pipeline/events.ts';
import { toSlim } from '../../services/pipeline/slim-results.ts';
import { createJobDataKeys } from '../../services/platform/keys/data-keys.ts';
import { open, seal } from '../../services/platform/keys/sealed-payload.ts';
import { loadSchemaCatalog } from '../../services/platform/schema-registry/catalog.ts';
import { createStaticSchemaRegistry } from '../../services/platform/schema-registry/static.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedDataKeyStore } from '../../services/platform/store/embedded/data-keys.ts';
import { createEmbeddedKeyRing } from '../../services/platform/store/embedded/keyring.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';

const CHUNKS = Number(process.env.CODEC_CHUNKS ?? 500);
const PASSES = Number(process.env.CODEC_PASSES ?? 5);
const CHUNK_ROWS = 2000;
/** Distinct chunks built; the passes cycle through them (500 chunks of decoded rows would be the heap). */
const DISTINCT = Math.min(CHUNKS, 50);
const CELLS_EVERY = 5;
const SEED = 11;
const JOB_ID = '0b7c2a4e-1f3d-4c5b-8a6e-9d0f1e2a3b4c';
const what = process.argv[2] ?? 'both';

function chunks(): { rows: RowsChunkEvent[]; results: ResultsChunkEvent[] } {
  const entries = [...generateListEntries(200_000, SEED)];
  const index = buildListIndex(entries);
  const people: Array<Record<string, string>> = [];
  const members = Math.round(DISTINCT * CHUNK_ROWS * 0.2);
  for (const { previous: _p, ...person } of entries.slice(0, members)) people.push(person);
  for (const p of generatePeople(DISTINCT * CHUNK_ROWS - members, `${SEED}-codec`)) people.push(p as Record<string, string>);
  // Members spread over the chunks, as a job's rows are.
  for (let i = people.length - 1; i > 0; i--) {
    const j = (i * 7919) % (i + 1);
    [people[i], people[j]] = [people[j], people[i]];
  }
  const rows: RowsChunkEvent[] = [];
  const results: ResultsChunkEvent[] = [];
  for (let chunk = 0; chunk < DISTINCT; chunk++) {
    const slice = people.slice(chunk * CHUNK_ROWS, (chunk + 1) * CHUNK_ROWS).map((p, i) => ({ ...p, id: `r${chunk * CHUNK_ROWS + i}` }));
    const cells = (p: Record<string, string>) => (chunk % CELLS_EVERY === 0 ? [p.id, p.name ?? null, p.address ?? null, null, ''] : null);
    rows.push({
      job_id: JOB_ID, chunk, org_id: 'org', mode: 'live', list_version_id: '00000000-0000-4000-8000-000000000001',
      policy: 'standard', stop_level: 1, locale: 'da', private_list_version_id: null,
      check_people: true, check_companies: false, check_phones: false, company_register_version_id: null,
      phone_directory_version_id: null, address_register_version_id: null,
      rows: slice.map((p, i) => ({ row: chunk * CHUNK_ROWS + i, person: toAvroPerson(p), cells: cells(p) })),
    });
    results.push({
      job_id: JOB_ID, list_version_id: '00000000-0000-4000-8000-000000000001', chunk,
      results: slice.map((p, i) => ({ row: chunk * CHUNK_ROWS + i, cells: cells(p), result: checkPerson(index, p, { policy: 'standard', stopLevel: 1, locale: 'da' }) })),
    });
  }
  return { rows, results };
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const nsPerRow = (ms: number) => (ms * 1e6) / (CHUNKS * CHUNK_ROWS);

/** Runs `work` over CHUNKS chunks (cycling the distinct ones); CPU ms. */
function timeSync(work: (i: number) => void): number {
  const before = cpuMs();
  for (let i = 0; i < CHUNKS; i++) work(i % DISTINCT);
  return cpuMs() - before;
}

async function timeAsync(work: (i: number) => Promise<void>): Promise<number> {
  const before = cpuMs();
  for (let i = 0; i < CHUNKS; i++) await work(i % DISTINCT);
  return cpuMs() - before;
}

interface FieldCodec {
  encode(value: unknown): Buffer;
  decode(bytes: Buffer): unknown;
}

async function fields(data: ReturnType<typeof chunks>): Promise<void> {
  const catalog = loadSchemaCatalog();
  const rowsType = (catalog.latest('checks.rows-dk.robinson.checks.RowsChunk')!.type as avro.types.RecordType).field('rows').type;
  const resultsRecord = catalog.latest('checks.results-dk.robinson.checks.ResultsChunk')!.type as avro.types.RecordType;
  const slimType = (resultsRecord.field('slim_results').type as avro.types.UnwrappedUnionType).types[1];
  const slims = data.results.map((c) => toSlim(c.results));
  const plainRows = data.rows.map((c) => c.rows);
  let scratch = Buffer.allocUnsafeSlow(1 << 20);
  const avscOf = (type: avro.Type): FieldCodec => ({
    encode(value) {
      let end = type.encode(value, scratch, 0);
      if (end < 0) {
        scratch = Buffer.allocUnsafeSlow(Math.max(scratch.length * 2, scratch.length - end));
        end = type.encode(value, scratch, 0);
      }
      return scratch.subarray(0, end);
    },
    decode: (bytes) => type.fromBuffer(bytes),
  });
  const sides: Record<string, { rows: FieldCodec; slim: FieldCodec }> = { avsc: { rows: avscOf(rowsType), slim: avscOf(slimType) } };
  const compiled = await import('../../services/platform/schema-registry/compiled-codec.ts');
  if (compiled) sides.compiled = { rows: compiled.compileAvro(rowsType)!, slim: compiled.compileAvro(slimType)! };

  // Bytes identical, and what each side reads back.
  const rowsBytes = plainRows.map((r) => Buffer.from(sides.avsc.rows.encode(r)));
  const slimBytes = slims.map((s) => Buffer.from(sides.avsc.slim.encode(s)));
  if (sides.compiled) {
    const same = plainRows.every((r, i) => sides.compiled.rows.encode(r).equals(rowsBytes[i]))
      && slims.every((s, i) => sides.compiled.slim.encode(s).equals(slimBytes[i]));
    const readSame = rowsBytes.every((b) => JSON.stringify(sides.compiled.rows.decode(b)) === JSON.stringify(sides.avsc.rows.decode(b)))
      && slimBytes.every((b) => JSON.stringify(sides.compiled.slim.decode(b)) === JSON.stringify(sides.avsc.slim.decode(b)));
    console.log(`compiled bytes identical to avsc's: ${same}; decoded values identical: ${readSame}`);
  }
  const key = Buffer.alloc(32, 7);
  const sealedRows = rowsBytes.map((b, i) => seal(key, b, `RowsChunk:${JOB_ID}:${i}`));
  const rowsBytesKb = rowsBytes.reduce((n, b) => n + b.length, 0) / rowsBytes.length / 1024;
  const slimBytesKb = slimBytes.reduce((n, b) => n + b.length, 0) / slimBytes.length / 1024;
  console.log(`chunk sizes: rows ${rowsBytesKb.toFixed(1)} KiB, slim results ${slimBytesKb.toFixed(1)} KiB (means)`);

  const figures: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (figures[name] ??= []).push(nsPerRow(ms));
  for (let pass = 0; pass <= PASSES; pass++) {
    for (const [side, codec] of Object.entries(sides)) {
      const ms = {
        'rows encode': timeSync((i) => codec.rows.encode(plainRows[i])),
        'rows decode': timeSync((i) => codec.rows.decode(rowsBytes[i])),
        'slim encode': timeSync((i) => codec.slim.encode(slims[i])),
        'slim decode': timeSync((i) => codec.slim.decode(slimBytes[i])),
      };
      if (pass > 0) for (const [name, v] of Object.entries(ms)) add(`${side} ${name}`, v);
    }
    const sealMs = timeSync((i) => seal(key, rowsBytes[i], `RowsChunk:${JOB_ID}:${i}`));
    const openMs = timeSync((i) => open(key, sealedRows[i], `RowsChunk:${JOB_ID}:${i}`));
    if (pass > 0) {
      add('AES-GCM seal of a rows chunk', sealMs);
      add('AES-GCM open of a rows chunk', openMs);
    }
  }
  for (const [name, xs] of Object.entries(figures)) {
    console.log(`${name.padEnd(34)} median ${median(xs).toFixed(0).padStart(5)} ns/row  (passes: ${xs.map((x) => x.toFixed(0)).join(', ')})`);
  }
}

async function events(data: ReturnType<typeof chunks>): Promise<void> {
  const db = openEmbeddedDatabase(':memory:');
  const dataKeys = createJobDataKeys({ store: createEmbeddedDataKeyStore(db), keyring: createEmbeddedKeyRing(db) });
  const codec = createPipelineEvents({ log: { publish: async () => {} }, registry: createStaticSchemaRegistry(), dataKeys });
  const all: PipelineEvent[][] = [data.rows.map((value) => ({ type: 'RowsChunk', value })), data.results.map((value) => ({ type: 'ResultsChunk', value }))];
  // What every decoded chunk reads as (the answers), before timing.
  const hash = createHash('sha256');
  for (const list of all) {
    for (const e of list) {
      // The rows or results as read back (data_key_id names this run's fresh key, so it is left out).
      const { data_key_id: _key, ...value } = (await codec.decode((await codec.encode(e)).message.value)).value as RowsChunkEvent;
      hash.update(JSON.stringify(value));
    }
  }
  console.log(`decoded chunks SHA-256 ${hash.digest('hex').slice(0, 16)}`);
  const figures: Record<string, number[]> = {};
  for (let pass = 0; pass <= PASSES; pass++) {
    for (const [n, list] of all.entries()) {
      const buffers: Buffer[] = new Array(DISTINCT);
      const encodeMs = await timeAsync(async (i) => {
        buffers[i] = (await codec.encode(list[i])).message.value;
      });
      const decodeMs = await timeAsync(async (i) => {
        await codec.decode(buffers[i]);
      });
      if (pass > 0) {
        const kind = n === 0 ? 'rows' : 'results';
        (figures[`${kind} encode (sealed)`] ??= []).push(nsPerRow(encodeMs));
        (figures[`${kind} decode (sealed)`] ??= []).push(nsPerRow(decodeMs));
      }
    }
  }
  for (const [name, xs] of Object.entries(figures)) {
    console.log(`${name.padEnd(28)} median ${median(xs).toFixed(0).padStart(5)} ns/row  (passes: ${xs.map((x) => x.toFixed(0)).join(', ')})`);
  }
}

const data = chunks();
console.log(`${CHUNKS} chunks of ${CHUNK_ROWS} rows of each kind (${DISTINCT} distinct), ${PASSES} passes after a warm-up; CPU time; load ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
if (what === 'fields' || what === 'both') await fields(data);
if (what === 'events' || what === 'both') await events(data);
