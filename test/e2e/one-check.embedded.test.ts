/**
 * One check, every channel on the embedded default (npm start's wiring: the matcher and the
 * projection in worker threads that never refresh an address register, the monitor service, and
 * the inbound channels: an SFTP drop folder on OpenSSH's sshd, the ingest mailbox on Dovecot and
 * Postfix, a connector pulling from an HTTPS export on loopback): the corpus of
 * test/support/one-check-corpus.ts through every channel, each answer equal field for field to
 * POST /v2/checks, without an address register and then with one activated while the deployment
 * runs. The same scenario runs on Kafka + ClickHouse in one-check.distributed.test.ts.
 */
import { rmSync } from 'node:fs';
import type SftpClient from 'ssh2-sftp-client';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { loadConfig } from '../../services/platform/config.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createServiceContext, startInbound, type RunningService } from '../../services/processes.ts';
import { keptLog } from '../support/kept-log.ts';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.ts';
import { startExportServer, type ExportServer } from '../support/connector-server.ts';
import { startEmbedded, TEST_ENV, type EmbeddedDeployment } from '../support/deployments.ts';
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
let deployment: EmbeddedDeployment;
let account: SftpAccount;
let customer: SftpClient;
let mail: { ingest: MailUser; customer: MailUser } | undefined;
let exportServer: ExportServer;
const inbound: RunningService[] = [];
let d: Deployment;
let hooks: OneCheckHooks;

// A refused upload's cause is logged, not answered (and a refused drop-folder file has no job):
// kept to be shown if a channel fails.
const log = keptLog(['api.file_refused', 'sftp.file_refused']);

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  exportServer = await startExportServer(CONNECTOR_AUTH);
  account = await createSftpAccount();
  mail = { ingest: await createMailUser('ingest', 'robinson.test'), customer: await createMailUser('kunde', 'customer.test') };
  deployment = await startEmbedded(receiver, {
    listEntries: CORPUS_LIST, registers: { companies: CORPUS_COMPANIES, directory: CORPUS_DIRECTORY }, workers: true, monitor: true, logger: log.logger,
    env: { ...INBOUND_TEST_ENV, LIST_REFRESH_SECONDS: '1', MONITOR_INTERVAL_MS: '200' },
  });
  const { platform } = deployment;
  const orgId = await seededOrgId(platform);
  const folderId = await addDropFolder(platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, account, { locale: 'da' });
  await runAdminCommand({
    accounts: platform.accounts, lists: platform.lists, keys: platform.keys, logger: silentLogger(),
    inbound: { inbound: platform.inbound, secrets: () => { throw new Error('not needed'); } },
  }, 'senders', 'add', [], { org: orgId, address: mail.customer.address, locale: 'da' });
  const config = loadConfig({
    ...TEST_ENV, ...INBOUND_TEST_ENV, PORT: '0', DATA_DIR: deployment.dataDir,
    IMAP_HOST: servers.imap.host, IMAP_PORT: String(servers.imap.port), IMAP_SECURE: 'false', IMAP_USER: mail.ingest.address, IMAP_PASSWORD: mail.ingest.password,
    SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port),
  });
  const context = createServiceContext(platform, config, log.logger, { connectorCa: exportServer.cert });
  for (const name of ['sftp', 'email', 'connectors'] as const) inbound.push(await startInbound(name, context));
  customer = await account.customer();
  d = { ...deployment, receiver };
  hooks = {
    platform,
    dir: await scratchDir('one-check-embedded'),
    serverLog: log.lines,
    inbound: [
      sftpChannel(platform, folderId, customer),
      emailChannel(platform, mail.customer, mail.ingest),
      connectorChannel(platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, orgId, exportServer),
    ],
  };
}, 180_000);

afterAll(async () => {
  await customer?.end();
  for (const service of inbound.reverse()) await service.stop();
  await deployment?.stop();
  await account?.remove();
  for (const user of [mail?.ingest, mail?.customer]) await user?.remove();
  await exportServer?.close();
  await receiver?.close();
  if (hooks?.dir) rmSync(hooks.dir, { recursive: true, force: true });
}, 60_000);

describe('one check, every channel, on the embedded default', () => {
  it('JSON, NDJSON, upload preview and job, SFTP, email, connector, monitor, sole proprietors and phone-found persons answer as POST /v2/checks, without and then with an address register', async () => {
    await oneCheckEveryChannel(d, hooks);
  }, 600_000);
});
