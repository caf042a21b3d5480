/**
 * POST /v2/checks with 1,000 people, one request at a time, for interleaved A/B runs of the
 * synchronous check (docs/performance.md "Measurements", session 18): http.bench.ts's API and body,
 * the client in a worker thread (http-load.ts). Per round: p50 and p99 of the client's latencies,
 * the API thread's CPU per request, and where the slowest 1 % of requests' time went on the
 * server: each request's turn on the API thread (from the answer before it handed to the socket to
 * its own, node:http's diagnostics channels), its span within it (from its head read), the
 * thread's CPU within the span, and the garbage collections that fell inside the turn
 * (PerformanceObserver 'gc'); a span far longer than its CPU waited for a core. Prints one JSON object with the load average beside each round.
 * Run: `node test/bench/sync-check-driver.ts`; SYNC_DRIVER_ROUNDS (default 3), SYNC_DRIVER_REQUESTS
 * (default 400 a round).
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadavg } from 'node:os';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { batchOfPeople, startBenchApi } from './http.bench.ts';
import { driveLoad, percentile } from './http-load.ts';

const ROUNDS = Number(process.env.SYNC_DRIVER_ROUNDS ?? 3);
const REQUESTS = Number(process.env.SYNC_DRIVER_REQUESTS ?? 400);

interface Span { start: number; end: number; cpuMs: number }
const started = new WeakMap<IncomingMessage, { at: number; cpu: NodeJS.CpuUsage }>();
const spans: Span[] = [];
subscribe('http.server.request.start', (message) => {
  started.set((message as { request: IncomingMessage }).request, { at: performance.now(), cpu: process.threadCpuUsage() });
});
subscribe('http.server.response.finish', (message) => {
  const { request } = message as { request: IncomingMessage; response: ServerResponse };
  const start = started.get(request);
  if (start === undefined) return;
  const cpu = process.threadCpuUsage(start.cpu);
  spans.push({ start: start.at, end: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000 });
});
const collections: PerformanceEntry[] = [];
const observer = new PerformanceObserver((list) => collections.push(...list.getEntries()));
observer.observe({ entryTypes: ['gc'] });

type GcDetail = { kind: number };
const GC_KINDS: Record<number, string> = { 1: 'scavenge', 2: 'minor-ms', 4: 'mark-compact', 8: 'incremental', 16: 'weak' };
const round2 = (n: number) => Math.round(n * 100) / 100;

const { url, key, close } = await startBenchApi();
try {
  const body = JSON.stringify({ people: batchOfPeople() });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  await driveLoad({ url, headers, body, connections: 1, requestsPerConnection: 50, expectStatus: 200 });
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const load = loadavg()[0];
    spans.length = 0;
    collections.length = 0;
    const cpuBefore = process.threadCpuUsage();
    const run = await driveLoad({ url, headers, body, connections: 1, requestsPerConnection: REQUESTS, expectStatus: 200 });
    const cpu = process.threadCpuUsage(cpuBefore);
    await new Promise((resolve) => setImmediate(resolve)); // the observer's last entries
    // A request's turn: from the answer before it handed to the socket to its own, so what the
    // thread did between the two (a collection while the client sent the request) counts too.
    const server = spans.map((s, i) => {
      const from = i === 0 ? s.start : spans[i - 1].end;
      const inside = collections.filter((g) => g.startTime < s.end && g.startTime + g.duration > from);
      return {
        ms: s.end - s.start, turnMs: s.end - from, cpuMs: s.cpuMs, gcMs: inside.reduce((sum, g) => sum + g.duration, 0),
        kinds: inside.map((g) => GC_KINDS[(g as PerformanceEntry & { detail: GcDetail }).detail.kind] ?? 'other'),
      };
    });
    const slowest = server.toSorted((a, b) => a.turnMs - b.turnMs).slice(-Math.max(1, Math.ceil(server.length / 100)));
    server.sort((a, b) => a.ms - b.ms);
    const byKind: Record<string, { count: number; ms: number; longest: number }> = {};
    for (const g of collections) {
      const kind = GC_KINDS[(g as PerformanceEntry & { detail: GcDetail }).detail.kind] ?? 'other';
      const k = (byKind[kind] ??= { count: 0, ms: 0, longest: 0 });
      k.count++;
      k.ms = round2(k.ms + g.duration);
      k.longest = round2(Math.max(k.longest, g.duration));
    }
    rounds.push({
      load_before: load, load_after: loadavg()[0],
      client_p50_ms: round2(percentile(run.latenciesMs, 0.5)), client_p99_ms: round2(percentile(run.latenciesMs, 0.99)),
      server_p50_ms: round2(server[Math.floor(server.length / 2)].ms), server_p99_ms: round2(server[Math.ceil(server.length * 0.99) - 1].ms),
      api_cpu_ms_per_request: round2((cpu.user + cpu.system) / 1000 / run.latenciesMs.length),
      gc: byKind,
      server_cpu_p50_ms: round2(server.map((s) => s.cpuMs).sort((a, b) => a - b)[Math.floor(server.length / 2)]),
      turns_with_gc_inside: server.filter((s) => s.gcMs > 0).length,
      slowest_1pct_turns: slowest.map((s) => ({ turn_ms: round2(s.turnMs), span_ms: round2(s.ms), cpu_ms: round2(s.cpuMs), gc_ms: round2(s.gcMs), kinds: s.kinds.join(',') })),
    });
  }
  console.log(JSON.stringify({ requests_per_round: REQUESTS, rounds }, null, 1));
} finally {
  observer.disconnect();
  await close();
}

