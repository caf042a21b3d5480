import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SftpClient from 'ssh2-sftp-client';
import ssh2 from 'ssh2';

const { utils } = ssh2;
import { fingerprintOfPublicKeyLine } from '../../services/ingest/sftp/remote-folder.ts';
import { servers, startHint } from './servers.ts';

const run = promisify(execFile);
const SSHD_SCRIPT = new URL('../../infra/local/sshd.sh', import.meta.url).pathname;
export const SFTP_ROOT = process.env.SFTP_ROOT ?? '/srv/robinson-sftp';

/**
 * A chrooted account of its own on the test sshd (infra/local/sshd.sh add-account), with a fresh
 * ed25519 key: what an organisation gets on the service's own SFTP server. `localDir` is the
 * chroot on this machine (root-owned), for assertions a customer could not make. Throws, never
 * skips, when the server is missing.
 */
export interface SftpAccount {
  user: string;
  privateKey: string;
  publicKey: string;
  hostKeySha256: string;
  /** The server's public host key line (what ssh-keyscan gives an operator). */
  hostKeyLine: string;
  host: string;
  port: number;
  localDir: string;
  /** An SFTP client logged in as the customer (the test's "customer"). */
  customer(): Promise<SftpClient>;
  remove(): Promise<void>;
}

export async function createSftpAccount(): Promise<SftpAccount> {
  const user = `rls_${randomBytes(5).toString('hex')}`;
  const keys = utils.generateKeyPairSync('ed25519', { comment: user });
  const dir = await mkdtemp(join(tmpdir(), 'robinson-sftp-key-'));
  const pubPath = join(dir, 'key.pub');
  await writeFile(pubPath, `${keys.public}\n`);
  try {
    await run('bash', [SSHD_SCRIPT, 'start']);
    await run('bash', [SSHD_SCRIPT, 'add-account', user, pubPath]);
  } catch (error) {
    throw new Error(`the test SFTP server is not usable (${(error as Error).message}); ${startHint}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const hostKeyLine = (await run('bash', [SSHD_SCRIPT, 'host-key'])).stdout;
  const clients: SftpClient[] = [];
  return {
    user, privateKey: keys.private, publicKey: keys.public,
    hostKeySha256: fingerprintOfPublicKeyLine(hostKeyLine),
    hostKeyLine: hostKeyLine.trim(),
    host: servers.sftp.host, port: servers.sftp.port,
    localDir: join(SFTP_ROOT, user),
    async customer() {
      const client = new SftpClient('customer');
      await client.connect({ host: servers.sftp.host, port: servers.sftp.port, username: user, privateKey: keys.private, readyTimeout: 10_000 });
      clients.push(client);
      return client;
    },
    async remove() {
      for (const client of clients) await client.end().catch(() => undefined);
      await run('bash', [SSHD_SCRIPT, 'remove-account', user]);
    },
  };
}

/** The names in a folder of the account, as the customer sees them. */
export async function namesIn(client: SftpClient, folder: string): Promise<string[]> {
  return (await client.list(folder)).map((e) => e.name).sort();
}

export async function readRemote(client: SftpClient, path: string): Promise<Buffer> {
  return (await client.get(path)) as Buffer;
}

