/**
 * The admin CLI on the distributed deployment: with KAFKA_BROKERS and CLICKHOUSE_URL set it writes
 * organisations, keys and list versions to ClickHouse (not DATA_DIR), and an API process
 * (`run-service api`) on the same database serves checks with that key against that list
 * version, picking up a version activated while it runs. Real ClickHouse and Kafka; a database and
 * topic prefix of its own.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListEntry, PersonInput } from '../../services/domain/types.ts';
import { ident, sql } from '../../services/platform/store/clickhouse/sql.ts';
import { embeddedDatabasePath } from '../../services/platform/store/embedded/database.ts';
import { generateCprFile, generateListEntries } from '../../services/synthetic/index.ts';
import { clickhouseOverHttp } from '../support/clickhouse.ts';
import { deleteTopics, RUN_SERVICE } from '../support/deployments.ts';
import { servers, startHint } from '../support/servers.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../services/admin/cli.ts');
const id = randomBytes(5).toString('hex');
const AUTH_CACHE_MS = 500;
let dataDir: string;
let env: Record<string, string>;
let api: ChildProcess | undefined;

beforeAll(async () => {
  const ping = await fetch(new URL('/ping', servers.clickhouseUrl), { signal: AbortSignal.timeout(3000) }).catch((e: Error) => e);
  if (ping instanceof Error || !ping.ok) throw new Error(`ClickHouse does not answer at ${servers.clickhouseUrl}; ${startHint}`);
  dataDir = mkdtempSync(join(tmpdir(), 'admin-cli-distributed-'));
  env = {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    KAFKA_BROKERS: servers.kafkaBrokers.join(','),
    KAFKA_TOPIC_PREFIX: `adm-${id}.`,
    CLICKHOUSE_URL: servers.clickhouseUrl,
    CLICKHOUSE_DATABASE: `robinson_adm_${id}`,
  };
});

afterAll(async () => {
  if (api && api.exitCode === null && api.signalCode === null) api.kill('SIGKILL');
  await deleteTopics(servers.kafkaBrokers, `adm-${id}.`);
  await clickhouseOverHttp(sql`DROP DATABASE IF EXISTS ${ident(`robinson_adm_${id}`)}`, { rows: false }).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

async function adminJson<T>(...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [CLI, ...args, '--json'], { env });
  return JSON.parse(stdout) as T;
}

async function exitOf(args: string[], extraEnv: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ...extraEnv } })
    .then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }));
}

/** `run-service api` on this deployment; resolves with its address once it listens. */
async function startApiProcess(): Promise<{ child: ChildProcess; baseUrl: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [RUN_SERVICE, 'api'], {
    env: { ...env, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', LIST_REFRESH_SECONDS: '1', AUTH_CACHE_MS: String(AUTH_CACHE_MS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  api = child;
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const started = out.split('\n').map((line) => /"msg":"process.started"/.test(line) ? JSON.parse(line) as { address?: string } : null).find(Boolean);
    if (started?.address) return { child, baseUrl: started.address, exited };
    if (child.exitCode !== null) throw new Error(`api exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`api did not start within 60 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function check(baseUrl: string, key: string, person: PersonInput): Promise<{ status: number; json: any }> {
  const response = await fetch(`${baseUrl}/v2/checks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ people: [person] }),
  });
  return { status: response.status, json: await response.json() };
}

/** A list entry as a caller sends it: `Hansen,Anne` becomes `Anne Hansen`. */
function asPerson(entry: ListEntry): PersonInput {
  const [surname, given] = entry.name!.split(',', 2);
  return { name: `${given} ${surname}`, address: `${entry.address}, ${entry.postal_code} ${entry.city}` };
}

describe('admin CLI on ClickHouse (KAFKA_BROKERS and CLICKHOUSE_URL set)', () => {
  it('refuses half of the distributed configuration with 78, naming the missing variable', async () => {
    expect(await exitOf(['orgs', 'list'], { CLICKHOUSE_URL: servers.clickhouseUrl })).toMatchObject({ code: 78, stderr: expect.stringContaining('KAFKA_BROKERS') });
    expect(await exitOf(['orgs', 'list'], { KAFKA_BROKERS: '127.0.0.1:1' })).toMatchObject({ code: 78, stderr: expect.stringContaining('CLICKHOUSE_URL') });
    expect(await exitOf(['orgs', 'list'], { KAFKA_BROKERS: '127.0.0.1:1', CLICKHOUSE_URL: 'not a url' })).toMatchObject({ code: 78, stderr: expect.stringContaining('CLICKHOUSE_URL') });
    expect(existsSync(embeddedDatabasePath(dataDir))).toBe(false);
  });

  it('creates an org, a live key and an active CPR list that an API process on the same database serves', async () => {
    const org = await adminJson<{ id: string }>('orgs', 'create', '--name', 'Distributed A/S', '--stop-level', '1');
    const { key, id: keyId } = await adminJson<{ key: string; id: string }>('keys', 'create', '--org', org.id, '--mode', 'live');
    expect(key).toMatch(/^rl_live_/);

    const listFile = join(dataDir, 'robinson.txt');
    writeFileSync(listFile, generateCprFile(200, 'admin-distributed'));
    const imported = await adminJson<{ id: string; entry_count: number; activated_at: string | null }>('lists', 'import', '--format', 'cpr', '--file', listFile);
    expect(imported).toMatchObject({ entry_count: 200, activated_at: null });
    const activated = await adminJson<{ id: string; activated_at: string | null }>('lists', 'activate', imported.id);
    expect(activated).toMatchObject({ id: imported.id, activated_at: expect.any(String) });
    expect(await adminJson<Array<{ id: string; active: boolean }>>('lists', 'list')).toEqual([expect.objectContaining({ id: imported.id, active: true })]);
    // Everything went to ClickHouse: the CLI never opened the embedded database.
    expect(existsSync(embeddedDatabasePath(dataDir))).toBe(false);

    const started = await startApiProcess();
    const [member] = generateListEntries(1, 'admin-distributed');
    const first = await check(started.baseUrl, key, asPerson(member));
    expect(first.status).toBe(200);
    expect(first.json.list_version.id).toBe(imported.id);
    expect(first.json.results[0]).toMatchObject({ status: 'blocked', match: { level: 5 } });

    // A version activated while the API runs is served after its next refresh (1 s here).
    const secondFile = join(dataDir, 'robinson-2.txt');
    writeFileSync(secondFile, generateCprFile(50, 'admin-distributed-2', '2026-04-01'));
    const second = await adminJson<{ id: string }>('lists', 'import', '--format', 'cpr', '--file', secondFile, '--activate');
    const [newMember] = generateListEntries(1, 'admin-distributed-2');
    let seen = first;
    for (let i = 0; i < 100 && seen.json.list_version?.id !== second.id; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await check(started.baseUrl, key, asPerson(newMember));
    }
    expect(seen.status).toBe(200);
    expect(seen.json.list_version).toMatchObject({ id: second.id, published_on: '2026-04-01' });
    expect(seen.json.results[0]).toMatchObject({ status: 'blocked', match: { level: 5 } });

    // A key revoked with the CLI (another process) is refused within AUTH_CACHE_MS of the command
    // returning (docs/api-decisions.md "Authentication cache"); the wait ends on the answer.
    await adminJson('keys', 'revoke', keyId);
    const revokedAt = Date.now();
    let status: number;
    for (;;) {
      const askedAt = Date.now();
      status = (await check(started.baseUrl, key, asPerson(newMember))).status;
      if (status !== 200 || askedAt - revokedAt > AUTH_CACHE_MS) break;
    }
    expect(status, `refused within ${AUTH_CACHE_MS} ms`).toBe(401);

    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  }, 120_000);
});
