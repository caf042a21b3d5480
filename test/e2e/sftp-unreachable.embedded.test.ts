import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { createIngestFileJobs } from '../../services/ingest/inbound/ingest-file-jobs.ts';
import { createMonitorContactsFeed } from '../../services/ingest/inbound/monitor-contacts.ts';
import { createSecretBox } from '../../services/ingest/inbound/secrets.ts';
import { createSftpPoller, type SftpPoller } from '../../services/ingest/sftp/poller.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createPipelineEvents } from '../../services/pipeline/events.ts';
import { addDropFolder, INBOUND_TEST_ENV, startInboundEmbedded, type InboundEmbedded } from '../support/inbound.ts';
import { createSftpAccount, namesIn, type SftpAccount } from '../support/sftp.ts';
import { servers } from '../support/servers.ts';
import { openTcpGate, type TcpGate } from '../support/tcp-gate.ts';

/**
 * Many organisations, one poller: a drop folder whose server hangs, then drops every
 * connection, does not hold up another organisation's folder; its error is visible per folder in
 * `drop-folders list`, the wait before its next visit grows (5 s, 10 s, 20 s, …), and its file is
 * picked up once the server answers again. The misbehaving server is the real OpenSSH behind a
 * loopback TCP gate (test/support/tcp-gate.ts) whose connection count shows each visit attempt.
 * The poller runs on the embedded deployment's stores and file ingest, driven round by round
 * (`pollOnce`) on a clock the test can move forward, so backoffs of seconds take no waiting.
 */
