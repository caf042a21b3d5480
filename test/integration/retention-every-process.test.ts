/**
 * Every sweep of the retention table (services/platform/retention.ts, docs/privacy-and-proof.md
 * "Every store") is run by some process: each service is started as `npm run service -- <name>`
 * starts it (services/processes.ts startService, here on the embedded platform, the inbound ones
 * against the real SSH and IMAP servers on loopback), and the sweeps it says it runs on its
 * retention timer together cover the table. A store whose sweep nobody registers would keep its
 * people for ever; this test fails first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/platform/config.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { openPlatform, type Platform } from '../../services/platform/open-platform.ts';
import { RETENTION_STORES, type RetentionSweepName } from '../../services/platform/retention.ts';
import { createServiceContext, SERVICE_NAMES, startService, type RunningService, type ServiceName } from '../../services/processes.ts';
import { seedAccountAndList, TEST_ENV } from '../support/deployments.ts';
import { INBOUND_TEST_ENV } from '../support/inbound.ts';
import { createMailUser, type MailUser } from '../support/mail.ts';
import { servers } from '../support/servers.ts';

describe('retention: every sweep of the table is run by some process', () => {
  let dataDir: string;
  let platform: Platform;
  let ingest: MailUser;
  const running: RunningService[] = [];
  const sweepsOf = new Map<ServiceName, readonly RetentionSweepName[]>();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'retention-processes-'));
    ingest = await createMailUser('ingest', 'robinson.test');
    const config = loadConfig({
      ...TEST_ENV, ...INBOUND_TEST_ENV, PORT: '0', DATA_DIR: dataDir,
      IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false',
      IMAP_USER: ingest.address, IMAP_PASSWORD: ingest.password, SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
    });
    platform = await openPlatform(config, silentLogger());
    await seedAccountAndList(platform);
    const context = createServiceContext(platform, config, silentLogger());
    for (const name of SERVICE_NAMES) {
      const service = await startService(name, context);
      running.push(service);
      sweepsOf.set(name, service.retention ?? []);
    }
  }, 60_000);

  afterAll(async () => {
    for (const service of running.reverse()) await service.stop();
    await platform?.close();
    await ingest?.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the sweeps the processes run cover every sweep the table names', () => {
    const run = new Set([...sweepsOf.values()].flat());
    const named = [...new Set(RETENTION_STORES.flatMap((entry) => (entry.sweep ? [entry.sweep] : [])))];
    expect(named.length).toBeGreaterThanOrEqual(6);
    expect(named.filter((sweep) => !run.has(sweep))).toEqual([]);
  });

  it('each process runs the sweeps of the stores it owns, each once', () => {
    expect(Object.fromEntries(sweepsOf)).toEqual({
      api: ['spool-stale', 'draft-files', 'idempotency-expired'],
      matcher: [],
      projection: ['job-purge'],
      sftp: ['spool-stale', 'inbound-delete-after'],
      email: ['spool-stale', 'inbound-delete-after'],
      connectors: ['spool-stale'],
      monitor: ['monitor-expired'],
    });
  });
});
