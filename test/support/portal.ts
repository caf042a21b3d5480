import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { allAxeViolations, launchChromium, screenshot } from './browser.ts';
import { spawnNpmStart, type StartedProcess } from './embedded-process.ts';
import { createMailUser, openImap, textBodyOf, waitForMessages, type MailUser } from './mail.ts';
import { servers } from './servers.ts';
import { referenceTotp } from './totp-reference.ts';

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

/**
 * An invitation accepted over the API, as an authenticator app and the page would: the link from
 * the invitee's real mailbox, the secret the invitation shows, the password and the first code.
 * Returns the TOTP secret (its first step is spent: sign in with the next, signInThroughPage).
 */
export async function acceptInvitationOverApi(baseUrl: string, mailbox: MailUser, password: string): Promise<string> {
  const token = /#invite=([\w-]+)/.exec(await invitationLink(mailbox))![1];
  const secret = ((await (await fetch(`${baseUrl}/v2/invitations/${token}`)).json()) as { totp_secret: string }).totp_secret;
  const accepted = await fetch(`${baseUrl}/v2/invitations/${token}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password, code: referenceTotp(secret, new Date()) }),
  });
  if (accepted.status !== 200) throw new Error(`accepting the invitation: ${accepted.status}`);
  return secret;
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

/**
 * People a test key (or test mode) answers in a fixed way (docs/decisions.md §3): the surname
 * picks the level, `?` is an unreadable address; customer number, name, address, postcode, city.
 */
export const TEST_MODE_PEOPLE: string[][] = [
  ['1', 'Anne Robinson', 'Vestergade 12', '8000', 'Aarhus C'],
  ['2', 'Bo Bygning', 'Nørregade 3', '1000', 'København K'],
  ['3', 'Carl Fornavn', 'Torvet 1', '4000', 'Roskilde'],
  ['4', 'Dorte Efternavn', 'Algade 7', '4000', 'Roskilde'],
  ['5', 'Eva Husstand', 'Bredgade 2', '1260', 'København K'],
  ['6', 'Finn Jensen', 'Søndergade 9', '8700', 'Horsens'],
  ['7', 'Gitte Hansen', '?', '', ''],
];

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 360, height: 780 };

export type SignedInState = Awaited<ReturnType<BrowserContext['storageState']>>;

/** What a portal test file runs against, once `start` has made it. */
export interface StartedPortal {
  server: StartedProcess;
  env: NodeJS.ProcessEnv;
  /** The server's DATA_DIR, also the test's own folder for files it writes. */
  dataDir: string;
  /** The demo organisation `npm start` created. */
  orgId: string;
  browser: Browser;
  /** One real mailbox per name asked for, in that order. */
  mailboxes: MailUser[];
}

export interface PortalOptions {
  /** Names the data folder (`<name>-…` in the temp dir). */
  name: string;
  /** Names `shoot`'s screenshots: `<screenshots>-<screen>-<language>-<size>` (a file that takes its own leaves it out). */
  screenshots?: string;
  /** Local parts of the mailboxes to make (on customer.test). */
  mailboxes: string[];
  /** Settings beside the common ones (port, host, data folder, mail). */
  env?: NodeJS.ProcessEnv;
  /** Contexts accept downloads (a result file, a change report). */
  acceptDownloads?: boolean;
}

/**
 * The set-up every portal test file shares (test/e2e/portal-*.test.ts): `npm start` on a free
 * loopback port with invitations through the test MTA, the demo organisation, real mailboxes and
 * Debian's Chromium; browser contexts that collect the page's errors; and `shoot`, which
 * photographs a screen in both languages at desktop and 360 px with axe 0 violations and nothing
 * wider than the screen. `stop` undoes whatever `start` got to, also after a failed start.
 */
export function portalTest(options: PortalOptions) {
  const children: ChildProcess[] = [];
  /** Errors the pages raised or logged (a 4xx the page expected is not one); a test ends expecting none. */
  const pageErrors: string[] = [];
  let dataDir: string | undefined;
  let browser: Browser | undefined;
  const mailboxes: MailUser[] = [];

  async function start(): Promise<StartedPortal> {
    dataDir = mkdtempSync(join(tmpdir(), `${options.name}-`));
    const port = await freePort();
    const env = {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info',
      ...options.env,
      ...mailEnv(`http://127.0.0.1:${port}`),
    };
    // The shared test machine may be busy: a start may take longer than the default minute.
    const server = await spawnNpmStart(env, children, 170_000);
    const orgId = /Created the demo organisation ([0-9a-f-]{36})/.exec(server.output())![1];
    for (const name of options.mailboxes) mailboxes.push(await createMailUser(name, 'customer.test'));
    browser = await launchChromium();
    return { server, env, dataDir, orgId, browser, mailboxes: [...mailboxes] };
  }

  async function stop(): Promise<void> {
    await browser?.close();
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const mailbox of mailboxes) await mailbox.remove();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }

  async function newContext(locale: 'da-DK' | 'en-GB', storageState?: SignedInState): Promise<{ context: BrowserContext; page: Page }> {
    if (!browser) throw new Error('the portal is not started');
    const context = await browser.newContext({
      locale, viewport: DESKTOP, ...(options.acceptDownloads ? { acceptDownloads: true } : {}), ...(storageState ? { storageState } : {}),
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) pageErrors.push(message.text());
    });
    return { context, page };
  }

  /**
   * The page in `language` (its own switch), waited for on the switch's last step (docs/web.md
   * "Language switch keeps what was typed"): the typed fields given back and the focus on the new
   * page's language button. The old button and fields are marked first (`data-before-switch`):
   * the old button stays focused while a signed-out page asks for its session, and the document's
   * lang changes before the page is drawn, so neither alone says the switch is done.
   */
  async function switchTo(page: Page, language: 'da' | 'en'): Promise<void> {
    const button = page.locator(`button.lang[lang=${language}]`);
    if ((await button.getAttribute('aria-pressed')) === 'true') return;
    await page.evaluate(`for (const el of document.querySelectorAll('input, select, textarea, button.lang')) el.dataset.beforeSwitch = '1'`);
    await button.click();
    // Asked with page.evaluate: a polled waitForFunction would need eval, which the page's CSP refuses.
    await expect.poll(() => page.evaluate(`document.documentElement.lang === '${language}' && (document.activeElement?.matches('button.lang[lang=${language}]:not([data-before-switch])') ?? false)`),
      { timeout: 60_000 }).toBe(true);
  }

  /**
   * Photographs the screen in both languages, at desktop size and 360 px, and runs axe-core on each.
   * `ready` waits for the screen after a language switch (the page redraws); `again` rebuilds a
   * screen a redraw leaves (a shown refusal).
   */
  async function shoot(page: Page, name: string, ready: () => Promise<unknown>, again?: () => Promise<unknown>): Promise<void> {
    // The other language first, so the page ends in the language it was in.
    const current = await page.getAttribute('html', 'lang');
    for (const language of current === 'da' ? ['en', 'da'] as const : ['da', 'en'] as const) {
      const switched = (await page.locator(`button.lang[lang=${language}]`).getAttribute('aria-pressed')) !== 'true';
      await switchTo(page, language);
      if (switched) await again?.();
      await ready();
      await shootSizes(page, `${options.screenshots ?? options.name}-${name}-${language}`);
    }
  }

  return { start, stop, newContext, switchTo, shoot, pageErrors };
}

