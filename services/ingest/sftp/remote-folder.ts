import { posix } from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import type { DropFolder } from '../../platform/store/inbound-port.ts';
import { hostKeyFingerprint } from './host-key.ts';
import { ClassifiedError, PermanentError } from '../../platform/errors.ts';

export { fingerprintOfPublicKeyLine, hostKeyFingerprint } from './host-key.ts';

/**
 * One organisation's drop folder on an SFTP server (docs/decisions.md §15): the four folders inbox/,
 * outbox/, archive/, failed/ below `DropFolder.path`. Paths given to the methods are relative to
 * that directory (e.g. `inbox/list.csv`).
 *
 * Promises: the server's host key is checked against the pinned SHA-256 fingerprint before any
 * credential is sent (a mismatch is HostKeyMismatchError and nothing is authenticated);
 * `rename` fails when the target exists (the claim relies on that: plain SFTP rename never
 * replaces); `upload` writes under a temporary name and replaces the target only when complete,
 * so a reader never sees half a file. Does not promise: a time limit per operation (the poller
 * bounds a whole folder visit).
 */
export interface RemoteEntry {
  name: string;
  size: number;
  /** Modification time in ms (SFTP gives whole seconds). */
  mtimeMs: number;
}

export type DropSubfolder = 'inbox' | 'outbox' | 'archive' | 'failed';

export interface RemoteFolder {
  /** Regular files of a subfolder. */
  list(folder: DropSubfolder): Promise<RemoteEntry[]>;
  rename(from: string, to: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  download(path: string, localPath: string): Promise<void>;
  upload(localPath: string, path: string): Promise<void>;
  /** Deletes a file; a missing file is not an error. */
  remove(path: string): Promise<void>;
  close(): Promise<void>;
}

export class HostKeyMismatchError extends PermanentError {
  constructor() {
    super('the SFTP server presented a host key other than the pinned one');
    this.name = 'HostKeyMismatchError';
  }
}

/** Connecting or logging in failed (refused, timed out, authentication); the message is ssh2's, which holds no secret. */
export class SftpConnectError extends ClassifiedError {
  constructor(message: string) {
    super(message);
    this.name = 'SftpConnectError';
  }
}

/** Where `upload` writes before the rename (a crash may leave it: delete it with the target). */
export function partialUploadName(path: string): string {
  return posix.join(posix.dirname(path), `.${posix.basename(path)}.part`);
}

export async function connectRemoteFolder(
  folder: Pick<DropFolder, 'host' | 'port' | 'username' | 'auth' | 'host_key_sha256' | 'path'>,
  secret: string,
  options: { readyTimeoutMs?: number } = {},
): Promise<RemoteFolder> {
  const client = new SftpClient('drop-folder');
  let keyMismatch = false;
  try {
    await client.connect({
      host: folder.host,
      port: folder.port,
      username: folder.username,
      ...(folder.auth === 'key' ? { privateKey: secret } : { password: secret }),
      readyTimeout: options.readyTimeoutMs ?? 10_000,
      retries: 0,
      hostVerifier: (key: Buffer) => {
        keyMismatch = hostKeyFingerprint(key) !== folder.host_key_sha256;
        return !keyMismatch;
      },
    });
  } catch (error) {
    await client.end().catch(() => undefined);
    if (keyMismatch) throw new HostKeyMismatchError();
    throw new SftpConnectError((error as Error).message);
  }
  // ssh2 leaves Nagle's algorithm on: every request then waited ~45 ms for a delayed ACK, which a
  // visit of many small round trips paid each time (docs/inbound.md "Bench").
  (client as unknown as { client: { setNoDelay(on: boolean): void } }).client.setNoDelay(true);
  const at = (path: string) => posix.join(folder.path, path);
  return {
    async list(sub) {
      const entries = await client.list(at(sub));
      return entries.filter((e) => e.type === '-').map((e) => ({ name: e.name, size: e.size, mtimeMs: e.modifyTime }));
    },
    async rename(from, to) {
      await client.rename(at(from), at(to));
    },
    async exists(path) {
      return (await client.exists(at(path))) !== false;
    },
    async download(path, localPath) {
      await client.fastGet(at(path), localPath);
    },
    async upload(localPath, path) {
      const target = at(path);
      const temporary = at(partialUploadName(path));
      await client.fastPut(localPath, temporary);
      // posix-rename@openssh.com replaces the target atomically (plain rename would refuse).
      await client.posixRename(temporary, target);
    },
    async remove(path) {
      await client.delete(at(path), true);
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}
