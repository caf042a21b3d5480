/**
 * The HTTP edge: the API on a loopback port (embedded stores, a synthetic list), driven from a
 * worker thread (http-load.ts). The goal's figure is POST /v2/checks with 1,000 people, one
 * request at a time: its p99 as a multiple of the request's floor, measured in the same run on the
 * very bytes: JSON.parse of the request body + JSON.stringify of the response body (best of
 * FLOOR_PASSES, taken before and after the load; the best is what the machine can do). Also p50,
 * the same with 4 connections (2 cores: latency there includes waiting for a core) and
 * single-person requests/s. The rate limit is raised for the bench through config.
 * Run alone (also to profile, the API runs in this process: add --cpu-prof):
 * `node test/bench/http.bench.ts`; HTTP_BENCH_REQUESTS (default 400) sets the requests per
 * measurement. HTTP_BENCH_DEPLOYMENT=embedded|distributed drives that deployment's API instead, as
 * test/support/deployments.ts starts it (npm start's wiring; the API of the Kafka + ClickHouse
 * deployment), on the same list; unset (the bench's section), the bench's own API.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipelineTopics } from '../../infra/topics.ts';
import { issueApiKey } from '../../services/admin/keys.ts';
import { createOrganisation } from '../../services/admin/organisations.ts';
import { buildApp } from '../../services/api/app.ts';
import { startAppendThread } from '../../services/platform/log/append-thread.ts';
import { cachedAccounts } from '../../services/api/cached-accounts.ts';
import { loadConfig } from '../../services/platform/config.ts';
import type { PersonInput } from '../../services/domain/types.ts';
import { createPipelineEvents } from '../../services/pipeline/events.ts';
import { createEmbeddedEventLog } from '../../services/platform/log/embedded.ts';
import { eventLogWakeChannel } from '../../services/platform/open-platform.ts';
import { createStaticSchemaRegistry } from '../../services/platform/schema-registry/static.ts';
import { createActiveListIndex } from '../../services/registers/lists/active-index.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createEmbeddedAccountStore } from '../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedIdempotencyStore } from '../../services/platform/store/embedded/idempotency.ts';
import { createEmbeddedListStore } from '../../services/platform/store/embedded/lists.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { startDistributed, startEmbedded } from '../support/deployments.ts';
import { driveLoad, percentile, type LoadRun } from './http-load.ts';
import { ratioMetric, type Reference } from './reference.ts';
import type { Bench, BenchSection } from './types.ts';

const LIST_ENTRIES = 200_000;
const SEED = 7;
const REQUESTS = Number(process.env.HTTP_BENCH_REQUESTS ?? 400);
if (!(REQUESTS >= 100)) throw new Error('HTTP_BENCH_REQUESTS must be at least 100 (a p99 needs them)');
const WARM_UP_REQUESTS = 50;
const DEPLOYMENT = process.env.HTTP_BENCH_DEPLOYMENT;
if (DEPLOYMENT !== undefined && DEPLOYMENT !== 'embedded' && DEPLOYMENT !== 'distributed') {
  throw new Error(`HTTP_BENCH_DEPLOYMENT must be embedded or distributed, not ${DEPLOYMENT}`);
}
const FLOOR_PASSES = 30;

/** 1,000 people: half of them on the list (exact copies of list entries), half not. */
export function batchOfPeople(): PersonInput[] {
  const members: PersonInput[] = [];
  for (const entry of generateListEntries(500, SEED)) {
    const { previous: _previous, ...person } = entry;
    members.push({ id: `m${members.length}`, ...person });
  }
  return [...members, ...generatePeople(500, SEED)];
}

/**
 * The request's floor: JSON.parse of the very request body + JSON.stringify of the very response
 * (the answer parsed once, outside the timing), best of `passes`. What no server can go below in
 * JavaScript: it has to read the body and write the answer.
 */
function requestFloorMs(requestBody: string, responseBody: string, passes: number): number {
  const response = JSON.parse(responseBody) as unknown;
  let best = Infinity;
  for (let i = 0; i < passes; i++) {
    const started = performance.now();
    const parsed = JSON.parse(requestBody) as { people: unknown[] };
    const written = JSON.stringify(response);
    const ms = performance.now() - started;
    // Used, so neither can be optimised away; the answer is what the server sent, byte for byte.
    if (parsed.people.length === 0 || written.length !== responseBody.length) throw new Error('the floor did not parse or write the bodies');
    best = Math.min(best, ms);
  }
  return best;
}

