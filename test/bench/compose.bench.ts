/**
 * The 1,000,000-row check job on the docker compose stack (docker-compose.yml + the CI override,
 * two matcher containers; docs/deployment.md) beside the same job on the infra/local distributed
 * deployment (the API in this process, two matcher processes and a projection process on the
 * infra/local Kafka and ClickHouse front), in the same run: the compose figure is given as a
 * multiple of the infra/local one. Same body, same list (seeded into each deployment's ClickHouse
 * by the same function), same chunk size (the intake's default), matchers warmed up by a one-row
 * job first on both.
 *
 * COMPOSE_BENCH_ROWS sets a smaller job (the report says which size ran). Needs the engine and
 * images of infra/local/docker.sh.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CHUNK_ROWS } from '../../services/ingest/jobs/intake.ts';
import { loadConfig } from '../../services/platform/config.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openPlatform } from '../../services/platform/open-platform.ts';
import { generateListEntries, generatePeople } from '../../services/synthetic/index.ts';
import { startComposeStack } from '../support/compose.ts';
import { seedAccountAndList, startDistributed } from '../support/deployments.ts';
import { relativeTo, type Reference } from './reference.ts';
import type { Bench, BenchSection } from './types.ts';

const ROWS = Number(process.env.COMPOSE_BENCH_ROWS ?? 1_000_000);
const LIST_ENTRIES = 200_000;
const SEED = 17;
const DONE_TIMEOUT_MS = Number(process.env.COMPOSE_BENCH_DONE_MINUTES ?? 40) * 60_000;

interface Target {
  baseUrl: string;
  liveKey: string;
}

function jobBody(): Buffer {
  let id = 0;
  const parts: string[] = [];
  for (let batch = 0; id < ROWS; batch++) {
    const people = generatePeople(Math.min(100_000, ROWS - id), `${SEED}-${batch}`);
    parts.push(people.map((p) => JSON.stringify({ ...p, id: `r${id++}` })).join(','));
  }
  return Buffer.from(`{"people":[${parts.join(',')}]}`);
}

async function call(t: Target, method: string, path: string, body?: Buffer | string): Promise<{ status: number; json: any }> {
  const response = await fetch(new URL(path, t.baseUrl), {
    method,
    headers: { Authorization: `Bearer ${t.liveKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

async function runJob(t: Target, body: Buffer | string, rows: number): Promise<number> {
  const started = performance.now();
  const created = await call(t, 'POST', '/v2/check-jobs', body);
  if (created.status !== 202) throw new Error(`POST answered ${created.status}: ${JSON.stringify(created.json)}`);
  const end = Date.now() + DONE_TIMEOUT_MS;
  for (;;) {
    const { json } = await call(t, 'GET', `/v2/check-jobs/${created.json.id}`);
    if (json.status === 'done' && json.processed_count === rows) return performance.now() - started;
    if (json.status === 'failed' || json.status === 'done') throw new Error(`job ended ${json.status} with ${json.processed_count} rows`);
    if (Date.now() > end) throw new Error(`job not done in ${DONE_TIMEOUT_MS} ms (${json.processed_count} of ${rows})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The warm-up (index built), then the job; seconds. */
async function measure(t: Target, body: Buffer): Promise<number> {
  await runJob(t, JSON.stringify({ people: [{ name: 'Anne Hansen', address: 'Vestergade 3, 5000 Odense' }] }), 1);
  return (await runJob(t, body, ROWS)) / 1000;
}

const bench: Bench = async (): Promise<BenchSection> => {
  const listEntries = [...generateListEntries(LIST_ENTRIES, SEED)];
  const body = jobBody();

  const local = await startDistributed(null, { matchers: 2, listEntries, jobChunkRows: DEFAULT_CHUNK_ROWS, env: { PROJECTION_COUNT_INTERVAL_MS: '200' } });
  let localSeconds: number;
  try {
    localSeconds = await measure(local, body);
  } finally {
    await local.stop();
  }

  const stack = await startComposeStack({ matchers: 2 });
  let composeSeconds: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'compose-bench-'));
  try {
    // The same seeding as the infra/local deployment, into the stack's ClickHouse.
    const config = loadConfig({ KAFKA_BROKERS: stack.kafkaBrokers, CLICKHOUSE_URL: stack.clickhouseUrl, CLICKHOUSE_DATABASE: 'robinson', DATA_DIR: dataDir, DEMO_SEED: 'false' });
    const platform = await openPlatform(config, silentLogger(), { clientId: 'compose-bench' });
    let seeded;
    try {
      seeded = await seedAccountAndList(platform, listEntries);
    } finally {
      await platform.close();
    }
    const target = { baseUrl: stack.baseUrl, liveKey: seeded.liveKey };
    // The API container sees the activated version within LIST_REFRESH_SECONDS (1 s here).
    const deadline = Date.now() + 60_000;
    while ((await call(target, 'POST', '/v2/checks', JSON.stringify({ people: [{ name: 'A B', address: 'Vestergade 3, 5000 Odense' }] }))).json?.list_version?.id !== seeded.listVersionId) {
      if (Date.now() > deadline) throw new Error('the API container did not pick up the list version');
      await new Promise((r) => setTimeout(r, 250));
    }
    composeSeconds = await measure(target, body);
  } finally {
    await stack.down();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const reference: Reference = { name: 'infra/local (same run)', value: round(localSeconds), unit: 's' };
  return {
    title: `Compose stack: ${ROWS.toLocaleString('en')}-row check job, two matcher containers, beside infra/local`,
    metrics: [
      { name: `infra/local distributed: ${ROWS.toLocaleString('en')}-row job, submit → done`, value: round(localSeconds), unit: 's' },
      relativeTo({ name: `docker compose (CI override): ${ROWS.toLocaleString('en')}-row job, submit → done`, value: round(composeSeconds), unit: 's' }, reference),
    ],
    notes: [
      `${ROWS.toLocaleString('en')} synthetic people against a synthetic list of ${LIST_ENTRIES.toLocaleString('en')} entries, ${DEFAULT_CHUNK_ROWS} rows per checks.rows message on both`,
      'infra/local: the API in the bench process, two matcher processes and one projection process, the shared infra/local Kafka and ClickHouse front',
      'compose: every service in its own container (host network), its own Kafka and ClickHouse front containers; images of infra/local/docker.sh',
      'both on the same 2 cores (the load average is in the header); the infra/local Kafka and ClickHouse front may also serve other work on the machine while the compose stack has its own: the ratio, not the seconds, is the figure',
      ...(ROWS === 1_000_000 ? [] : [`REDUCED SIZE: ${ROWS.toLocaleString('en')} rows (COMPOSE_BENCH_ROWS), not the 1,000,000 of the goal`]),
    ],
  };
};

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export default bench;

if (import.meta.main) {
  console.log(JSON.stringify(await bench(), null, 2));
}
