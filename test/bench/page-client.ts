/**
 * The client the page benches time a results page with (pipeline.bench.ts pageAll, page-driver.ts;
 * test/bench/README.md "Results pages alone"): one keep-alive node:http connection per client, a
 * GET whose answer is collected as the Buffers the socket delivers, timed from the request to the
 * last byte received. Turning those bytes into a JavaScript string and parsing it is the client's
 * work, not the service's: the caller does it after the timer has stopped.
 *
 * Before it the benches timed `fetch` + `response.text()` (undici), whose decoding of a 5-6 MB
 * page into a string inside the timer was most of a page's time: a bare node:http server serving
 * the same bytes took 1.56-1.69× JSON.stringify of the page's results through it
 * (docs/performance.md "Measurements"). The sync bench's client (http-load.ts) was made lean for
 * the same reason.
 */
import { Agent, request } from 'node:http';

export interface TimedAnswer {
  status: number;
  /** Request sent → last byte of the body received, ms. */
  ms: number;
  /** The body as received, not yet joined or decoded. */
  chunks: Buffer[];
}

export interface PageClient {
  get(url: URL, headers: Record<string, string>): Promise<TimedAnswer>;
  close(): void;
}

/** The body's bytes joined, as text (after the timer: the client's own work). */
export function textOf(answer: TimedAnswer): string {
  return Buffer.concat(answer.chunks).toString('utf8');
}

/** How long an answer may send nothing before the client gives up on it. */
const IDLE_LIMIT_MS = 300_000;

export function pageClient(): PageClient {
  // One socket, kept open between pages, as a client paging a job would (fetch kept its own too).
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    get(url, headers) {
      return new Promise((resolve, reject) => {
        const started = performance.now();
        const sent = request(url, { agent, headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.once('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started, chunks }));
          response.once('error', reject);
        });
        sent.once('error', reject);
        // A stuck answer fails the run instead of hanging it (idle for this long, not the whole answer).
        sent.setTimeout(IDLE_LIMIT_MS, () => sent.destroy(new Error(`no byte of ${url.pathname} for ${IDLE_LIMIT_MS / 1000} s`)));
        sent.end();
      });
    },
    close: () => agent.destroy(),
  };
}
