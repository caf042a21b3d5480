/**
 * The list-file readers at national size: a 2,000,000-entry CPR file (about 320 MB, generated and
 * streamed in 1 MiB chunks, never whole in memory) through parseCprFile, and a 200,000-row
 * customer CSV through parseListCsv. Reports throughput and the peak RSS, which stays flat when
 * reading really streams. Run alone: `npm exec -- node test/bench/list-files.bench.ts`.
 */
import { parseCprFile } from '../../services/registers/lists/cpr-format.ts';
import { parseListCsv } from '../../services/registers/lists/csv-format.ts';
import { generateCprFileChunks, generateListEntries } from '../../services/synthetic/index.ts';
import type { Bench, BenchSection } from './types.ts';

const CPR_ENTRIES = 2_000_000;
const CSV_ROWS = 200_000;
const SEED = 'bench-list-files';

async function* counted(chunks: Iterable<Uint8Array>, counter: { bytes: number }): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) {
    counter.bytes += chunk.length;
    yield chunk;
  }
}

/** Generation time alone, so the reader's share can be told apart. */
function generationSeconds(): number {
  const started = performance.now();
  let bytes = 0;
  for (const chunk of generateCprFileChunks(CPR_ENTRIES, SEED)) bytes += chunk.length;
  if (bytes === 0) throw new Error('nothing generated');
  return (performance.now() - started) / 1000;
}

async function readCpr() {
  const counter = { bytes: 0 };
  const started = performance.now();
  let entries = 0;
  let previous = 0;
  for await (const record of parseCprFile(counted(generateCprFileChunks(CPR_ENTRIES, SEED), counter))) {
    if (record.type !== 'entry') continue;
    entries++;
    if (record.entry.previous) previous++;
  }
  if (entries !== CPR_ENTRIES) throw new Error(`read ${entries} CPR entries`);
  return { mb: counter.bytes / 1e6, seconds: (performance.now() - started) / 1000, previous };
}

function* csvChunks(): Generator<Uint8Array> {
  const quote = (v: string | undefined) => (v === undefined ? '' : /[;"\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  let block: string[] = ['\ufeffname;address;postal_code;city;kvhx'];
  for (const e of generateListEntries(CSV_ROWS, SEED)) {
    block.push([e.name, e.address, e.postal_code, e.city, e.kvhx].map(quote).join(';'));
    if (block.length === 5000) {
      yield Buffer.from(block.join('\r\n') + '\r\n', 'utf8');
      block = [];
    }
  }
  if (block.length > 0) yield Buffer.from(block.join('\r\n') + '\r\n', 'utf8');
}

async function readCsv() {
  const counter = { bytes: 0 };
  const started = performance.now();
  let rows = 0;
  for await (const entry of parseListCsv(counted(csvChunks(), counter))) rows += entry.name ? 1 : 0;
  if (rows !== CSV_ROWS) throw new Error(`read ${rows} CSV rows`);
  return { mb: counter.bytes / 1e6, seconds: (performance.now() - started) / 1000 };
}

const bench: Bench = async (): Promise<BenchSection> => {
  const generate = generationSeconds();
  const cpr = await readCpr();
  const peakAfterCprMb = process.resourceUsage().maxRSS / 1024;
  const csv = await readCsv();
  const readSeconds = Math.max(0.001, cpr.seconds - generate);
  return {
    title: 'List files: CPR file and customer CSV readers',
    metrics: [
      { name: 'CPR file size', value: round(cpr.mb), unit: 'MB', note: `${CPR_ENTRIES.toLocaleString('en')} entries, ${cpr.previous.toLocaleString('en')} previous addresses` },
      { name: 'CPR generate + read', value: round(cpr.seconds), unit: 's', note: `generating alone ${round(generate)} s` },
      { name: 'CPR reader throughput (generation subtracted)', value: Math.round(CPR_ENTRIES / readSeconds), unit: 'entries/s' },
      { name: 'peak RSS after reading the CPR file', value: Math.round(peakAfterCprMb), unit: 'MB', note: 'flat in the file size: the reader streams' },
      { name: 'CSV generate + read', value: round(csv.seconds), unit: 's', note: `${CSV_ROWS.toLocaleString('en')} rows, ${round(csv.mb)} MB, UTF-8 with BOM, ";"` },
      { name: 'CSV rows per second (incl. generation)', value: Math.round(CSV_ROWS / csv.seconds), unit: 'rows/s' },
    ],
    notes: ['Files from services/synthetic, produced chunk by chunk while read; single thread.'],
  };
};

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
