import { execFile, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnNpmStart, type StartedProcess } from '../support/embedded-process.ts';

/**
 * Property-based fuzzing of the HTTP API with schemathesis (PyPI, pinned in
 * infra/local/schemathesis.sh, installed into a venv under the local state dir on first use)
 * against `/v2/openapi.json` of a real `npm start` on a free port. It fails on any 5xx and on any
 * response that breaks the document: status codes, content types, headers, bodies against their
 * schemas, bad input that is accepted, 405 + Allow for undeclared methods, ignored auth.
 *
 * Two of schemathesis' checks are off, because the contract decides otherwise:
 * - positive_data_acceptance: requests the schema allows may still be refused on purpose with
 *   422 (a callback URL to a private address, a reused Idempotency-Key, a forged cursor);
 * - use_after_free: a deleted check job stays readable (status `deleted`, counts kept; docs/decisions.md §7).
 *
 * Bounded: FUZZ_MAX_EXAMPLES cases per operation and phase (default 25, about 800 requests: the
 * seed changes every run, so CI runs together cover more than one deep run; docs/deployment.md
 * "CI timing"),
 * one worker (CPython 3.11's parser is not safe for schemathesis' parallel workers). The seed
 * is random unless FUZZ_SEED is set, and printed, so a failure can be replayed.
 */
const REPO = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

let dataDir: string;
let server: StartedProcess;
let st: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  const script = join(REPO, 'infra/local/schemathesis.sh');
  await run('bash', [script, 'install'], { timeout: 300_000 });
  st = (await run('bash', [script, 'path'])).stdout.trim();
  dataDir = mkdtempSync(join(tmpdir(), 'fuzz-'));
  server = await spawnNpmStart(
    {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      // The fuzzer is one client sending as fast as it can; 429 would hide what it looks for.
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      // Short enough for the slow-body and slow-head cases below to end within the test, long
      // enough that a loaded machine never cuts one of schemathesis' requests.
      HTTP_REQUEST_TIMEOUT_MS: '15000',
      HTTP_HEADERS_TIMEOUT_MS: '8000',
    },
    children,
  );
}, 360_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The status of every response the server logged (one `api.request` line each). */
function loggedStatuses(output: string): number[] {
  const statuses: number[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"msg":"api.request"')) continue;
    statuses.push((JSON.parse(line) as { status: number }).status);
  }
  return statuses;
}

