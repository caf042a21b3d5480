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
 * PAGE_DRIVER_TRACE=1: where a page's time goes inside the API, the round trips it makes, and the
 * engine's time of the page statement's status check in several forms (pageTrace, jobReadForms).
 *
 * Not a bench of its own (no goal, no report): it prints one JSON line per round (and, with
 * PAGE_DRIVER_DEBUG=1, every page's times on stderr, to tell a stall of the load from a slow path). Run:
 * `node test/bench/page-driver.ts` (add --cpu-prof to profile the API, which runs in this process).
 */
import { subscribe, tracingChannel } from 'node:diagnostics_channel';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { Socket } from 'node:net';
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
const trace = process.env.PAGE_DRIVER_TRACE ? pageTrace(d) : null;
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
      trace?.begin();
      const answer = await client.get(url, auth);
      trace?.end(answer.ms);
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
    if (trace) console.log(JSON.stringify({ round, trace: trace.summary(), job_reads: clickhouse?.CLICKHOUSE_URL ? await jobReadForms(clickhouse.CLICKHOUSE_URL, clickhouse.CLICKHOUSE_DATABASE, id) : null }));
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

/**
 * PAGE_DRIVER_TRACE=1: where one page request's time goes in the API (which runs in this process
 * on both deployments), from Node's and fastify's diagnostics channels and the stores' methods
 * wrapped: the request's arrival, the handler's start (authentication and the other onRequest
 * hooks before it), the job-and-page read, the handler's end (the answer written); and every
 * request written to ClickHouse while the page ran (its first SQL words), to count round trips.
 */
function pageTrace(deployment: { platform: { jobs: JobStore; accounts: object } }) {
  type Marks = { arrived?: number; handler?: number; readStart?: number; readEnd?: number; handled?: number; ms?: number; sent: string[]; lookups: number };
  let current: Marks | null = null;
  const pages: Marks[] = [];
  const now = () => performance.now();
  subscribe('http.server.request.start', () => { if (current && current.arrived === undefined) current.arrived = now(); });
  tracingChannel('fastify.request.handler').subscribe({
    start: () => { if (current) current.handler = now(); },
    end: () => undefined,
    asyncStart: () => { if (current) current.handled = now(); },
    asyncEnd: () => undefined,
    error: () => undefined,
  });
  const jobs = deployment.platform.jobs as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const read = jobs.readDoneResultsBytes.bind(jobs);
  jobs.readDoneResultsBytes = async (...args) => {
    if (current) current.readStart = now();
    try {
      return await read(...args);
    } finally {
      if (current) current.readEnd = now();
    }
  };
  const accounts = deployment.platform.accounts as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of ['findKeyByHash', 'getOrganisation']) {
    const look = accounts[name].bind(accounts);
    accounts[name] = (...args) => {
      if (current) current.lookups += 1;
      return look(...args);
    };
  }
  const write = Socket.prototype.write;
  const clickhousePort = Number(new URL((deployment as { env?: Record<string, string> }).env?.CLICKHOUSE_URL ?? 'http://x:1').port);
  Socket.prototype.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    if (current && this.remotePort === clickhousePort) {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.subarray(0, 4096).toString('latin1') : '';
      const sql = /\b(SELECT|INSERT|ALTER|WITH|\(SELECT)[^\n]{0,60}/.exec(text);
      // A request's head starts a round trip; its SQL may come in the same write or the next.
      if (/^(POST|GET) /.test(text)) current.sent.push(sql ? sql[0] : '?');
      else if (sql && current.sent.at(-1) === '?') current.sent[current.sent.length - 1] = sql[0];
    }
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  };
  const span = (pick: (m: Marks) => number | undefined) => {
    const values = pages.map(pick).filter((v): v is number => v !== undefined && Number.isFinite(v));
    return values.length > 0 ? Math.round(median(values) * 10) / 10 : null;
  };
  return {
    begin() { current = { sent: [], lookups: 0 }; },
    end(ms: number) { if (current) pages.push({ ...current, ms }); current = null; },
    summary() {
      const sentCounts = new Map<string, number>();
      for (const page of pages) for (const s of page.sent) sentCounts.set(s, (sentCounts.get(s) ?? 0) + 1);
      const result = {
        pages: pages.length,
        median_ms: {
          arrival_to_handler: span((m) => m.handler! - m.arrived!),
          handler_to_read: span((m) => m.readStart! - m.handler!),
          read: span((m) => m.readEnd! - m.readStart!),
          // The handler returns the reply, a thenable that settles when the answer is written: so
          // this is the route's work after the read plus the whole write to the client.
          read_to_written: span((m) => m.handled! - m.readEnd!),
          page: span((m) => m.ms),
        },
        account_lookups_per_page: pages.reduce((a, m) => a + m.lookups, 0) / Math.max(1, pages.length),
        clickhouse_requests_per_page: pages.reduce((a, m) => a + m.sent.length, 0) / Math.max(1, pages.length),
        sent: Object.fromEntries(sentCounts),
      };
      pages.length = 0;
      return result;
    },
  };
}

