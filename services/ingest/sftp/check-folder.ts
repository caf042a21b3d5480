import type { DropFolder } from '../../platform/store/inbound-port.ts';
import { connectRemoteFolder, HostKeyMismatchError, SftpConnectError } from './remote-folder.ts';

/** What a drop folder about to be added turned out to be (docs/inbound.md "In the page"). */
export type DropFolderCheck = 'ok' | 'host_key_mismatch' | 'cannot_log_in' | 'no_inbox';

export type CheckDropFolder = (
  folder: Pick<DropFolder, 'host' | 'port' | 'username' | 'auth' | 'host_key_sha256' | 'path'>,
  secret: string,
) => Promise<DropFolderCheck>;

/**
 * Connects once as the poller will: the host key is compared with the pinned one before any
 * credential is sent, then the login, then inbox/ must be there. So a wrong key or password is
 * said when the folder is added, not at its first poll. Other errors (a bug) pass on.
 */
export const checkDropFolder: CheckDropFolder = async (folder, secret) => {
  let remote;
  try {
    remote = await connectRemoteFolder(folder, secret, { readyTimeoutMs: 10_000 });
  } catch (error) {
    if (error instanceof HostKeyMismatchError) return 'host_key_mismatch';
    if (error instanceof SftpConnectError) return 'cannot_log_in';
    throw error;
  }
  try {
    return (await remote.exists('inbox')) ? 'ok' : 'no_inbox';
  } finally {
    await remote.close();
  }
};