/**
 * The API of the bench on a loopback port: embedded stores in memory, LIST_ENTRIES synthetic list
 * entries active, one organisation with a live key, the rate limit raised, and the usage events
 * of live checks going to an embedded event log in a database file of its own, appended by a
 * thread of their own after the answers, as `npm start` has them. Also used by sync-check-stages.ts.
 */
export async function startBenchApi() {
  const db = openEmbeddedDatabase(':memory:');
  const logger = silentLogger();
  const logDir = mkdtempSync(join(tmpdir(), 'http-bench-'));
  const logPath = join(logDir, 'log.sqlite');
  const logDb = openEmbeddedDatabase(logPath);
  const eventLog = createEmbeddedEventLog({ db: logDb, logger, wakeChannel: eventLogWakeChannel(logPath) });
  await eventLog.createTopics(pipelineTopics());
  const registry = createStaticSchemaRegistry();
  const events = createPipelineEvents({ log: eventLog, registry });
  // As services/processes.ts startApi has it: the usage events appended by a thread of their own.
  const usageAppender = await startAppendThread({ logPath, wakeChannel: eventLogWakeChannel(logPath), fallback: eventLog, logger });
  const accounts = createEmbeddedAccountStore(db);
  const lists = createEmbeddedListStore(db);
  const versionId = randomUUID();
  await lists.createListVersion({ id: versionId, source: 'cpr', org_id: null, published_on: '2026-10-01', created_at: new Date().toISOString(), activated_at: null, entry_count: 0 });
  let chunk = [];
  for (const entry of generateListEntries(LIST_ENTRIES, SEED)) {
    chunk.push(entry);
    if (chunk.length === 10_000) {
      await lists.appendListEntries(versionId, chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await lists.appendListEntries(versionId, chunk);
  await lists.sealListVersion(versionId);
  await lists.activateListVersion(versionId, new Date().toISOString());
  const activeIndex = createActiveListIndex({ listStore: lists, logger });
  await activeIndex.refresh();

  const org = await createOrganisation(accounts, { name: 'bench' });
  const { key } = await issueApiKey(accounts, org.id, 'live');

  const app = buildApp({
    config: { RATE_LIMIT_PER_SECOND: 1_000_000, RATE_LIMIT_BURST: 1_000_000 },
    logger,
    // As services/processes.ts builds it: the key and organisation read through the cache.
    accounts: cachedAccounts(accounts, { maxStaleMs: loadConfig({}).AUTH_CACHE_MS, now: () => Date.now() }),
    lists,
    activeIndex,
    idempotency: createEmbeddedIdempotencyStore(db),
    events,
    usageEvents: createPipelineEvents({ log: usageAppender, registry }),
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const close = async () => {
    await app.close();
    await usageAppender.close();
    await eventLog.close();
    logDb.close();
    db.close();
    rmSync(logDir, { recursive: true, force: true });
  };
  return { app, url: `${address}/v2/checks`, key, orgId: org.id, activeIndex, events, close };
}

/** A deployment's API (test/support/deployments.ts) on the bench's list, its rate limit raised. */
async function startDeploymentApi(deployment: 'embedded' | 'distributed') {
  const env = { RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000' };
  const listEntries = generateListEntries(LIST_ENTRIES, SEED);
  const d = deployment === 'embedded'
    ? await startEmbedded(null, { listEntries, env, workers: true })
    : await startDistributed(null, { listEntries, env, matchers: 1 });
  return { url: new URL('/v2/checks', d.baseUrl).href, key: d.liveKey, close: () => d.stop() };
}

const bench: Bench = async (): Promise<BenchSection> => {
  const { url, key, close } = DEPLOYMENT ? await startDeploymentApi(DEPLOYMENT) : await startBenchApi();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  try {
    const people = batchOfPeople();
    const bigBody = JSON.stringify({ people });
    // Sanity: the batch is checked and some of it is blocked, so the bench measures real work.
    const probe = await fetch(url, { method: 'POST', headers, body: bigBody });
    const responseBody = await probe.text();
    const probeResults = (JSON.parse(responseBody) as { results: Array<{ status: string }> }).results;
    const blocked = probeResults.filter((r) => r.status === 'blocked').length;
    if (probe.status !== 200 || probeResults.length !== 1000 || blocked === 0) throw new Error(`probe failed: ${probe.status}, ${blocked} blocked`);

    const load = (body: string, connections: number, requests: number): Promise<LoadRun> =>
      driveLoad({ url, headers, body, connections, requestsPerConnection: Math.ceil(requests / connections), expectStatus: 200 });
    const loadBefore = loadavg()[0];
    const floorBefore = requestFloorMs(bigBody, responseBody, FLOOR_PASSES);
    await load(bigBody, 1, WARM_UP_REQUESTS);
    // The server's CPU per request (this thread; the client runs in its own): what the machine's
    // load does not stretch, unlike wall time. Only with the API in this process.
    const cpuBefore = process.threadCpuUsage();
    const sequential = await load(bigBody, 1, REQUESTS);
    const cpu = process.threadCpuUsage(cpuBefore);
    const cpuMsPerRequest = (cpu.user + cpu.system) / 1000 / sequential.latenciesMs.length;
    const concurrent = await load(bigBody, 4, REQUESTS);
    const single = await load(JSON.stringify({ people: [people[0]] }), 16, REQUESTS * 10);
    const floorMs = Math.min(floorBefore, requestFloorMs(bigBody, responseBody, FLOOR_PASSES));
    const floor: Reference = { name: 'JSON.parse + stringify of the same request and response', value: round(floorMs, 2), unit: 'ms' };

    const p50 = percentile(sequential.latenciesMs, 0.5);
    const p99 = percentile(sequential.latenciesMs, 0.99);
    const concurrentP50 = percentile(concurrent.latenciesMs, 0.5);
    const concurrentP99 = percentile(concurrent.latenciesMs, 0.99);
    const concurrentPerSecond = concurrent.latenciesMs.length / (concurrent.wallMs / 1000);
    const singlePerSecond = single.latenciesMs.length / (single.wallMs / 1000);
    return {
      title: DEPLOYMENT ? `HTTP API (the ${DEPLOYMENT} deployment's API on loopback)` : 'HTTP API (fastify on loopback, embedded stores)',
      metrics: [
        ratioMetric('POST /v2/checks, 1,000 people: p99 latency (1 connection), as a multiple of its floor', round(p99, 2), floor, { op: '<=', value: 3 }),
        ratioMetric('POST /v2/checks, 1,000 people: p50 latency (1 connection), as a multiple of its floor', round(p50, 2), floor),
        ratioMetric('POST /v2/checks, 1,000 people: p99 latency (4 connections), as a multiple of its floor', round(concurrentP99, 2), floor),
        ratioMetric('POST /v2/checks, 1,000 people: API thread CPU per request (1 connection), as a multiple of the floor', round(cpuMsPerRequest, 2), floor),
        { name: 'POST /v2/checks, 1,000 people: p99 latency (1 connection)', value: round(p99, 2), unit: 'ms', note: `p50 ${round(p50, 2)} ms` },
        { name: 'POST /v2/checks, 1,000 people: p99 latency (4 connections)', value: round(concurrentP99, 2), unit: 'ms', note: `p50 ${round(concurrentP50, 2)} ms, ${round(concurrentPerSecond)} requests/s` },
        { name: 'the floor: JSON.parse of the request body + JSON.stringify of the response', value: floor.value, unit: 'ms', note: `best of ${FLOOR_PASSES} before and ${FLOOR_PASSES} after the load` },
        { name: 'POST /v2/checks, 1,000 people: people checked/s (4 connections)', value: Math.round(concurrentPerSecond * 1000), unit: 'people/s' },
        { name: 'POST /v2/checks, 1 person: requests/s (16 connections)', value: Math.round(singlePerSecond), unit: 'requests/s', note: `p99 ${round(percentile(single.latenciesMs, 0.99), 2)} ms` },
      ],
      notes: [
        `list of ${LIST_ENTRIES.toLocaleString('en')} synthetic entries; the 1,000-person body (${Math.round(bigBody.length / 1024)} KiB, answer ${Math.round(responseBody.length / 1024)} KiB) is half list members, half not; ${blocked} blocked`,
        `${REQUESTS} requests per 1,000-person measurement (after ${WARM_UP_REQUESTS} to warm up), ${REQUESTS * 10} single-person requests; the client (http-load.ts) in a worker thread on the same 2-core machine as the server; load average ${loadBefore.toFixed(2)} → ${loadavg()[0].toFixed(2)}; rate limit raised through config`,
        'with 4 connections on 2 cores a request also waits for the others: that ratio is information, the goal is the 1-connection p99',
        'API thread CPU per request: user + system CPU of the thread that runs the API (process.threadCpuUsage) over the 1-connection requests; in the distributed deployment the API runs in this process too',
        DEPLOYMENT === 'distributed'
          ? 'each live check\'s usage event goes to Kafka (infra/local) after the answers of its turn; key and organisation read through the account cache over ClickHouse'
          : 'each live check\'s usage event goes to the embedded event log (a database file, synchronous=FULL) after the answers of its turn, appended by a thread of its own, as npm start does',
      ],
    };
  } finally {
    await close();
  }
};

function round(n: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(n * factor) / factor;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
