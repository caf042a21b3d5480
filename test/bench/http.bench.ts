/**
 * The HTTP edge under load: the API on a loopback port (embedded stores, a synthetic list), driven
 * by autocannon from a worker thread. Measures POST /v2/checks with 1,000 people (p50/p99 latency
 * one request at a time, the goal's case, and with 4 concurrent connections) and single-person
 * requests/s. The rate limit is raised for the bench through config.
 * Run alone: `npm exec -- node test/bench/http.bench.ts`.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { issueApiKey } from '../../services/admin/keys.ts';
import { createOrganisation } from '../../services/admin/organisations.ts';
import { buildApp } from '../../services/api/app.ts';
import type { PersonInput } from '../../services/domain/types.ts';
import { createActiveListIndex } from '../../services/registers/lists/active-index.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createEmbeddedAccountStore } from '../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { createEmbeddedIdempotencyStore } from '../../services/platform/store/embedded/idempotency.ts';
import { createEmbeddedListStore } from '../../services/platform/store/embedded/lists.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import type { Bench, BenchSection } from './types.ts';

const LIST_ENTRIES = 200_000;
const SEED = 7;
const DURATION_SECONDS = 10;

interface AutocannonResult {
  latency: { p50: number; p99: number; max: number };
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; it is CommonJS, so require() gives it without a declaration file.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** 1,000 people: half of them on the list (exact copies of list entries), half not. */
function batchOfPeople(): PersonInput[] {
  const members: PersonInput[] = [];
  for (const entry of generateListEntries(500, SEED)) {
    const { previous: _previous, ...person } = entry;
    members.push({ id: `m${members.length}`, ...person });
  }
  return [...members, ...generatePeople(500, SEED)];
}

async function load(url: string, key: string, body: string, connections: number): Promise<AutocannonResult> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
    connections,
    duration: DURATION_SECONDS,
    // The load generator gets its own thread so it does not share the server's event loop.
    workers: 1,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx and ${result.errors} errors`);
  return result;
}

const bench: Bench = async (): Promise<BenchSection> => {
  const db = openEmbeddedDatabase(':memory:');
  const logger = silentLogger();
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
    accounts,
    lists,
    activeIndex,
    idempotency: createEmbeddedIdempotencyStore(db),
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `${address}/v2/checks`;
  try {
    const people = batchOfPeople();
    const bigBody = JSON.stringify({ people });
    // Sanity: the batch is checked and some of it is blocked, so the bench measures real work.
    const probe = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: bigBody });
    const probeBody = (await probe.json()) as { results: Array<{ status: string }> };
    const blocked = probeBody.results.filter((r) => r.status === 'blocked').length;
    if (probe.status !== 200 || probeBody.results.length !== 1000 || blocked === 0) throw new Error(`probe failed: ${probe.status}, ${blocked} blocked`);

    const sequential = await load(url, key, bigBody, 1);
    const concurrent = await load(url, key, bigBody, 4);
    const single = await load(url, key, JSON.stringify({ people: [people[0]] }), 16);

    return {
      title: 'HTTP API (fastify on loopback, embedded stores)',
      metrics: [
        { name: 'POST /v2/checks, 1,000 people: p50 latency (1 connection)', value: sequential.latency.p50, unit: 'ms' },
        { name: 'POST /v2/checks, 1,000 people: p99 latency (1 connection)', value: sequential.latency.p99, unit: 'ms', goal: { op: '<=', value: 100 } },
        { name: 'POST /v2/checks, 1,000 people: p99 latency (4 connections)', value: concurrent.latency.p99, unit: 'ms', note: `p50 ${concurrent.latency.p50} ms, ${round(concurrent.requests.average)} requests/s` },
        { name: 'POST /v2/checks, 1,000 people: people checked/s (4 connections)', value: Math.round(concurrent.requests.average * 1000), unit: 'people/s' },
        { name: 'POST /v2/checks, 1 person: requests/s (16 connections)', value: Math.round(single.requests.average), unit: 'requests/s', note: `p99 ${single.latency.p99} ms` },
      ],
      notes: [
        `list of ${LIST_ENTRIES.toLocaleString('en')} synthetic entries; the 1,000-person body (${Math.round(bigBody.length / 1024)} KiB) is half list members, half not; ${blocked} blocked`,
        `autocannon in a worker thread, ${DURATION_SECONDS} s per measurement, on the same 2-core machine as the server; rate limit raised through config`,
        'every response is checked against its zod schema before it is sent (included in the figures)',
      ],
    };
  } finally {
    await app.close();
    db.close();
  }
};

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
