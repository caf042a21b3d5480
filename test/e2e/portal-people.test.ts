/**
 * The portal's people in a real browser (docs/people.md, docs/web.md): Debian's Chromium driven
 * by playwright-core against `npm start`, invitations through the real MTA (Postfix on loopback
 * into Dovecot, read over IMAP), TOTP codes from an independent RFC 6238 implementation. Flows:
 * the operator invites the first admin → the admin opens the link, adds the secret, sets a
 * password → signs in → uploads → starts → downloads the result; invites a member, who cannot
 * reach admin screens nor admin API routes; keys created and revoked; settings saved; audit log.
 * Every screen is photographed in Danish and English, desktop and 360 px, into docs/screenshots,
 * and axe-core reports no violation of any impact on any of them.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedProcess } from '../support/embedded-process.ts';
import { makeSpreadsheets, type Rows } from '../support/files/spreadsheets.ts';
import type { MailUser } from '../support/mail.ts';
import { invitationLink, inviteByCli, portalTest, signInThroughPage, TEST_MODE_PEOPLE, type SignedInState } from '../support/portal.ts';
import { referenceTotp } from '../support/totp-reference.ts';

const PASSWORD = 'blåbærgrød med fløde 2026';

let server: StartedProcess;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let orgId: string;
let csvFile: string;
let adminBox: MailUser;
let memberBox: MailUser;
const portal = portalTest({ name: 'portal-people', screenshots: 'people', mailboxes: ['admin', 'member'], acceptDownloads: true });
const { newContext, shoot, pageErrors } = portal;

// Test mode gives fixed answers (the surname picks the level): 5 blocked, 1 allowed, 1 manual.
const PEOPLE: Rows = TEST_MODE_PEOPLE;

beforeAll(async () => {
  ({ server, env, dataDir, orgId, mailboxes: [adminBox, memberBox] } = await portal.start());
  // "Adr." is no header the guesser knows, but its street-and-number texts say it is the address;
  // "Kontakt" says nothing, so the name column is missing and the draft must say so (docs/uploads.md).
  [csvFile] = await makeSpreadsheets(dataDir, [{ name: 'kunder.csv', rows: [['Kundenr', 'Kontakt', 'Adr.', 'Postnr', 'By'], ...PEOPLE], via: 'excel-1252-semicolon' }]);
}, 180_000);

afterAll(() => portal.stop());

/** Opens the invitation link, adds the secret (as an app would), sets the password; returns the secret. */
async function acceptInvitation(page: Page, link: string, shots: boolean): Promise<string> {
  await page.goto(link);
  await page.getByTestId('totp-secret').waitFor();
  if (shots) await shoot(page, '02-invitation', () => page.getByTestId('totp-secret').waitFor());
  const secret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
  await page.locator('#new-password').fill(PASSWORD);
  await page.locator('#first-code').fill(referenceTotp(secret, new Date()));
  await page.locator('[data-testid=invitation] button[type=submit]').click();
  await page.getByText(/Log ind med din e-mail|Sign in with your e-mail/).waitFor();
  // The token is gone from the address bar once used.
  expect(page.url()).not.toContain('invite=');
  return secret;
}

/** Signs in with the next TOTP step (the step used to accept the invitation is spent). */
async function signIn(page: Page, email: string, secret: string, testMode: boolean): Promise<void> {
  await signInThroughPage(page, server.baseUrl, { email, password: PASSWORD, secret, testMode });
}

