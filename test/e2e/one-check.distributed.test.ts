/**
 * One check, every channel on Kafka + ClickHouse: the API in the test process; two matchers, the
 * projection, the monitor service and the inbound channels (SFTP, email, connectors) as processes
 * of their own (`node services/run-service.ts`), all started before the address register is
 * activated and never told of it. The scenario of one-check.embedded.test.ts: every channel's
 * answer equal field for field to POST /v2/checks, without an address register and then with
 * one. Fails, never skips, without the servers.
 */
import { rmSync } from 'node:fs';
import type SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { keptLog } from '../support/kept-log.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startExportServer, type ExportServer } from '../support/connector-server.ts';
import { startDistributed, type DistributedDeployment } from '../support/deployments.ts';
import { scratchDir } from '../support/files/spreadsheets.ts';
import { addDropFolder, INBOUND_TEST_ENV, seededOrgId } from '../support/inbound.ts';
import { createMailUser, type MailUser } from '../support/mail.ts';
import { CORPUS_COMPANIES, CORPUS_DIRECTORY, CORPUS_LIST } from '../support/one-check-corpus.ts';
import { servers } from '../support/servers.ts';
import { createSftpAccount, type SftpAccount } from '../support/sftp.ts';
import { CONNECTOR_AUTH } from './connector-scenario.ts';
import { connectorChannel, emailChannel, oneCheckEveryChannel, sftpChannel, type OneCheckHooks } from './one-check-scenario.ts';
import type { Deployment } from './pipeline-scenarios.ts';

let receiver: CallbackReceiver;
let deployment: DistributedDeployment;
let account: SftpAccount;
let customer: SftpClient;
let mail: { ingest: MailUser; customer: MailUser } | undefined;
let exportServer: ExportServer;
let d: Deployment;
let hooks: OneCheckHooks;
// The API runs in this process: a refused upload's cause is shown when the test fails.
const log = keptLog(['api.file_refused']);

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  exportServer = await startExportServer(CONNECTOR_AUTH);
  account = await createSftpAccount();
  mail = { ingest: await createMailUser('ingest', 'robinson.test'), customer: await createMailUser('kunde', 'customer.test') };
  deployment = await startDistributed(receiver, {
    matchers: 2, logger: log.logger, listEntries: CORPUS_LIST, registers: { companies: CORPUS_COMPANIES, directory: CORPUS_DIRECTORY },
    env: { ...INBOUND_TEST_ENV, LIST_REFRESH_SECONDS: '1', MONITOR_INTERVAL_MS: '200' },
  });
  const { platform } = deployment;
  const orgId = await seededOrgId(platform);
  const folderId = await addDropFolder(platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, account, { locale: 'da' });
  await runAdminCommand({
    accounts: platform.accounts, lists: platform.lists, keys: platform.keys, logger: silentLogger(),
    inbound: { inbound: platform.inbound, secrets: () => { throw new Error('not needed'); } },
  }, 'senders', 'add', [], { org: orgId, address: mail.customer.address, locale: 'da' });
  await deployment.spawnService('monitor');
  await deployment.spawnService('sftp');
  await deployment.spawnService('email', {
    IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false', IMAP_USER: mail.ingest.address, IMAP_PASSWORD: mail.ingest.password,
    SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
  });
  await deployment.spawnService('connectors', { NODE_EXTRA_CA_CERTS: exportServer.certFile });
  customer = await account.customer();
  d = { ...deployment, receiver };
  hooks = {
    platform,
    serverLog: log.lines,
    dir: await scratchDir('one-check-distributed'),
    inbound: [
      sftpChannel(platform, folderId, customer),
      emailChannel(platform, mail.customer, mail.ingest),
      connectorChannel(platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, exportServer),
    ],
  };
}, 240_000);

afterAll(async () => {
  await customer?.end();
  await deployment?.stop();
  await account?.remove();
  for (const user of [mail?.ingest, mail?.customer]) await user?.remove();
  await exportServer?.close();
  await receiver?.close();
  if (hooks?.dir) rmSync(hooks.dir, { recursive: true, force: true });
}, 60_000);

describe('one check, every channel, on Kafka + ClickHouse', () => {
  it('JSON, NDJSON, upload preview and job, SFTP, email, connector, monitor, sole proprietors and phone-found persons answer as POST /v2/checks, without and then with an address register', async () => {
    await oneCheckEveryChannel(d, hooks);
  }, 600_000);
});
