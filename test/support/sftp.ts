import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SftpClient from 'ssh2-sftp-client';
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

/**
 * A fresh ed25519 key pair (OpenSSH format) made by OpenSSH's own ssh-keygen, as a customer makes
 * one. Not ssh2's utils.generateKeyPairSync: about one key in 300 it makes cannot be read back
 * ("Malformed OpenSSH private key": it strips a leading zero byte of the public key,
 * github.com/mscdex/ssh2/issues/1513), which failed an SFTP test of a CI run.
 */
export async function generateSshKeyPair(comment: string): Promise<{ private: string; public: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'robinson-sftp-keygen-'));
  const path = join(dir, 'key');
  try {
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path]).catch((error: unknown) => {
      throw new Error(`ssh-keygen made no key (${(error as Error).message}); ${startHint}`);
    });
    return { private: await readFile(path, 'utf8'), public: (await readFile(`${path}.pub`, 'utf8')).trim() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function createSftpAccount(): Promise<SftpAccount> {
  const user = `rls_${randomBytes(5).toString('hex')}`;
  const keys = await generateSshKeyPair(user);
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


/**
 * Drops a file into a folder the way careful SFTP clients do (WinSCP's `.filepart`): written whole
 * under a hidden name, then renamed. A hidden name is never claimed (services/ingest/sftp/names.ts),
 * so the rename is the signal that the file is complete. A plain `put` into inbox/ instead relies
 * on the poller's stability interval (docs/decisions.md §15), 600 ms in the tests: a writer
 * starved of CPU for longer than that between opening the file and writing it has its empty or
 * half-written file claimed and refused, which a test of something else must not depend on.
 */
export async function dropFile(client: SftpClient, bytes: Buffer, path: string): Promise<void> {
  const slash = path.lastIndexOf('/');
  const hidden = `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.part`;
  await client.put(bytes, hidden);
  await client.rename(hidden, path);
}

/** Lists `folder` until exactly `names` are there (the files' arrival is the signal), 60 s at most. */
export async function waitForNames(client: SftpClient, folder: string, names: string[]): Promise<string[]> {
  const want = [...names].sort();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = await namesIn(client, folder);
    if (JSON.stringify(seen) === JSON.stringify(want)) return seen;
    if (Date.now() > deadline) throw new Error(`${folder} holds ${JSON.stringify(seen)}, expected ${JSON.stringify(want)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