/**
 * One screen as it is, photographed at desktop size and 360 px as `<name>-desktop` / `<name>-360`,
 * with axe 0 violations and nothing wider than the screen at each; `exclude` leaves containers of a
 * renderer that is not ours out of axe (docs/web.md "Screenshots"). Ends at desktop size.
 */
export async function shootSizes(page: Page, name: string, exclude: string[] = []): Promise<void> {
  for (const [size, viewport] of [['desktop', DESKTOP], ['360', PHONE]] as const) {
    await page.setViewportSize(viewport);
    await screenshot(page, `${name}-${size}`);
    expect(await allAxeViolations(page, exclude), `${name} ${size}`).toEqual([]);
    // Nothing wider than the screen: tables scroll in their own region.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), `${name} ${size} overflows`).toBe(true);
  }
  await page.setViewportSize(DESKTOP);
}

/**
 * Signs in through the page's form with the next TOTP step (the step used to accept the
 * invitation is spent); `testMode` ticks the test-mode box.
 */
export async function signInThroughPage(page: Page, baseUrl: string, login: { email: string; password: string; secret: string; testMode?: boolean }): Promise<void> {
  await page.goto(baseUrl + '/');
  await page.locator('#email').fill(login.email);
  await page.locator('#password').fill(login.password);
  await page.locator('#code').fill(referenceTotp(login.secret, new Date(), 1));
  if (login.testMode) await page.locator('#test-mode').check();
  await page.locator('[data-testid=sign-in] button[type=submit]').click();
  await page.getByTestId('who').waitFor();
}
