import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCommand } from '../../services/admin/commands.ts';
import { createSecretBox } from '../../services/ingest/inbound/secrets.ts';
import { loadConfig } from '../../services/platform/config.ts';
import { silentLogger, type Logger } from '../../services/platform/logger.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import { createServiceContext, startInbound, type RunningService } from '../../services/processes.ts';
import { startEmbedded, TEST_ENV, type EmbeddedDeployment, type EmbeddedOptions } from './deployments.ts';
import type SftpClient from 'ssh2-sftp-client';
import { createSftpAccount, type SftpAccount } from './sftp.ts';

/** Settings of the inbound tests: fast polls, a short stability interval. */
export const INBOUND_TEST_ENV = {
  INBOUND_SECRET_KEY: randomBytes(32).toString('base64'),
  SFTP_POLL_MS: '200',
  SFTP_STABLE_MS: '600',
  EMAIL_POLL_MS: '300',
} as const;

/** The organisation the deployment seeded (seedAccountAndList makes exactly one). */
export async function seededOrgId(platform: Platform): Promise<string> {
  const [org] = await platform.accounts.listOrganisations();
  return org.id;
}

/**
 * Adds a drop folder for `orgId` on `account` the way an operator does: the admin command with a
 * key file and the server's public host key file. Returns the folder id.
 */
export async function addDropFolder(platform: Platform, secretKey: string, orgId: string, account: SftpAccount, extra: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'robinson-admin-sftp-'));
  try {
    await writeFile(join(dir, 'id_ed25519'), account.privateKey, { mode: 0o600 });
    await writeFile(join(dir, 'host.pub'), `${account.hostKeyLine}\n`);
    const lines = await runAdminCommand({
      accounts: platform.accounts, lists: platform.lists, keys: platform.keys, logger: silentLogger(),
      inbound: { inbound: platform.inbound, monitors: platform.monitors, secrets: () => createSecretBox(Buffer.from(secretKey, 'base64')) },
    }, 'drop-folders', 'add', [], {
      org: orgId, host: account.host, port: String(account.port), user: account.user, 'key-file': join(dir, 'id_ed25519'),
      'host-key-file': join(dir, 'host.pub'), json: true, ...extra,
    });
    return (JSON.parse(lines[0]) as { id: string }).id;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface InboundEmbedded extends EmbeddedDeployment {
  orgId: string;
  /** Starts an inbound channel on this deployment (as npm start does when configured). */
  startInbound(
    name: 'sftp' | 'email' | 'connectors', env?: Record<string, string>, options?: { clock?: () => Date; logger?: Logger; connectorCa?: string },
  ): Promise<RunningService>;
}

/**
 * The embedded deployment (in this process) with the inbound channels available. `clock` (also
 * the event log's and the projection's) lets a test move time past delete_after.
 */
export async function startInboundEmbedded(
  env: Record<string, string> = {}, clock?: () => Date, options: Pick<EmbeddedOptions, 'workers' | 'jobChunkRows' | 'listEntries'> = {},
): Promise<InboundEmbedded> {
  const deployment = await startEmbedded(null, { env: { ...INBOUND_TEST_ENV, ...env }, ...(clock ? { clock } : {}), ...options });
  const started: RunningService[] = [];
  return {
    ...deployment,
    orgId: await seededOrgId(deployment.platform),
    async startInbound(name, extraEnv = {}, options = {}) {
      const config = loadConfig({ ...TEST_ENV, ...INBOUND_TEST_ENV, PORT: '0', DATA_DIR: deployment.dataDir, ...env, ...extraEnv });
      const context = createServiceContext(deployment.platform, config, options.logger ?? silentLogger(), {
        ...(options.clock ? { inboundClock: options.clock } : {}),
        ...(options.connectorCa ? { connectorCa: options.connectorCa } : {}),
      });
      const service = await startInbound(name, context);
      started.push(service);
      return service;
    },
    async stop() {
      for (const service of started.reverse()) await service.stop();
      await deployment.stop();
    },
  };
}

/** An SFTP drop folder of a fresh account on the embedded deployment, its poller running. */
export interface SftpDropFolder {
  d: InboundEmbedded;
  account: SftpAccount;
  folderId: string;
  /** The customer's own SFTP client, logged in to the account. */
  customer: SftpClient;
  stop(): Promise<void>;
}

/**
 * Starts the deployment, adds one drop folder for a new SFTP account with the options `folder`
 * gives once the deployment runs (e.g. a monitor made through its API), and starts the sftp
 * service. Whatever was made is removed again when a step fails.
 */
export async function startSftpDropFolder(folder: (d: InboundEmbedded) => Promise<Record<string, string>>): Promise<SftpDropFolder> {
  const account = await createSftpAccount();
  let d: InboundEmbedded | undefined;
  try {
    d = await startInboundEmbedded();
    const folderId = await addDropFolder(d.platform, INBOUND_TEST_ENV.INBOUND_SECRET_KEY, d.orgId, account, await folder(d));
    await d.startInbound('sftp');
    const customer = await account.customer();
    const deployment = d;
    return { d, account, folderId, customer, stop: async () => { await deployment.stop(); await account.remove(); } };
  } catch (error) {
    await d?.stop();
    await account.remove();
    throw error;
  }
}
