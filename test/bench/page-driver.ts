/**
 * The results-page scenario of pipeline.bench.ts alone, for profiling and A/B runs of the read
 * path (test/bench/README.md "Results pages alone"): one job of PAGE_DRIVER_ROWS rows (default
 * 100,000) on one deployment (PAGE_DRIVER_DEPLOYMENT=embedded|distributed), then PAGE_DRIVER_ROUNDS
 * rounds (default 3) of paging every result with limit 10,000, each page timed alone as the bench
 * times it (page-client.ts: request to the last byte received; the text decoded and parsed after
 * the timer), beside JSON.stringify of its own results. Each page is also fetched as the bench
 * timed it before page-client.ts (`fetch` + `response.text()` inside the timer: `page_fetch_*`),
 * the two in alternating order, so a run shows what the leaner client moved.
 * Each round also times the parts of a page: the store's read (readResultsBytes, as the route reads it) and a GET of the
 * job record (authentication and a job look-up as a query of its own; a page reads the job in the
 * query of its records since readDoneResultsBytes), and, right before its
 * pages, the job's floor (floor.ts, best of 3), so that all pages read as a multiple of it as
 * pipeline.bench.ts reports them.
 *
 * On the distributed deployment the store's read is also timed through @clickhouse/client's exec()
 * (`store_read_client_median_ms`), the way the store read RowBinary before its bulk byte reads went
 * over plain node:http (services/platform/store/clickhouse/byte-reads.ts), and through node:http
 * (`store_read_node_http_median_ms`), the way they read before plain-http.ts read answers into
 * buffers of their own, the three in rotating order, each on a connection of its own to the same
 * ClickHouse and database.
 *
 * Each page is also fetched as its own bytes from a bare node:http server in this process (no
 * route, no store), the part of a page no server code can take away: the loopback socket and the
 * client, through page-client.ts (`transport_median_ms`) and through fetch and text()
 * (`transport_fetch_median_ms`).
 *
 * Not a bench of its own (no goal, no report): it prints one JSON line per round (and, with
 * PAGE_DRIVER_DEBUG=1, every page's times on stderr, to tell a stall of the load from a slow path). Run:
 * `node test/bench/page-driver.ts` (add --cpu-prof to profile the API, which runs in this process).
 */
