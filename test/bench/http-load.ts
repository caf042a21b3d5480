/**
 * A small load generator for the HTTP benches: `connections` keep-alive HTTP/1.1 connections, each
 * sending `requestsPerConnection` requests one after another, from a worker thread so the client
 * does not share the server's event loop. Each latency is request written → last byte of the answer read,
 * kept as a fraction of a millisecond (autocannon's histogram keeps whole milliseconds, too coarse
 * next to a floor of a few ms). Any answer other than `expectStatus` fails the run.
 */
import { connect } from 'node:net';
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

/** Bytes of one response's head read so far; the head is small, so it is gathered by copying. */
const HEAD_LIMIT = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * One keep-alive connection that sends the same request again and again and reads each answer
 * into one buffer it reuses (net `onread`), counting the body's bytes against Content-Length:
 * per answer the client allocates next to nothing, so its own garbage collection does not land
 * in the latencies it measures. (node:http's client allocated every chunk of a 474 KiB answer and
 * its response objects; its worker ran a full GC every 100-200 ms, pauses of 2-37 ms under load,
 * inside a twentieth of the requests it timed.)
 */
function connection(url: URL, request: Buffer, expectStatus: number) {
  let onAnswer: ((error: Error | null) => void) | null = null;
  const head = Buffer.alloc(HEAD_LIMIT);
  let headBytes = 0;
  /** Body bytes still to come; -1 while the head is read. */
  let bodyLeft = -1;
  const finish = (error: Error | null) => {
    const done = onAnswer;
    onAnswer = null;
    headBytes = 0;
    bodyLeft = -1;
    done?.(error);
  };
  const socket = connect({
    host: url.hostname, port: Number(url.port),
    onread: {
      buffer: Buffer.alloc(1024 * 1024),
      callback(size: number, buffer: Uint8Array): boolean {
        let at = 0;
        if (bodyLeft < 0) {
          const take = Math.min(size, HEAD_LIMIT - headBytes);
          head.set(buffer.subarray(0, take), headBytes);
          const searchFrom = Math.max(0, headBytes - 3);
          headBytes += take;
          const end = head.subarray(0, headBytes).indexOf(HEAD_END, searchFrom);
          if (end < 0) {
            if (headBytes === HEAD_LIMIT) finish(new Error('answer head too large'));
            return true;
          }
          const text = head.toString('latin1', 0, end);
          const status = Number(text.slice(9, 12));
          const length = /\r\ncontent-length: *(\d+)/i.exec(text);
          if (status !== expectStatus || !length) {
            finish(new Error(status !== expectStatus ? `answered ${status}, not ${expectStatus}` : 'answer without Content-Length'));
            return true;
          }
          bodyLeft = Number(length[1]);
          at = end + 4 - (headBytes - take);
        }
        bodyLeft -= size - at;
        if (bodyLeft <= 0) finish(bodyLeft === 0 ? null : new Error('answer longer than its Content-Length'));
        return true;
      },
    },
  });
  socket.setNoDelay(true);
  socket.on('error', (error) => finish(error));
  const ready = new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    async send(): Promise<number> {
      await ready;
      return new Promise((resolve, reject) => {
        const started = performance.now();
        onAnswer = (error) => (error ? reject(error) : resolve(performance.now() - started));
        socket.write(request);
      });
    },
    close: () => socket.destroy(),
  };
}

/** The request's bytes, head and body, written at once on every send. */
function requestBytes(options: LoadOptions, url: URL, body: Buffer): Buffer {
  const headers = { ...options.headers, host: url.host, 'content-length': String(body.length), connection: 'keep-alive' };
  const head = `POST ${url.pathname}${url.search} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

async function run(options: LoadOptions): Promise<LoadRun> {
  const url = new URL(options.url);
  const request = requestBytes(options, url, Buffer.from(options.body));
  const connections = Array.from({ length: options.connections }, () => connection(url, request, options.expectStatus));
  const latencies: number[] = [];
  const started = performance.now();
  try {
    await Promise.all(connections.map(async (c) => {
      for (let i = 0; i < options.requestsPerConnection; i++) latencies.push(await c.send());
    }));
  } finally {
    for (const c of connections) c.close();
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