describe('a hung or refusing SFTP server (embedded deployment, OpenSSH behind a TCP gate)', () => {
  let d: InboundEmbedded;
  let healthy: SftpAccount;
  let broken: SftpAccount;
  let gate: TcpGate;
  let healthyClient: SftpClient;
  let brokenClient: SftpClient;
  let healthyId: string;
  let brokenId: string;
  let poller: SftpPoller;
  let workDir: string;
  let offsetMs = 0;
  const VISIT_TIMEOUT_MS = 4000;

  beforeAll(async () => {
    healthy = await createSftpAccount();
    broken = await createSftpAccount();
    gate = await openTcpGate(servers.sftp);
    d = await startInboundEmbedded();
    healthyId = await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, healthy, { locale: 'en' });
    brokenId = await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, broken, { locale: 'en', port: String(gate.port) });
    healthyClient = await healthy.customer();
    brokenClient = await broken.customer();
    workDir = await mkdtemp(join(tmpdir(), 'robinson-sftp-work-'));
    const { platform } = d;
    poller = createSftpPoller({
      inbound: platform.inbound, accounts: platform.accounts, logger: silentLogger(), workDir,
      fileJobs: createIngestFileJobs({
        jobs: platform.jobs, lists: platform.lists, addresses: platform.addresses, logger: silentLogger(),
        events: createPipelineEvents({ log: platform.log, registry: platform.registry, topicPrefix: platform.topicPrefix }),
        spoolDir: join(d.dataDir, 'spool'), draftDir: join(d.dataDir, 'uploads'),
      }),
      monitorFeed: createMonitorContactsFeed(platform.monitors),
      secrets: createSecretBox(Buffer.from(INBOUND_TEST_ENV.INBOUND_SECRET_KEY, 'base64')),
      pollMs: 60_000, stableMs: 300, concurrency: 2, visitTimeoutMs: VISIT_TIMEOUT_MS,
      now: () => new Date(Date.now() + offsetMs),
    });
  }, 60_000);
  afterAll(async () => {
    await poller?.stop();
    await d?.stop();
    await gate?.close();
    for (const account of [healthy, broken]) await account?.remove();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  interface ListedFolder { id: string; last_ok_at: string | null; last_error: string | null; last_error_at: string | null; failures: number }

  /** What the operator sees: `drop-folders list --json`. */
  async function listed(id: string): Promise<ListedFolder> {
    const [line] = await runAdminCommand({
      accounts: d.platform.accounts, lists: d.platform.lists, keys: d.platform.keys, logger: silentLogger(),
      inbound: { inbound: d.platform.inbound, secrets: () => { throw new Error('not needed'); } },
    }, 'drop-folders', 'list', [], { json: true });
    const found = (JSON.parse(line) as ListedFolder[]).find((f) => f.id === id);
    if (!found) throw new Error(`folder ${id} not listed`);
    return found;
  }

  /** Rounds of the poller until `name` is in the client's outbox/ (60 s at most). */
  async function pollUntilResult(client: SftpClient, name: string): Promise<number> {
    const deadline = Date.now() + 60_000;
    let rounds = 0;
    while (!(await namesIn(client, '/outbox')).includes(name)) {
      if (Date.now() > deadline) throw new Error(`no ${name} in outbox/ within 60 s`);
      await poller.pollOnce();
      rounds++;
      await new Promise((r) => setTimeout(r, 100));
    }
    return rounds;
  }

  /** The poller's documented wait after `failures` failures in a row: 5 s doubling, at most 10 min. */
  const backoffAfter = (failures: number) => Math.min(5_000 * 2 ** (failures - 1), 600_000);

  const csv = (name: string) => Buffer.from(`Navn;Adresse\r\n${name};Nørregade 7, 5000 Odense\r\n`, 'utf8');

  it('a hung server times out its own visit only; the other folder delivers meanwhile', async () => {
    gate.setMode('silent');
    await healthyClient.put(csv('Anne Hansen'), '/inbox/a.csv');
    await brokenClient.put(csv('Bo Jensen'), '/inbox/b.csv');

    const started = Date.now();
    await poller.pollOnce();
    // Both folders were visited in one round; the hung one was given up after the visit limit.
    expect(gate.accepted, 'the hung server got a connection').toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(VISIT_TIMEOUT_MS - 50);
    const hung = await listed(brokenId);
    expect(hung).toMatchObject({ failures: 1, last_ok_at: null });
    expect(hung.last_error).toMatch(/^VisitTimeoutError: /);

    // The healthy folder goes on, round after round, while the hung one waits out its backoff
    // (a slow machine may see one more visit of it after 5 s: each one is a recorded failure).
    const rounds = await pollUntilResult(healthyClient, 'a.result.csv');
    expect(rounds).toBeGreaterThan(gate.accepted);
    expect((await listed(brokenId)).failures).toBe(gate.accepted);
    expect(await listed(healthyId)).toMatchObject({ failures: 0, last_error: null });
    expect(await namesIn(brokenClient, '/inbox')).toEqual(['b.csv']);
  }, 90_000);

  it('a refusing server is retried after a wait that doubles each time (5 s, 10 s, …), never sooner; its error is listed', async () => {
    gate.setMode('reset');
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = await listed(brokenId);
      const expectedDelay = backoffAfter(before.failures);
      seen.push(expectedDelay);
      const failedAt = new Date(before.last_error_at as string).getTime();
      const attempts = gate.accepted;
      // Just before the wait is over: no visit.
      offsetMs = failedAt + expectedDelay - 1_500 - Date.now();
      await poller.pollOnce();
      expect(gate.accepted, `no visit before ${expectedDelay} ms`).toBe(attempts);
      // Past it: one visit, refused, and the count of failures in a row grows.
      offsetMs = failedAt + expectedDelay + 10 - Date.now();
      await poller.pollOnce();
      expect(gate.accepted, `a visit after ${expectedDelay} ms`).toBe(attempts + 1);
      const after = await listed(brokenId);
      expect(after.failures).toBe(before.failures + 1);
      expect(after.last_error).toMatch(/^SftpConnectError: /);
    }
    expect(seen.slice(1)).toEqual(seen.slice(0, -1).map((ms) => ms * 2));
    expect(seen[0]).toBeGreaterThanOrEqual(5_000);
    // Meanwhile the other organisation's folder still takes files.
    await healthyClient.put(csv('Carl Nielsen'), '/inbox/c.csv');
    await pollUntilResult(healthyClient, 'c.result.csv');
    expect(await listed(healthyId)).toMatchObject({ failures: 0 });
    expect(await namesIn(brokenClient, '/inbox')).toEqual(['b.csv']);
  }, 120_000);

  it('recovers once the server answers again: the waiting file is claimed and its result delivered', async () => {
    gate.setMode('forward');
    const before = await listed(brokenId);
    offsetMs = new Date(before.last_error_at as string).getTime() + backoffAfter(before.failures) + 10 - Date.now();
    await pollUntilResult(brokenClient, 'b.result.csv');
    expect(await namesIn(brokenClient, '/archive')).toEqual(['b.csv']);
    const recovered = await listed(brokenId);
    expect(recovered.failures).toBe(0);
    expect(new Date(recovered.last_ok_at as string).getTime()).toBeGreaterThan(new Date(recovered.last_error_at as string).getTime());
  }, 90_000);
});