/**
 * PAGE_DRIVER_TRACE: the job's row and status read in several forms, shuffled, 30 rounds, as the
 * engine's own `elapsed_ns` (the front's X-ClickHouse-Summary), beside the parts check_jobs has:
 * whether the page statement's job part costs by the parts the job's revisions left unmerged.
 */
async function jobReadForms(url: string, database: string, jobId: string) {
  const post = async (query: string) => {
    const target = new URL(url);
    target.search = new URLSearchParams({ database, param_id: jobId, param_org: scope.org, param_mode: scope.mode }).toString();
    const response = await fetch(target, { method: 'POST', body: query });
    const text = await response.text();
    if (!response.ok) throw new Error(`${response.status} ${text.slice(0, 200)}`);
    const summary = JSON.parse(response.headers.get('x-clickhouse-summary') ?? '{}') as { elapsed_ns?: string };
    return { text, ms: Number(summary.elapsed_ns ?? NaN) / 1e6 };
  };
  const scope = { org: '', mode: '' };
  [scope.org, scope.mode] = (await post('SELECT org_id, mode FROM check_jobs WHERE id = {id:String} LIMIT 1 FORMAT TSV')).text.trim().split('\t');
  // The route's page statement (jobs.ts donePage) for the first page, with the status check in each form.
  const page = (check: string) => `(SELECT toUInt8(0) AS kind, toUInt32(0) AS first_row, toUInt32(0) AS last_row, toUInt8(0) AS record_format, doc AS payload
      FROM check_jobs FINAL WHERE id = {id:String} AND org_id = {org:String} AND mode = {mode:String})
    UNION ALL
    (SELECT toUInt8(1), first_row, last_row, record_format, results FROM (${['check_result_records_small_granules', 'check_result_records'].map((table) =>
      `SELECT first_row, last_row, record_format, results FROM ${table} WHERE job_id = {id:String} AND first_row > -1001 AND last_row > -1 AND first_row <= 10000 ${check}`).join(' UNION ALL ')})
      ORDER BY first_row, last_row DESC LIMIT 1 BY first_row LIMIT 10001) FORMAT Null`;
  const parts = (await post(`SELECT count(), sum(rows) FROM system.parts WHERE database = currentDatabase() AND table = 'check_jobs' AND active FORMAT TSV`)).text.trim();
  const forms: Record<string, string> = {
    select_1: 'SELECT 1 FORMAT Null',
    row_final: 'SELECT doc FROM check_jobs FINAL WHERE id = {id:String} FORMAT Null',
    status_argmax: "SELECT toString(argMax(status, revision)) FROM check_jobs WHERE id = {id:String} FORMAT Null",
    row_argmax: 'SELECT argMax(doc, revision), toString(argMax(status, revision)) FROM check_jobs WHERE id = {id:String} FORMAT Null',
    row_latest: 'SELECT doc, status FROM check_jobs WHERE id = {id:String} ORDER BY revision DESC LIMIT 1 FORMAT Null',
    row_final_and_status: "SELECT doc, (SELECT toString(argMax(status, revision)) FROM check_jobs WHERE id = {id:String}) FROM check_jobs FINAL WHERE id = {id:String} FORMAT Null",
    page_argmax: page("AND (SELECT toString(argMax(status, revision)) FROM check_jobs WHERE id = {id:String} AND org_id = {org:String} AND mode = {mode:String}) = 'done'"),
    page_final_status: page("AND (SELECT toString(status) FROM check_jobs FINAL WHERE id = {id:String} AND org_id = {org:String} AND mode = {mode:String}) = 'done'"),
    page_no_check: page(''),
    // The same text as page_argmax but for a comment: an A/A pair, the spread of one form against itself.
    page_argmax_again: page("AND (SELECT toString(argMax(status, revision)) FROM check_jobs WHERE id = {id:String} AND org_id = {org:String} AND mode = {mode:String}) = 'done' /* again */"),
  };
  // PAGE_DRIVER_FORMS: a comma-separated choice of the forms (e.g. the page statement's alone), PAGE_DRIVER_FORM_ROUNDS rounds (default 40).
  const chosen = process.env.PAGE_DRIVER_FORMS ? process.env.PAGE_DRIVER_FORMS.split(',').filter((name) => name in forms) : Object.keys(forms);
  const times = new Map<string, number[]>(chosen.map((name) => [name, []]));
  for (let round = 0; round < Number(process.env.PAGE_DRIVER_FORM_ROUNDS ?? 40); round++) {
    const order = [...chosen].sort(() => Math.random() - 0.5);
    for (const name of order) times.get(name)!.push((await post(forms[name])).ms);
  }
  return { parts_and_rows: parts, engine_median_ms: Object.fromEntries([...times].map(([name, v]) => [name, Math.round(median(v) * 100) / 100])) };
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
