/**
 * Streams a generated 1,000,000-person JSON check-job body (~150 MB) through readPeopleFromJson
 * and reports throughput and the process's peak RSS. The body is never in memory whole: a block of
 * 10,000 encoded people is reused, cut into 64 KiB chunks as an HTTP request would arrive.
 * Run alone: `npm exec -- node test/bench/intake.bench.ts`.
 */
import type { Bench, BenchSection } from './types.ts';
import { readPeopleFromJson, readPeopleFromNdjson } from '../../services/ingest/people/index.ts';

const PEOPLE = 1_000_000;
const BLOCK_PEOPLE = 10_000;
const CHUNK_BYTES = 64 * 1024;
const encoder = new TextEncoder();

/** One person of a generated check-job body (api-intake.bench.ts sends the same people). */
export function personJson(i: number): string {
  return JSON.stringify({
    id: `row-${i}`,
    first_name: i % 3 === 0 ? 'Søren' : 'Anne Marie',
    last_name: i % 5 === 0 ? 'Ærø-Østergård' : 'Hansen',
    street: 'Gammel Kongevej',
    house_number: String((i % 200) + 1),
    floor: String(i % 6),
    door: i % 2 === 0 ? 'tv' : 'th',
    postal_code: String(1000 + (i % 8999)),
    city: 'København V',
  });
}

function* pieces(block: Uint8Array, head: Uint8Array, separator: Uint8Array, tail: Uint8Array) {
  yield head;
  for (let b = 0; b < PEOPLE / BLOCK_PEOPLE; b += 1) {
    if (b > 0) yield separator;
    yield block;
  }
  yield tail;
}

/** The pieces re-cut into fixed-size chunks (no copy except where a chunk spans two pieces). */
async function* chunks(parts: Iterable<Uint8Array>, counter: { bytes: number }): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for (const part of parts) {
    let offset = 0;
    while (offset < part.length) {
      const take = Math.min(CHUNK_BYTES - pendingBytes, part.length - offset);
      pending.push(part.subarray(offset, offset + take));
      pendingBytes += take;
      offset += take;
      if (pendingBytes === CHUNK_BYTES) {
        counter.bytes += pendingBytes;
        yield pending.length === 1 ? pending[0] : Buffer.concat(pending);
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) {
    counter.bytes += pendingBytes;
    yield Buffer.concat(pending);
  }
}

async function measure(kind: 'json' | 'ndjson') {
  const people = Array.from({ length: BLOCK_PEOPLE }, (_, i) => personJson(i));
  const counter = { bytes: 0 };
  const parts =
    kind === 'json'
      ? pieces(encoder.encode(people.join(',')), encoder.encode('{"external_ref":"bench","people":['), encoder.encode(','), encoder.encode('],"policy":"standard"}'))
      : pieces(encoder.encode(people.join('\n')), new Uint8Array(0), encoder.encode('\n'), encoder.encode('\n'));
  const reader = kind === 'json' ? readPeopleFromJson(chunks(parts, counter)) : readPeopleFromNdjson(chunks(parts, counter));
  const started = performance.now();
  let count = 0;
  let nameChars = 0;
  for await (const batch of reader) {
    count += batch.length;
    nameChars += batch[0].first_name?.length ?? 0; // touch the output so nothing is optimised away
  }
  const seconds = (performance.now() - started) / 1000;
  if (count !== PEOPLE || nameChars === 0) throw new Error(`read ${count} people, expected ${PEOPLE}`);
  return { mb: counter.bytes / 1e6, seconds };
}

const bench: Bench = async (): Promise<BenchSection> => {
  const startRssMb = process.memoryUsage().rss / 1e6;
  const json = await measure('json');
  const ndjson = await measure('ndjson');
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  return {
    title: 'Check-job body intake (streaming JSON / NDJSON reader)',
    metrics: [
      { name: 'JSON body size', value: round(json.mb), unit: 'MB' },
      { name: 'JSON throughput', value: round(json.mb / json.seconds), unit: 'MB/s' },
      { name: 'JSON people per second', value: Math.round(PEOPLE / json.seconds), unit: 'people/s' },
      { name: 'NDJSON throughput', value: round(ndjson.mb / ndjson.seconds), unit: 'MB/s' },
      { name: 'NDJSON people per second', value: Math.round(PEOPLE / ndjson.seconds), unit: 'people/s' },
      { name: 'RSS before reading', value: round(startRssMb), unit: 'MB', note: 'Node itself plus the generated 10,000-person block' },
      {
        name: 'peak RSS of the bench process',
        value: round(peakRssMb),
        unit: 'MB',
        goal: { op: '<=', value: 400 },
        note: 'the 400 MB goal is for the whole API process; the reader alone should use a small part',
      },
    ],
    notes: [`${PEOPLE.toLocaleString('en')} people per body, 64 KiB chunks, batches of 1000, single thread`],
  };
};

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