describe('the portal\'s people (Playwright driving Debian Chromium against npm start)', () => {
  let adminState: SignedInState;
  let adminSecret: string;

  it('invite → password and TOTP → sign in → upload with an "Adr." column → warning → fix → start → download the result, its blocked rows and the PDF certificate; a wrong sign-in speaks to a person', async () => {
    await inviteByCli(env, orgId, adminBox.address, 'admin');
    const link = await invitationLink(adminBox);
    expect(link.startsWith(`${server.baseUrl}/#invite=`)).toBe(true);

    const { context, page } = await newContext('da-DK');
    await page.goto(server.baseUrl + '/');
    await page.locator('#email').waitFor();
    await shoot(page, '01-sign-in', () => page.locator('#email').waitFor());

    // A wrong code: the page says what a person can do about it, in their language.
    const refuse = async () => {
      await page.locator('#email').fill(adminBox.address);
      await page.locator('#password').fill('not the password at all');
      await page.locator('#code').fill('123456');
      await page.locator('[data-testid=sign-in] button[type=submit]').click();
      await page.getByTestId('error-message').waitFor();
    };
    await refuse();
    expect(await page.getByTestId('error-message').textContent()).toBe('E-mail, adgangskode eller kode fra godkendelses-appen passer ikke. Prøv igen.');
    await shoot(page, '01-sign-in-refused', () => page.getByTestId('error-message').waitFor(), async () => {
      await refuse();
      const expected = (await page.getAttribute('html', 'lang')) === 'en'
        ? 'The e-mail, password or code from your authenticator app is not right. Please try again.'
        : 'E-mail, adgangskode eller kode fra godkendelses-appen passer ikke. Prøv igen.';
      expect(await page.getByTestId('error-message').textContent()).toBe(expected);
    });

    adminSecret = await acceptInvitation(page, link, true);
    await signIn(page, adminBox.address, adminSecret, true);
    // The cookie: HttpOnly, Secure, SameSite=Strict, on the loopback address without TLS.
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite])).toEqual([['__Host-robinson_session', true, true, 'Strict']]);
    expect(await page.evaluate('document.cookie')).toBe('');
    await page.locator('#dropzone').waitFor();
    await shoot(page, '03-upload', () => page.locator('#dropzone').waitFor());

    await page.locator('input[type=file]').setInputFiles(csvFile);
    await page.getByTestId('draft').waitFor();
    // "Adr." taken as the address from its texts; no name column: said plainly, and Start waits for a fix or a yes.
    expect(await page.locator('#map-address').inputValue()).toBe('2');
    expect(await page.locator('#map-name').inputValue()).toBe('');
    const warningCodes = () => page.locator('[data-testid=draft-warnings] li').evaluateAll((items) => items.map((li) => li.getAttribute('data-code')));
    expect(await warningCodes()).toContain('no_name_column');
    const start = page.getByRole('button', { name: /Start tjekket|Start the check/ });
    expect(await start.isDisabled()).toBe(true);
    await shoot(page, '04-draft', () => page.getByTestId('draft-warnings').waitFor());
    // The fix: the name column picked, the same draft read again; the warning goes and Start is open.
    await page.locator('#map-name').selectOption('1');
    await page.getByRole('button', { name: /Opdatér forhåndsvisning|Update preview/ }).click();
    await expect.poll(() => page.getByTestId('draft-warnings').count(), { timeout: 90_000 }).toBe(0);
    expect(await start.isDisabled()).toBe(false);
    await start.click();
    await page.locator('[data-testid=job][data-status=done]').waitFor({ timeout: 60_000 });
    // The page's counts are the API's (asked with the same session), one row per level as test mode answers.
    const jobId = /#job=([0-9a-f-]{36})$/.exec(page.url())![1];
    const job = await page.evaluate<{ blocked_count: number; allowed_count: number; manual_count: number; row_count: number; level_counts: Record<string, number>; certificate_token: string }>(`fetch('/v2/check-jobs/${jobId}').then((r) => r.json())`);
    expect(job.level_counts).toEqual({ '5': 1, '4': 1, '3': 1, '2': 1, '1': 1, '0': 1, unread: 1 });
    expect(await page.getByTestId('count-blocked').textContent()).toBe(String(job.blocked_count));
    expect(await page.getByTestId('count-allowed').textContent()).toBe(String(job.allowed_count));
    await shoot(page, '05-done', () => page.locator('[data-testid=job][data-status=done]').waitFor());

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: /Hent resultatfilen|Download the result file/ }).click();
    const path = join(dataDir, 'result.csv');
    await (await download).saveAs(path);
    const lines = readFileSync(path, 'latin1').trim().split(/\r?\n/);
    expect(lines).toHaveLength(8);
    expect(lines[0]).toBe('Kundenr;Kontakt;Adr.;Postnr;By;Status;Matchniveau;Match;Årsag;Listeversion (udgivet);Navn tilnærmet');
    expect(lines[1]).toMatch(/^1;Anne Robinson;Vestergade 12;8000;Aarhus C;Blokeret;5;/);

    // The blocked rows only: the header and one line per blocked row, each "Blokeret".
    const blockedDownload = page.waitForEvent('download');
    await page.getByRole('button', { name: /Kun blokerede rækker|Blocked rows only/ }).click();
    const blockedPath = join(dataDir, 'blocked.csv');
    await (await blockedDownload).saveAs(blockedPath);
    const blocked = readFileSync(blockedPath, 'latin1').trim().split(/\r?\n/).slice(1);
    expect(blocked).toHaveLength(job.blocked_count);
    for (const line of blocked) expect(line.split(';')[5]).toBe('Blokeret');

    // The certificate as a PDF in the page's language, its text read back by pdftotext (poppler, an independent reader).
    const pdfDownload = page.waitForEvent('download');
    await page.getByRole('button', { name: /Hent certifikatet som PDF|Download the certificate as PDF/ }).click();
    const pdf = await pdfDownload;
    expect(pdf.suggestedFilename()).toBe('kunder.certificate.pdf');
    const pdfPath = join(dataDir, 'certificate.pdf');
    await pdf.saveAs(pdfPath);
    const { stdout } = await promisify(execFile)('pdftotext', ['-enc', 'UTF-8', pdfPath, '-']);
    const pdfLines = stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const organisation = await page.evaluate<{ organisation: { name: string } }>(`fetch('/v2/session').then((r) => r.json())`);
    expect(pdfLines[0]).toBe('Certifikat for tjek mod Robinsonlisten');
    expect(pdfLines).toContain(`Organisation: ${organisation.organisation.name}`);
    expect(pdfLines).toContain('Fil: kunder.csv');
    expect(pdfLines).toContain(`Job-id: ${jobId}`);
    expect(pdfLines).toContain(`Rækker: ${job.row_count}`);
    expect(pdfLines).toContain(`Blokeret: ${job.blocked_count}`);
    expect(pdfLines).toContain(`Tilladt: ${job.allowed_count}`);
    expect(pdfLines).toContain(`Manuel vurdering: ${job.manual_count}`);
    expect(pdfLines.slice(pdfLines.indexOf('Underskrevet token:') + 1).join('')).toBe(job.certificate_token);
    adminState = await context.storageState();

    await page.goto(server.baseUrl + '/#history');
    await page.locator('[data-testid=jobs] tbody tr').first().waitFor();
    await shoot(page, '06-history', () => page.locator('[data-testid=jobs] tbody tr').first().waitFor());
    // The filters: a text in the file name, a status, a source; each answer is the API's for the same filter.
    const rows = () => page.locator('[data-testid=jobs] tbody tr');
    const filterBy = async (fill: () => Promise<unknown>) => {
      await fill();
      await page.getByRole('button', { name: 'Vis', exact: true }).click();
    };
    await filterBy(() => page.locator('#filter-q').fill('KUNDER'));
    await expect.poll(() => rows().count()).toBe(1);
    await filterBy(() => page.locator('#filter-q').fill('ikke-en-fil'));
    await page.getByText('Ingen job endnu.').waitFor();
    await filterBy(async () => {
      await page.locator('#filter-q').fill('');
      await page.locator('#filter-status').selectOption('failed');
    });
    await page.getByText('Ingen job endnu.').waitFor();
    await filterBy(async () => {
      await page.locator('#filter-status').selectOption('done');
      await page.locator('#filter-source').selectOption('upload');
    });
    await expect.poll(() => rows().count()).toBe(1);
    const viaApi = await page.evaluate<{ data: unknown[] }>(`fetch('/v2/check-jobs?status=done&source=upload&hide_discarded_drafts=true').then((r) => r.json())`);
    expect(viaApi.data).toHaveLength(1);
    await context.close();
  }, 240_000);

  it('users: the admin invites a member through the page; the member signs in and reaches no admin screen or admin API route', async () => {
    const { context, page } = await newContext('da-DK', adminState);
    await page.goto(server.baseUrl + '/#users');
    await page.locator(`[data-user="${adminBox.address.toLowerCase()}"]`).waitFor();
    await page.locator('#invite-email').fill(memberBox.address);
    await page.locator('#invite-role').selectOption('member');
    await page.getByRole('button', { name: /Send invitation/ }).click();
    await page.locator(`[data-user="${memberBox.address.toLowerCase()}"]`).waitFor();
    await shoot(page, '07-users', () => page.locator(`[data-user="${memberBox.address.toLowerCase()}"]`).waitFor());
    await context.close();

    const member = await newContext('en-GB');
    const secret = await acceptInvitation(member.page, await invitationLink(memberBox), false);
    await signIn(member.page, memberBox.address, secret, true);
    const nav = await member.page.locator('nav a').allTextContents();
    expect(nav).toEqual(['Check a file', 'History', 'Monitors', 'Your account', 'API documentation']);
    await shoot(member.page, '08-member', () => member.page.locator('#dropzone').waitFor());
    for (const section of ['users', 'channels']) {
      await member.page.goto(`${server.baseUrl}/#${section}`);
      await member.page.getByText(/kun for administratorer|for administrators only/).waitFor();
    }

    // The same session against the API: every admin route is 403, whatever the page shows.
    const csrf = await member.page.evaluate<string>(`fetch('/v2/session').then((r) => r.json()).then((s) => s.csrf_token)`);
    const statuses = await member.page.evaluate<number[]>(`Promise.all([
      fetch('/v2/users').then((r) => r.status),
      fetch('/v2/api-keys', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': ${JSON.stringify(csrf)} }, body: '{"label":"x"}' }).then((r) => r.status),
      fetch('/v2/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': ${JSON.stringify(csrf)} }, body: '{"stop_level":5}' }).then((r) => r.status),
      fetch('/v2/audit-log').then((r) => r.status),
      fetch('/v2/check-jobs').then((r) => r.status),
      fetch('/v2/monitors').then((r) => r.status),
      fetch('/v2/email-senders').then((r) => r.status),
      fetch('/v2/email-senders', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': ${JSON.stringify(csrf)} }, body: '{"address":"a@b.dk"}' }).then((r) => r.status),
      fetch('/v2/drop-folders').then((r) => r.status),
    ])`);
    // Files, jobs and monitors are a member's work; users, keys, settings, channels and the audit log are not.
    expect(statuses).toEqual([403, 403, 403, 403, 200, 200, 403, 403, 403]);
    await member.context.close();
  }, 180_000);

  it('keys: created with a label and shown once, work against the API, revoked in the page; settings saved; the audit log shows who did what', async () => {
    const { context, page } = await newContext('da-DK', adminState);
    await page.goto(server.baseUrl + '/#keys');
    await page.locator('#key-label').fill('CRM-eksport');
    await page.getByRole('button', { name: /Opret nøgle/ }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^rl_live_\w{40}$/);
    const works = await fetch(`${server.baseUrl}/v2/list-versions/current`, { headers: { Authorization: `Bearer ${key}` } });
    expect(works.status).toBe(200);
    await shoot(page, '09-keys', () => page.locator('[data-testid=keys] tbody tr').first().waitFor());
    await page.locator('button.lang[lang=da]').click();
    await page.getByRole('button', { name: 'Spær nøglen CRM-eksport' }).click();
    await page.getByText(/^Spærret /).waitFor();
    expect((await fetch(`${server.baseUrl}/v2/list-versions/current`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(401);

    await page.goto(server.baseUrl + '/#settings');
    await expect.poll(() => page.locator('#retention').inputValue()).toBe('30');
    await page.locator('#stop-level').selectOption('3');
    await page.locator('#retention').fill('14');
    await page.getByRole('button', { name: /Gem indstillinger/ }).click();
    await page.getByText('Indstillingerne er gemt.').waitFor();
    await shoot(page, '10-settings', async () => {
      await expect.poll(() => page.locator('#retention').inputValue()).toBe('14');
    });
    const settings = await page.evaluate<{ stop_level: number; retention_days: number }>(`fetch('/v2/settings').then((r) => r.json())`);
    expect(settings).toEqual({ stop_level: 3, retention_days: 14 });

    await page.goto(server.baseUrl + '/#audit');
    await page.locator('[data-testid=audit] tbody tr').first().waitFor();
    const audit = await page.locator('[data-testid=audit] tbody').textContent();
    for (const what of ['Ændrede indstillingerne', 'Spærrede en API-nøgle', 'Oprettede en API-nøgle', 'Inviterede en bruger', 'Startede et tjek', 'Loggede ind']) expect(audit).toContain(what);
    expect(audit).toContain(adminBox.address.toLowerCase());
    for (const [, name, street] of PEOPLE) {
      expect(audit).not.toContain(name);
      if (street !== '?') expect(audit).not.toContain(street);
    }
    await shoot(page, '11-audit', () => page.locator('[data-testid=audit] tbody tr').first().waitFor());

    // Sign out everywhere: this browser and any other copy of the session are out.
    await page.getByRole('button', { name: /Log ud på alle enheder|Sign out everywhere/ }).click();
    await page.locator('#email').waitFor();
    const elsewhere = await newContext('da-DK', adminState);
    await elsewhere.page.goto(server.baseUrl + '/');
    await elsewhere.page.locator('#email').waitFor();
    await elsewhere.context.close();
    await context.close();
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
