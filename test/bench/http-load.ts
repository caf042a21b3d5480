/**
 * A small load generator for the HTTP benches: `connections` keep-alive connections, each sending
 * `requestsPerConnection` requests one after another, from a worker thread so the client does not
 * share the server's event loop. Each latency is request written → last byte of the answer read,
 * kept as a fraction of a millisecond (autocannon's histogram keeps whole milliseconds, too coarse
 * next to a floor of a few ms). Any answer other than `expectStatus` fails the run.
 */
import { Agent, request } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  requestsPerConnection: number;
  expectStatus: number;
}

export interface LoadRun {
  /** Every request's latency in ms, sorted ascending. */
  latenciesMs: number[];
  /** From the first request sent to the last answer read, ms. */
  wallMs: number;
}

/** Runs the load in a worker thread and resolves with its latencies. */
export function driveLoad(options: LoadOptions): Promise<LoadRun> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { httpLoad: options } });
    worker.once('message', (message: { run?: LoadRun; error?: string }) => {
      if (message.error) reject(new Error(message.error));
      else resolve(message.run as LoadRun);
    });
    worker.once('error', reject);
  });
}

/** The `p`-th percentile (0 < p ≤ 1) of sorted values, nearest rank. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) throw new Error('no values');
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1];
}

function oneRequest(agent: Agent, options: LoadOptions, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(options.url, {
      method: 'POST', agent, headers: { ...options.headers, 'content-length': String(body.length) },
    }, (res) => {
      res.on('data', () => {});
      res.once('end', () => {
        if (res.statusCode !== options.expectStatus) reject(new Error(`answered ${res.statusCode}, not ${options.expectStatus}`));
        else resolve(performance.now() - started);
      });
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

async function run(options: LoadOptions): Promise<LoadRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const body = Buffer.from(options.body);
  const latencies: number[] = [];
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: options.connections }, async () => {
      for (let i = 0; i < options.requestsPerConnection; i++) latencies.push(await oneRequest(agent, options, body));
    }));
  } finally {
    agent.destroy();
  }
  const wallMs = performance.now() - started;
  return { latenciesMs: latencies.sort((a, b) => a - b), wallMs };
}

if (!isMainThread && (workerData as { httpLoad?: LoadOptions } | null)?.httpLoad) {
  const options = (workerData as { httpLoad: LoadOptions }).httpLoad;
  try {
    parentPort!.postMessage({ run: await run(options) });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
}
