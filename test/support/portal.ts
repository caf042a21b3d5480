import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openImap, textBodyOf, waitForMessages, type MailUser } from './mail.ts';
import { servers } from './servers.ts';

const run = promisify(execFile);
const ADMIN_CLI = join(import.meta.dirname, '../../services/admin/cli.ts');

/** A free loopback port for `npm start`, so links the service writes (PUBLIC_URL) are known before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The mail settings `npm start` and the admin CLI need to send invitations through the test MTA. */
export function mailEnv(publicUrl: string): NodeJS.ProcessEnv {
  return {
    SMTP_HOST: servers.smtp.host, SMTP_PORT: String(servers.smtp.port), SMTP_SECURE: 'false',
    MAIL_FROM: 'portal@robinson.test', PUBLIC_URL: publicUrl,
  };
}

/** `npm run admin -- users invite`: an organisation's first admin, as an operator invites them. */
export async function inviteByCli(env: NodeJS.ProcessEnv, orgId: string, email: string, role: 'admin' | 'member' = 'admin'): Promise<void> {
  await run(process.execPath, [ADMIN_CLI, 'users', 'invite', '--org', orgId, '--email', email, '--role', role, '--json'], { env });
}

/** The invitation link in the invitee's real mailbox (the `index`th message). */
export async function invitationLink(mailbox: MailUser, index = 0): Promise<string> {
  const client = await openImap(mailbox);
  try {
    const messages = await waitForMessages(client, 'INBOX', index + 1);
    const link = /(https?:\/\/\S+#invite=[\w-]+)/.exec(textBodyOf(messages[index].source))?.[1];
    if (!link) throw new Error('no invitation link in the message');
    return link;
  } finally {
    await client.logout();
  }
}
