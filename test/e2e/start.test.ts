import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, spawnNpmStart, type StartedProcess } from '../support/embedded-process.ts';

/**
 * `npm start` end to end: the embedded default on a free port and a fresh DATA_DIR, called over
 * real HTTP with the demo keys it prints, then restarted on the same DATA_DIR.
 */
const ADMIN = join(import.meta.dirname, '../../services/admin/cli.ts');
const run = promisify(execFile);
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'start-'));
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function start(dir = dataDir): Promise<StartedProcess> {
  return spawnNpmStart(
    { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'warn', LIST_REFRESH_SECONDS: '1' },
    children,
  );
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

async function call(baseUrl: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe('npm start (embedded default)', () => {
  it('exits 78 naming the missing variable when only half of the distributed configuration is set', async () => {
    const exitOf = (env: Record<string, string>) => run(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ...env } })
      .then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }));
    expect(await exitOf({ KAFKA_BROKERS: '127.0.0.1:1' })).toEqual({ code: 78, stderr: expect.stringMatching(/needs both KAFKA_BROKERS and CLICKHOUSE_URL \(only KAFKA_BROKERS is set\)/) });
    expect(await exitOf({ CLICKHOUSE_URL: 'http://127.0.0.1:1' })).toEqual({ code: 78, stderr: expect.stringMatching(/only CLICKHOUSE_URL is set/) });
  });

  it('a SIGTERM while it starts (at the demo seed, before the banner) stops it once started: exit 0, nothing killed', async () => {
    // The process's own log line says it is inside its start; the signal's default would kill it
    // there with nothing closed (docs/architecture.md "Processes and configuration").
    const dir = mkdtempSync(join(tmpdir(), 'start-signal-'));
    try {
      const child = spawn(process.execPath, [MAIN], {
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      let signalled = false;
      const onData = (d: Buffer) => {
        output += d.toString();
        if (!signalled && output.includes('"msg":"demo.list_seeded"')) {
          signalled = true;
          child.kill('SIGTERM');
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
      expect(signalled, output).toBe(true);
      expect({ code, signal }, output).toEqual({ code: 0, signal: null });
      expect(output).toContain('"msg":"process.stopped"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('seeds a demo org, keys and list, serves checks over HTTP, and keeps everything across a restart', async () => {
    const first = await start();
    const banner = first.output();
    const testKey = /test key: (rl_test_\S+)/.exec(banner)?.[1];
    const liveKey = /live key: (rl_live_\S+)/.exec(banner)?.[1];
    expect(testKey).toBeDefined();
    expect(liveKey).toBeDefined();
    const liveBody = JSON.parse([...banner.matchAll(/-d '(\{.*\})'/g)][1][1].replaceAll("'\\''", "'"));

    const current = await call(first.baseUrl, '/v2/list-versions/current', liveKey!);
    expect(current.status).toBe(200);
    expect(current.json).toEqual({ id: expect.any(String), source: 'cpr', published_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), activated_at: expect.any(String) });

    const testCheck = await call(first.baseUrl, '/v2/checks', testKey!, { people: [{ name: 'Anne Robinson', address: 'Vestergade 12, 8000 Aarhus C' }] });
    expect(testCheck.status).toBe(200);
    expect(testCheck.json.list_version.id).toBe('00000000-0000-4000-8000-000000000001');
    expect(testCheck.json.results[0]).toMatchObject({ status: 'blocked', match: { level: 5 } });

    const liveCheck = await call(first.baseUrl, '/v2/checks', liveKey!, liveBody);
    expect(liveCheck.status).toBe(200);
    expect(liveCheck.json.list_version).toEqual(current.json);
    expect(liveCheck.json.results[0]).toMatchObject({ status: 'blocked', match: { level: 5 } });

    expect((await call(first.baseUrl, '/v2/checks', 'rl_live_unknownunknownunknownunknown00', liveBody)).status).toBe(401);
    expect(await stop(first.child)).toBe(0);

    const second = await start();
    expect(second.output()).toContain('Existing organisations and keys kept');
    expect(second.output()).not.toMatch(/rl_(live|test)_/);
    expect(second.output()).not.toContain('Seeded');
    const again = await call(second.baseUrl, '/v2/list-versions/current', liveKey!);
    expect(again).toEqual(current);
    const liveAgain = await call(second.baseUrl, '/v2/checks', liveKey!, liveBody);
    expect(liveAgain.json.results[0]).toMatchObject({ status: 'blocked', match: { level: 5 } });

    // The admin tool writes to the same database while the server runs; the server picks the
    // newly activated version up on its next refresh.
    const file = join(dataDir, 'new-list.csv');
    writeFileSync(file, 'name,street,house_number,postal_code,city\nEva Nielsen,Algade,3,4000,Roskilde\n');
    const imported = await run(process.execPath, [ADMIN, 'lists', 'import', '--format', 'csv', '--file', file, '--published-on', '2026-04-01', '--activate', '--json'], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    });
    const newId = JSON.parse(imported.stdout).id as string;
    let seen: { status: number; json: any } = again;
    for (let i = 0; i < 100 && seen.json.id !== newId; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await call(second.baseUrl, '/v2/list-versions/current', liveKey!);
    }
    expect(seen.json).toMatchObject({ id: newId, published_on: '2026-04-01' });
    const newList = await call(second.baseUrl, '/v2/checks', liveKey!, { people: [{ name: 'Eva Nielsen', address: 'Algade 3, 4000 Roskilde' }] });
    expect(newList.json.list_version.id).toBe(newId);
    expect(newList.json.results[0]).toMatchObject({ status: 'blocked', match: { level: 5 } });
    expect(await stop(second.child)).toBe(0);
  }, 120_000);

  it('every live check answered before a SIGTERM is counted once: a burst of 30 checks, stopped after the 10th answer, counted after a restart', async () => {
    // docs/privacy-and-proof.md "When a check's usage is written": usage is written after the
    // answers, and a graceful stop writes what still waits.
    const dir = mkdtempSync(join(tmpdir(), 'start-usage-'));
    try {
      const first = await start(dir);
      const liveKey = /live key: (rl_live_\S+)/.exec(first.output())?.[1];
      expect(liveKey).toBeDefined();
      const body = JSON.stringify({ people: [{ name: 'Anne Robinson', address: 'Vestergade 12, 8000 Aarhus C' }, { name: 'Ole Hansen', address: 'Torvet 1, 4000 Roskilde' }] });
      let answered = 0;
      const stopping: { exit?: Promise<number | null> } = {};
      await Promise.all(Array.from({ length: 30 }, async () => {
        try {
          const response = await fetch(`${first.baseUrl}/v2/checks`, { method: 'POST', headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' }, body });
          await response.arrayBuffer();
          if (response.status !== 200) return;
          answered += 1;
          if (answered === 10) stopping.exit = stop(first.child);
        } catch {
          // Not answered (the server had stopped taking requests): not counted either.
        }
      }));
      expect(answered).toBeGreaterThanOrEqual(10);
      expect(stopping.exit).toBeDefined();
      expect(await stopping.exit).toBe(0);

      // The restarted process's projection records what the first one wrote to usage.events.
      const second = await start(dir);
      const month = new Date().toISOString().slice(0, 7);
      const counted = async () => {
        const { stdout } = await run(process.execPath, [ADMIN, 'usage', '--month', month, '--json'], { env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'warn' } });
        const totals = JSON.parse(stdout) as Array<{ kind: string; count: number; entries: number }>;
        return totals.find((t) => t.kind === 'person_check') ?? { kind: 'person_check', count: 0, entries: 0 };
      };
      const deadline = Date.now() + 90_000;
      let usage = await counted();
      while (usage.entries < answered && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        usage = await counted();
      }
      expect(usage).toMatchObject({ entries: answered, count: answered * 2 });
      expect(await stop(second.child)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
