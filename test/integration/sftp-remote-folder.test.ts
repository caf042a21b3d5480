import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRemoteFolder, HostKeyMismatchError, type RemoteFolder } from '../../services/ingest/sftp/remote-folder.ts';
import { createSftpAccount, generateSshKeyPair, namesIn, type SftpAccount } from '../support/sftp.ts';

/** The SFTP transport against OpenSSH's sshd (infra/local/sshd.sh): a chrooted account of its own. */
describe('remote drop folder on OpenSSH (internal-sftp, chrooted account)', () => {
  let account: SftpAccount;
  let remote: RemoteFolder;
  let work: string;
  const folderOf = (a: SftpAccount) => ({ host: a.host, port: a.port, username: a.user, auth: 'key' as const, host_key_sha256: a.hostKeySha256, path: '/' });

  beforeAll(async () => {
    account = await createSftpAccount();
    remote = await connectRemoteFolder(folderOf(account), account.privateKey);
    work = await mkdtemp(join(tmpdir(), 'robinson-sftp-test-'));
  });
  afterAll(async () => {
    await remote?.close();
    await account?.remove();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('sees what the customer dropped, with size and mtime; the chroot shows only the four folders', async () => {
    const customer = await account.customer();
    expect(await namesIn(customer, '/')).toEqual(['archive', 'failed', 'inbox', 'outbox']);
    await customer.put(Buffer.from('navn;adresse\n'), '/inbox/list.csv');
    const [entry] = await remote.list('inbox');
    expect(entry).toMatchObject({ name: 'list.csv', size: 13 });
    expect(Math.abs(entry.mtimeMs - Date.now())).toBeLessThan(120_000);
  });

  it('rename never replaces an existing file (the claim relies on it)', async () => {
    const customer = await account.customer();
    await customer.put(Buffer.from('a'), '/inbox/a.csv');
    await customer.put(Buffer.from('b'), '/inbox/b.csv');
    await expect(remote.rename('inbox/a.csv', 'inbox/b.csv')).rejects.toThrow();
    await remote.rename('inbox/a.csv', 'inbox/a.csv.claimed');
    await expect(remote.rename('inbox/a.csv', 'inbox/a2.csv')).rejects.toThrow();
    expect(await remote.exists('inbox/a.csv.claimed')).toBe(true);
    expect(await remote.exists('inbox/a.csv')).toBe(false);
  });

  it('uploads under a hidden name and replaces the target whole; download and remove (missing is fine)', async () => {
    const local = join(work, 'r.csv');
    await writeFile(local, 'first');
    await remote.upload(local, 'outbox/r.result.csv');
    await writeFile(local, 'second version');
    await remote.upload(local, 'outbox/r.result.csv');
    const customer = await account.customer();
    expect(await namesIn(customer, '/outbox')).toEqual(['r.result.csv']);
    await remote.download('outbox/r.result.csv', join(work, 'back.csv'));
    expect(await readFile(join(work, 'back.csv'), 'utf8')).toBe('second version');
    await remote.remove('outbox/r.result.csv');
    await remote.remove('outbox/r.result.csv');
    expect(await namesIn(customer, '/outbox')).toEqual([]);
  });

  it('refuses a server whose host key is not the pinned one', async () => {
    const wrong = { ...folderOf(account), host_key_sha256: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
    await expect(connectRemoteFolder(wrong, account.privateKey)).rejects.toBeInstanceOf(HostKeyMismatchError);
  });

  it('refuses a key the account does not hold', async () => {
    const other = (await generateSshKeyPair('other')).private;
    await expect(connectRemoteFolder(folderOf(account), other)).rejects.toMatchObject({ name: 'SftpConnectError', message: expect.stringMatching(/authentication methods failed/) });
  });
});
