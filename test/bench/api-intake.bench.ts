/**
 * POST /v2/check-jobs with a 1,000,000-person JSON body (~150 MB) streamed over loopback into a
 * separate API process (test/bench/api-intake-server.ts, embedded adapters on a database file):
 * the API process's peak RSS while it reads, spools, creates the job and publishes every row, and
 * the time from the first byte sent to the 202. The client never holds the body whole either: a
 * block of 10,000 encoded people is written again and again, with backpressure.
 * Run alone: `npm exec -- node test/bench/api-intake.bench.ts`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { personJson } from './intake.bench.ts';
import type { Bench, BenchSection } from './types.ts';

const PEOPLE = 1_000_000;
const BLOCK_PEOPLE = 10_000;

/** VmHWM (peak) and VmRSS of a process, in MB, from /proc (Linux). */
function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
}

async function upload(port: number, key: string) {
  const block = Buffer.from(Array.from({ length: BLOCK_PEOPLE }, (_, i) => personJson(i)).join(','));
  let bytes = 0;
  const started = performance.now();
  let bodySentAt = 0;
  const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v2/check-jobs', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    const write = (chunk: Buffer) => {
      bytes += chunk.length;
      return req.write(chunk);
    };
    let b = 0;
    const pump = () => {
      if (b === 0) write(Buffer.from('{"external_ref":"bench","people":['));
      while (b < PEOPLE / BLOCK_PEOPLE) {
        const ok = write(b === 0 ? block : Buffer.concat([Buffer.from(','), block]));
        b += 1;
        if (!ok) return void req.once('drain', pump);
      }
      write(Buffer.from('],"policy":"standard"}'));
      req.end(() => (bodySentAt = performance.now()));
    };
    pump();
  });
  const seconds = (performance.now() - started) / 1000;
  if (response.status !== 202) throw new Error(`expected 202, got ${response.status}: ${response.body.slice(0, 300)}`);
  const job = JSON.parse(response.body) as { row_count: number };
  if (job.row_count !== PEOPLE) throw new Error(`job has ${job.row_count} rows`);
  return { mb: bytes / 1e6, seconds, uploadSeconds: (bodySentAt - started) / 1000 };
}

const bench: Bench = async (): Promise<BenchSection> => {
  const dir = mkdtempSync(join(tmpdir(), 'api-intake-bench-'));
  const server = spawn(process.execPath, [fileURLToPath(new URL('./api-intake-server.ts', import.meta.url)), dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const lines = createInterface({ input: server.stdout });
    const [first] = (await once(lines, 'line')) as [string];
    const { port, key } = JSON.parse(first) as { port: number; key: string };
    const idle = memoryOf(server.pid!);
    const result = await upload(port, key);
    const after = memoryOf(server.pid!);
    return {
      title: 'API intake: 1,000,000-person JSON job over loopback (separate API process)',
      metrics: [
        { name: 'body size', value: round(result.mb), unit: 'MB' },
        { name: 'time to 202 (read, validate, spool, create, publish every row)', value: round(result.seconds), unit: 's' },
        { name: 'time to send the body', value: round(result.uploadSeconds), unit: 's', note: 'the server reads as fast as the client writes' },
        { name: 'people accepted per second', value: Math.round(PEOPLE / result.seconds), unit: 'people/s' },
        { name: 'API RSS when idle', value: round(idle.rssMb), unit: 'MB' },
        { name: 'API peak RSS (VmHWM)', value: round(after.peakMb), unit: 'MB', goal: { op: '<=', value: 400 } },
      ],
      notes: [
        'Test key (no list index in memory); embedded job store and event log on one database file, so the time includes writing every row chunk durably.',
        'The body is chunked transfer encoding, written in blocks of 10,000 people with backpressure.',
      ],
    };
  } finally {
    server.kill('SIGTERM');
    await once(server, 'exit').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
};

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