import { Agent, createServer, request as httpRequest } from 'node:http';
import { createClickHouseConnection, type ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { createClickHouseJobStore } from '../../services/platform/store/clickhouse/jobs.ts';
import { queryParam } from '../../services/platform/store/clickhouse/byte-reads.ts';
import { encodeCursor } from '../../services/platform/store/job-results.ts';
import type { JobStore } from '../../services/platform/store/jobs-port.ts';
import { driverJobBody, startWithDoneJob } from './driver-job.ts';
import { jobFloor } from './floor.ts';
import { pageClient, textOf } from './page-client.ts';

const ROWS = Number(process.env.PAGE_DRIVER_ROWS ?? 100_000);
const ROUNDS = Number(process.env.PAGE_DRIVER_ROUNDS ?? 3);
const DEPLOYMENT = process.env.PAGE_DRIVER_DEPLOYMENT ?? 'distributed';
const LIMIT = 10_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A bare server of one body (the page just read), to time the transport alone. */
async function bareServer(): Promise<{ url: string; serve(bytes: Buffer): void; close(): void }> {
  let served: Buffer = Buffer.alloc(0);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': served.length }).end(served);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}/`, serve: (bytes) => { served = bytes; }, close: () => server.close() };
}

const body = driverJobBody(ROWS);
const bare = await bareServer();
const { d, id } = await startWithDoneJob(DEPLOYMENT, body);
const client = pageClient();
const clickhouse = (d as { env?: Record<string, string> }).env;
const viaClient = clickhouse?.CLICKHOUSE_URL ? clientExecStore(clickhouse.CLICKHOUSE_URL, clickhouse.CLICKHOUSE_DATABASE) : null;
const viaNodeHttp = clickhouse?.CLICKHOUSE_URL ? nodeHttpStore(clickhouse.CLICKHOUSE_URL, clickhouse.CLICKHOUSE_DATABASE) : null;
try {
  const auth = { Authorization: `Bearer ${d.liveKey}` };
  const bodyBytes = Buffer.from(body, 'utf8');
  for (let round = 0; round < ROUNDS; round++) {
    const floor = jobFloor(bodyBytes, ROWS);
    const pageMs: number[] = [];
    const stringifyMs: number[] = [];
    const storeMs: number[] = [];
    const storeClientMs: number[] = [];
    const storeNodeHttpMs: number[] = [];
    const jobGetMs: number[] = [];
    const transportMs: number[] = [];
    const pageFetchMs: number[] = [];
    const transportFetchMs: number[] = [];
    let cursor: string | null = null;
    let rows = 0;
    for (let page = 0; ; page++) {
      const url = new URL(`/v2/check-jobs/${id}/results?limit=${LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, d.baseUrl);
      // The lean client and fetch in alternating order, so neither always reads a warmer cache.
      const viaFetch = async () => {
        const f = performance.now();
        const text = await (await fetch(url, { headers: auth })).text();
        pageFetchMs.push(performance.now() - f);
        return text;
      };
      const fetched = page % 2 === 1 ? await viaFetch() : null;
      const answer = await client.get(url, auth);
      pageMs.push(answer.ms);
      const text = textOf(answer);
      if ((fetched ?? await viaFetch()) !== text) throw new Error('fetch read another page');
      if (answer.status !== 200) throw new Error(`page ${page}: ${answer.status} ${text.slice(0, 200)}`);
      const bytes = Buffer.from(text, 'utf8');
      bare.serve(bytes);
      const t = performance.now();
      const again = await (await fetch(bare.url)).text();
      transportFetchMs.push(performance.now() - t);
      if (again.length !== text.length) throw new Error('the bare server served another body');
      const lean = await client.get(new URL(bare.url), {});
      transportMs.push(lean.ms);
      if (Buffer.concat(lean.chunks).length !== bytes.length) throw new Error('the bare server served another body');
      const json = JSON.parse(text) as { results: unknown[]; next_cursor: string | null };
      const s = performance.now();
      JSON.stringify(json.results);
      stringifyMs.push(performance.now() - s);
      const window = { cursor: rows === 0 ? null : encodeCursor(id, rows - 1), limit: LIMIT };
      const timeRead = async (store: JobStore, into: number[]) => {
        const st = performance.now();
        const read = await store.readResultsBytes(id, window);
        into.push(performance.now() - st);
        return read;
      };
      // The store's own read first, second or third in turn, so no reader always reads a warmer cache.
      const others = [viaClient && (() => timeRead(viaClient.jobs, storeClientMs)), viaNodeHttp && (() => timeRead(viaNodeHttp.jobs, storeNodeHttpMs))]
        .filter((other) => other !== null);
      for (const other of others.slice(0, page % 3)) await other();
      const read = await timeRead(d.platform.jobs, storeMs);
      for (const other of others.slice(page % 3)) await other();
      if (read.count !== json.results.length) throw new Error('the store read another page');
      const g = performance.now();
      await (await fetch(new URL(`/v2/check-jobs/${id}`, d.baseUrl), { headers: auth })).text();
      jobGetMs.push(performance.now() - g);
      rows += json.results.length;
      if (json.next_cursor === null) break;
      cursor = json.next_cursor;
    }
    if (process.env.PAGE_DRIVER_DEBUG) console.error(JSON.stringify({ pageMs, pageFetchMs, transportMs, transportFetchMs }));
    if (rows !== ROWS) throw new Error(`paged ${rows} rows of ${ROWS}`);
    const sum = (v: number[]) => Math.round(v.reduce((a, b) => a + b, 0));
    const ratio = (v: number[]) => Math.round((median(v) / median(stringifyMs)) * 100) / 100;
    console.log(JSON.stringify({
      deployment: DEPLOYMENT, round, pages: pageMs.length, load: (await import('node:os')).loadavg()[0].toFixed(2),
      page_median_ms: Math.round(median(pageMs)), stringify_median_ms: Math.round(median(stringifyMs) * 10) / 10,
      ratio: Math.round((median(pageMs) / median(stringifyMs)) * 100) / 100, all_pages_ms: sum(pageMs),
      floor_ms: Math.round(floor.totalMs), all_pages_ratio: Math.round((sum(pageMs) / floor.totalMs) * 100) / 100,
      store_read_median_ms: Math.round(median(storeMs)),
      store_read_client_median_ms: storeClientMs.length > 0 ? Math.round(median(storeClientMs)) : null,
      store_read_node_http_median_ms: storeNodeHttpMs.length > 0 ? Math.round(median(storeNodeHttpMs)) : null,
      transport_median_ms: Math.round(median(transportMs)), transport_ratio: ratio(transportMs),
      page_fetch_median_ms: Math.round(median(pageFetchMs)), page_fetch_ratio: ratio(pageFetchMs), all_pages_fetch_ratio: Math.round((sum(pageFetchMs) / floor.totalMs) * 100) / 100,
      transport_fetch_median_ms: Math.round(median(transportFetchMs)), transport_fetch_ratio: ratio(transportFetchMs),
      job_get_median_ms: Math.round(median(jobGetMs)),
    }));
  }
} finally {
  await viaClient?.close();
  await viaNodeHttp?.close();
  client.close();
  bare.close();
  await d.stop();
}

/** The ClickHouse job store reading RowBinary through @clickhouse/client's exec(), as before byte-reads.ts. */
function clientExecStore(url: string, database: string): { jobs: JobStore; close(): Promise<void> } {
  const conn = createClickHouseConnection({ url, database });
  const viaExec: ClickHouseConnection = {
    ...conn,
    async rowBinary({ query, params }) {
      const { stream } = await conn.client.exec({ query: `${query}\nFORMAT RowBinary`, query_params: params });
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    },
  };
  return { jobs: createClickHouseJobStore(viaExec), close: () => conn.close() };
}

/** The ClickHouse job store reading RowBinary over node:http (64 KB pieces, then joined), as byte-reads.ts did before plain-http.ts. */
function nodeHttpStore(url: string, database: string): { jobs: JobStore; close(): Promise<void> } {
  const conn = createClickHouseConnection({ url, database });
  const agent = new Agent({ keepAlive: true, maxSockets: 10 });
  const viaNodeHttp: ClickHouseConnection = {
    ...conn,
    rowBinary: ({ query, params }) => new Promise<Buffer>((resolve, reject) => {
      const target = new URL(url);
      target.search = new URLSearchParams([['database', database], ...Object.entries(params).map(([name, value]) => [`param_${name}`, queryParam(value)])]).toString();
      const body = Buffer.from(`${query}\nFORMAT RowBinary`, 'utf8');
      const request = httpRequest(target, { method: 'POST', agent, headers: { 'Content-Length': body.length } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', reject);
        response.once('end', () => (response.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`status ${response.statusCode}`))));
      });
      request.once('error', reject);
      request.end(body);
    }),
  };
  return { jobs: createClickHouseJobStore(viaNodeHttp), close: async () => { agent.destroy(); await conn.close(); } };
}
