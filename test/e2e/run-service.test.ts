/**
 * `npm run service -- <name>` refuses what it cannot run, with the documented exit codes, before
 * touching any server; and a started service stops with 0 on SIGTERM.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { deleteTopics, RUN_SERVICE } from '../support/deployments.ts';
import { servers } from '../support/servers.ts';

const run = promisify(execFile);

async function exitOf(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [RUN_SERVICE, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    return { code: 0, stderr: '' };
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

describe('npm run service', () => {
  it('exits 2 naming an unknown service, and without a name', async () => {
    expect(await exitOf(['matchr'], {})).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown: matchr/) });
    expect((await exitOf([], {})).code).toBe(2);
  });

  it('exits 78 without the distributed configuration, or with half of it', async () => {
    expect(await exitOf(['matcher'], {})).toMatchObject({ code: 78, stderr: expect.stringMatching(/KAFKA_BROKERS and CLICKHOUSE_URL/) });
    expect(await exitOf(['matcher'], { KAFKA_BROKERS: '127.0.0.1:1' })).toMatchObject({ code: 78, stderr: expect.stringMatching(/CLICKHOUSE_URL/) });
    expect(await exitOf(['projection'], { KAFKA_BROKERS: 'x:1', CLICKHOUSE_URL: 'not a url' })).toMatchObject({ code: 78 });
  });

  it('runs a matcher on Kafka + ClickHouse and stops it with 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'run-service-'));
    const suffix = Math.random().toString(36).slice(2, 10);
    const child = spawn(process.execPath, [RUN_SERVICE, 'matcher'], {
      env: {
        ...process.env, LOG_LEVEL: 'info', DATA_DIR: dataDir, KAFKA_BROKERS: servers.kafkaBrokers.join(','),
        KAFKA_TOPIC_PREFIX: `rs-${suffix}.`, CLICKHOUSE_URL: servers.clickhouseUrl, CLICKHOUSE_DATABASE: `robinson_rs_${suffix}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { out += b.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!out.includes('process.started')) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`matcher did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('"msg":"process.stopped"');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await deleteTopics(servers.kafkaBrokers, `rs-${suffix}.`);
      await fetch(new URL('/', servers.clickhouseUrl), { method: 'POST', body: `DROP DATABASE IF EXISTS robinson_rs_${suffix}` }).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