describe('API fuzzing (schemathesis against /v2/openapi.json of npm start)', () => {
  it('finds no 5xx and no response that breaks the OpenAPI document', async () => {
    const testKey = /test key: (rl_test_\S+)/.exec(server.output())?.[1];
    expect(testKey).toBeDefined();
    const reportDir = join(dataDir, 'fuzz-report');
    const args = [
      'run', `${server.baseUrl}/v2/openapi.json`,
      '--header', `Authorization: Bearer ${testKey}`,
      '--checks', 'all',
      '--exclude-checks', 'positive_data_acceptance,use_after_free',
      '--phases', 'examples,coverage,fuzzing,stateful',
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', String(SEED),
      '--workers', '1',
      '--no-color',
      '--output-sanitize', 'true',
      '--report', 'junit', '--report-dir', reportDir,
    ];
    // cwd: its caches (.schemathesis, .hypothesis) go with the run's temp dir, not into the repo.
    const outcome = await run(st, args, { cwd: dataDir, timeout: 540_000, maxBuffer: 64 * 1024 * 1024 }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    const cases = Number(/(\d+) generated/.exec(outcome.out)?.[1] ?? 0);
    const statuses = loggedStatuses(server.output());
    const serverErrors = statuses.filter((s) => s >= 500).length;
    // The case count goes to the CI log with the seed (the README's "fuzz run" line).
    process.stdout.write(
      `schemathesis: ${cases} cases, ${statuses.length} requests, ${serverErrors} responses 5xx, seed ${SEED}, exit ${outcome.code}\n`,
    );
    // Its report quotes whole requests; a generated URL can be 16 KiB on one line.
    const report = outcome.out.split('\n').map((line) => line.slice(0, 300)).join('\n');
    expect(outcome.code, report.slice(-20_000)).toBe(0);
    expect(serverErrors).toBe(0);
    // A run that tested little proves little: every operation gets its cases.
    expect(cases).toBeGreaterThanOrEqual(7 * MAX_EXAMPLES);
    expect(statuses.length).toBeGreaterThanOrEqual(cases);
  }, 600_000);

  /**
   * What schemathesis does not generate: text that is not Unicode (lone surrogate escapes in every
   * JSON body and in query strings, bytes that are not UTF-8) and errors Node answers itself
   * (a head over 64 KiB, a head and a body that never finish). Every answer must be below 500 and
   * every error must be the contract's shape with the Request-Id of its response.
   */
  it('lone surrogates, invalid UTF-8, huge heads and slow bodies: 0 responses 5xx, 0 error bodies outside the shape', async () => {
    const testKey = /test key: (rl_test_\S+)/.exec(server.output())?.[1] as string;
    const doc = await (await fetch(`${server.baseUrl}/v2/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
    const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    const posts = Object.entries(doc.paths).filter(([, ops]) => 'post' in ops).map(([path]) => concrete(path));
    const gets = Object.entries(doc.paths).filter(([, ops]) => 'get' in ops).map(([path]) => concrete(path));
    const bodies: Array<string | Buffer> = [
      '{"people":[{"name":"Karen \\ud800 Jensen","address":"\\udc00vej 1, 8000 Aarhus C"}]}',
      '{"people":[{"name":"A"}],"external_ref":"\\ud83d"}',
      '"\\udfff"',
      '{"\\ud800":1}',
      Buffer.from([0x7b, 0x22, 0x70, 0x65, 0x6f, 0x70, 0x6c, 0x65, 0x22, 0x3a, 0x5b, 0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d, 0x5d, 0x7d]),
      Buffer.from([0xed, 0xa0, 0x80]),
    ];
    const answers: Array<{ where: string; status: number; requestId: string | null; body: string }> = [];
    for (const path of posts) {
      for (const [i, body] of bodies.entries()) {
        for (const type of ['application/json', 'application/x-ndjson']) {
          const response = await fetch(`${server.baseUrl}${path}`, {
            method: 'POST', body, headers: { Authorization: `Bearer ${testKey}`, 'Content-Type': type, 'Accept-Language': 'en' },
          });
          answers.push({ where: `POST ${path} ${type} body ${i}`, status: response.status, requestId: response.headers.get('request-id'), body: await response.text() });
        }
      }
    }
    for (const path of gets) {
      const response = await fetch(`${server.baseUrl}${path}?limit=%ED%A0%80&cursor=%FF%FE&q=%F0%28%8C%28`, { headers: { Authorization: `Bearer ${testKey}` } });
      answers.push({ where: `GET ${path} bad query`, status: response.status, requestId: response.headers.get('request-id'), body: await response.text() });
    }
    // Node-level: raw sockets, each ends when the server closes the connection (its own signal).
    const raw = (head: string, trickle: boolean) => new Promise<string>((resolve, reject) => {
      const url = new URL(server.baseUrl);
      const socket = connect({ host: url.hostname, port: Number(url.port) });
      let got = '';
      let timer: NodeJS.Timeout | undefined;
      socket.on('data', (d: Buffer) => { got += d.toString('utf8'); });
      socket.on('error', () => undefined);
      socket.on('close', () => { clearInterval(timer); resolve(got); });
      socket.write(head);
      if (trickle) timer = setInterval(() => socket.writable && socket.write(' '), 300);
      setTimeout(() => { clearInterval(timer); socket.destroy(); reject(new Error(`connection still open: ${head.slice(0, 60)}`)); }, 30_000).unref();
    });
    const nodeLevel = [
      [`GET /v2/check-jobs HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`, false],
      ['GET /v2/check-jobs HTTP/1.1\r\nHost: x\r\n', false],
      [`POST /v2/check-jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testKey}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"people":[`, true],
      ['NOT HTTP\r\n\r\n', false],
    ] as const;
    for (const [head, trickle] of nodeLevel) {
      const got = await raw(head, trickle);
      if (got === '') continue; // cut without an answer: a route had begun answering (nothing 5xx was sent)
      const [top, body = ''] = got.split('\r\n\r\n');
      answers.push({ where: `raw ${head.slice(0, 40)}`, status: Number(top.split(' ')[1]), requestId: /\r\nrequest-id: ([^\r\n]+)/i.exec(top)?.[1] ?? null, body });
    }
    const serverErrors = answers.filter((a) => a.status >= 500);
    const outsideShape = answers.filter((a) => a.status >= 400).filter((a) => {
      try {
        const parsed = JSON.parse(a.body) as { error?: { code?: unknown; message?: unknown; request_id?: unknown } };
        return !(typeof parsed.error?.code === 'string' && typeof parsed.error.message === 'string' && parsed.error.request_id === a.requestId);
      } catch {
        return true;
      }
    });
    process.stdout.write(`hostile inputs: ${answers.length} answers, ${serverErrors.length} responses 5xx, ${outsideShape.length} error bodies outside the shape\n`);
    expect(answers.length).toBeGreaterThan(posts.length * bodies.length);
    expect(serverErrors.map((a) => `${a.where}: ${a.status}`)).toEqual([]);
    expect(outsideShape.map((a) => `${a.where}: ${a.status} ${a.body.slice(0, 200)}`)).toEqual([]);
    // Nothing was taken: none of the lone surrogates made it into a stored job.
    const list = await fetch(`${server.baseUrl}/v2/check-jobs?limit=100`, { headers: { Authorization: `Bearer ${testKey}` } });
    expect(list.status).toBe(200);
    const listBytes = new Uint8Array(await list.arrayBuffer());
    expect(() => JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(listBytes))).not.toThrow();
  }, 300_000);
});
