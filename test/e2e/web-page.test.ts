import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedProcess } from '../support/embedded-process.ts';
import { allAxeViolations, seriousAxeViolations } from '../support/browser.ts';
import { startFakeDirectory, type FakeDirectory } from '../support/fake-phone-directory.ts';
import { csvAsExcelWrites, makeSpreadsheets, type Rows } from '../support/files/spreadsheets.ts';
import type { MailUser } from '../support/mail.ts';
import { LABELS } from '../../services/domain/status.ts';
import { pageMessages } from '../../services/api/web/page-messages.ts';
import { acceptInvitationOverApi, DESKTOP, inviteByCli, PHONE, portalTest, signInThroughPage, TEST_MODE_PEOPLE, type SignedInState } from '../support/portal.ts';
import { referenceTotp } from '../support/totp-reference.ts';

/**
 * The web page (docs/web.md) in a real browser: Debian's Chromium driven by playwright-core
 * against `npm start` (services/main.ts on a free port, its demo organisation's test key). Files
 * are written by exceljs and as Excel writes CSV. Each screen is photographed by the portal tests'
 * `shoot` (test/support/portal.ts) in Danish and English, at desktop size and 360 px, into
 * docs/screenshots as `web-NN-<screen>-<language>-<size>.png` (shown in the README and
 * docs/web.md); axe-core checks every screen and finds no violation of any impact.
 */
let server: StartedProcess;
let browser: Browser;
let dataDir: string;
let testKey: string;
/** The person who signs in (invited through the MTA, docs/people.md) and the session the later tests reuse. */
let person: { mailbox: MailUser; password: string; secret: string };
let signedIn: SignedInState | undefined;
let files: { xlsx: string; csv: string; big: string };
/** Settings of `npm start` known only once the phone directory's test double listens. */
const serverEnv: NodeJS.ProcessEnv = {};
const portal = portalTest({ name: 'web-page', screenshots: 'web', mailboxes: ['web', 'live', 'payer'], env: serverEnv });
/**
 * The phone directory provider as a TEST DOUBLE (test/support/fake-phone-directory.ts): a live job
 * that looks a number up waits while the double holds it, and fails when it answers an error.
 */
let directory: FakeDirectory;
let liveKey: string;
/** A member of the demo organisation who signs in live, and the admin of a pay-per-list organisation. */
let livePerson: { email: string; password: string; secret: string };
let payer: { email: string; password: string; secret: string };
const ADMIN_CLI = join(import.meta.dirname, '../../services/admin/cli.ts');
/** Every URL the browsers asked for: the key must never be in one. */
const requestedUrls: string[] = [];

// Test keys give fixed answers (docs/decisions.md §3): the surname picks the level, `?` an unreadable address.
const PEOPLE: Rows = TEST_MODE_PEOPLE;
const EXPECTED_LEVELS = { '5': 1, '4': 1, '3': 1, '2': 1, '1': 1, '0': 1, unread: 1 };
/** Danish words an English page must not show: the match labels, verdicts and the unread level (docs/web.md "Texts"). */
const DANISH_WORDS = new Set([
  ...Object.values(LABELS).map((label) => label.da),
  pageMessages.result_allowed.da, pageMessages.result_blocked.da, pageMessages.result_manual.da, pageMessages.level_unread.da,
]);
/** An API code as it is in the JSON (`name_and_unit`, `address_unreadable`), not a word. */
const SNAKE_CASE = /\b[a-z0-9]+_[a-z0-9_]+\b/;
/** Fails with the texts that are Danish or codes, not English words. */
function expectEnglishWords(texts: string[], what: string): void {
  expect(texts.length, what).toBeGreaterThan(0);
  expect(texts.filter((text) => DANISH_WORDS.has(text.replace(/^\d+: /, '')) || SNAKE_CASE.test(text)), what).toEqual([]);
}

beforeAll(async () => {
  let mailbox: MailUser;
  let liveMailbox: MailUser;
  let payerMailbox: MailUser;
  let env: NodeJS.ProcessEnv;
  let orgId: string;
  directory = await startFakeDirectory('provider-key', []);
  // A held lookup must wait for the test, not time out: the job stays unfinished until released.
  Object.assign(serverEnv, { PHONE_DIRECTORY_URL: directory.url, PHONE_DIRECTORY_KEY: 'provider-key', PHONE_DIRECTORY_TIMEOUT_MS: '600000' });
  ({ server, env, dataDir, orgId, browser, mailboxes: [mailbox, liveMailbox, payerMailbox] } = await portal.start());
  // "Contact" is no header the guesser knows: the person must pick the name column by hand.
  const [xlsx, csv] = await makeSpreadsheets(dataDir, [
    { name: 'customers.xlsx', rows: [['Kunde nr', 'Contact', 'Street address', 'Postcode', 'City'], ...PEOPLE], via: 'exceljs' },
    { name: 'kunder.csv', rows: [['Kundenr', 'Navn', 'Adresse', 'Postnr', 'By'], ...PEOPLE], via: 'excel-1252-semicolon' },
  ]);
  const big = join(dataDir, 'stor-liste.csv');
  const bigRows: Rows = [['Navn', 'Adresse', 'Postnr', 'By']];
  for (let i = 0; i < 150_000; i++) bigRows.push([`Person ${i} ${i % 7 === 0 ? 'Robinson' : 'Jensen'}`, `Vestergade ${(i % 200) + 1}`, '8000', 'Aarhus C']);
  writeFileSync(big, csvAsExcelWrites(bigRows, 'excel-utf8-bom'));
  files = { xlsx, csv, big };
  testKey = /test key: (rl_test_\S+)/.exec(server.output())![1];
  liveKey = /live key: (rl_live_\S+)/.exec(server.output())![1];
  // A person of the demo organisation: invited by the operator, the invitation accepted over the API.
  await inviteByCli(env, orgId, mailbox.address);
  const password = 'en lang adgangskode til siden';
  person = { mailbox, password, secret: await acceptInvitationOverApi(server.baseUrl, mailbox, password) };
  await inviteByCli(env, orgId, liveMailbox.address, 'member');
  livePerson = { email: liveMailbox.address, password, secret: await acceptInvitationOverApi(server.baseUrl, liveMailbox, password) };
  // A pay-per-list organisation (docs/decisions.md §8), made by the operator's admin tool.
  const { stdout } = await promisify(execFile)(process.execPath, [ADMIN_CLI, 'orgs', 'create', '--name', 'Betal pr. liste', '--plan', 'pay_per_list', '--json'], { env });
  await inviteByCli(env, (JSON.parse(stdout) as { id: string }).id, payerMailbox.address);
  payer = { email: payerMailbox.address, password, secret: await acceptInvitationOverApi(server.baseUrl, payerMailbox, password) };
}, 180_000);

afterAll(async () => {
  await portal.stop();
  await directory?.close();
});

/**
 * A fresh browser context (own sessionStorage) on the page. `errors` collects script errors and
 * console errors; the browser's own "Failed to load resource" lines for the API's 4xx answers
 * are expected (the page shows those answers) and left out.
 */
async function newPage(locale: 'da-DK' | 'en-GB', viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ locale, viewport, acceptDownloads: true });
  const page = await context.newPage();
  page.on('request', (request) => requestedUrls.push(request.url()));
  // File choosers intercepted from the page's first moment: Playwright turns interception on when
  // the first 'filechooser' listener is added, without waiting for the browser to apply it, so a
  // listener added just before a key press can lose the race under load and the browser's own
  // (headless: invisible) chooser opens instead: ci6 saw "No file chooser after Space on #file"
  // with the focus on #file. The tests' own waitForEvent('filechooser') still takes each chooser.
  page.on('filechooser', () => {});
  // Any script error on the page fails the test that caused it.
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) errors.push(message.text());
  });
  await page.goto(server.baseUrl + '/');
  return { context, page, errors };
}

async function expectAccessible(page: Page, step: string): Promise<void> {
  expect(await allAxeViolations(page), step).toEqual([]);
}

/** Presses Tab until the focused element matches (keyboard-only use: everything is reachable). */
async function tabTo(page: Page, selector: string, text?: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    // Browser-side code as text: this file is type-checked against Node, not the DOM.
    const found = await page.evaluate(`(() => {
      const active = document.activeElement;
      return !!active && active.matches(${JSON.stringify(selector)}) && (${JSON.stringify(text ?? null)} === null || active.textContent.trim() === ${JSON.stringify(text ?? null)});
    })()`);
    if (found) return;
  }
  throw new Error(`Tab never reached ${selector} ${text ?? ''}`);
}

/**
 * Tab to the file input and press Space: the browser's file chooser. A picker that does not open
 * fails with where the focus was and what the alert region said, so a late redraw or an error
 * that took the focus is named rather than a bare time-out.
 */
async function openFilePickerByKeyboard(page: Page) {
  await tabTo(page, '#file');
  const chooser = page.waitForEvent('filechooser', { timeout: 90_000 });
  await page.keyboard.press('Space');
  try {
    return await chooser;
  } catch (error) {
    const where = await page.evaluate(`(() => {
      const active = document.activeElement;
      const alert = document.querySelector('[role=alert]');
      return 'focus on ' + (active ? active.outerHTML.slice(0, 200) : 'nothing')
        + '; #file in the page: ' + !!document.querySelector('#file')
        + '; alert: ' + (alert ? alert.textContent.trim().slice(0, 200) : 'none');
    })()`);
    throw new Error(`No file chooser after Space on #file (${String(where)}): ${(error as Error).message}`);
  }
}

/** What the API itself answers (same key, same language): the page must show exactly this. */
async function api(path: string, init: RequestInit & { locale?: string } = {}) {
  const response = await fetch(server.baseUrl + path, {
    ...init,
    headers: { Authorization: `Bearer ${testKey}`, 'Accept-Language': init.locale ?? 'da', ...(init.headers as object) },
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** E-mail, password, code and test mode (the fixed answers), typed and ticked with the keyboard. */
async function signInByKeyboard(page: Page, code: string, password = person.password): Promise<void> {
  await tabTo(page, '#email');
  await page.keyboard.type(person.mailbox.address);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Tab');
  await page.keyboard.type(code);
  await tabTo(page, '#test-mode');
  if (!(await page.locator('#test-mode').isChecked())) await page.keyboard.press('Space');
  // Enter on a checkbox submits nothing: on to the button, as a keyboard user goes.
  await tabTo(page, '[data-testid=sign-in] button[type=submit]');
  await page.keyboard.press('Enter');
}

/** Another tab of the person signed in by the keyboard test: the same session cookie. */
async function signIn(page: Page): Promise<void> {
  if (!signedIn) throw new Error('the keyboard test signs in first');
  await page.context().addCookies(signedIn.cookies);
  await page.reload();
  await page.locator('#dropzone').waitFor();
}

const jobIdOf = (page: Page) => /#job=([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? null;

async function waitForStatus(page: Page, status: string, timeout = 60_000): Promise<void> {
  await page.locator(`[data-testid=job][data-status=${status}]`).waitFor({ timeout });
}

async function savedDownload(download: Download): Promise<Buffer> {
  const path = join(dataDir, `download-${Date.now()}-${download.suggestedFilename()}`);
  await download.saveAs(path);
  return readFileSync(path);
}

describe('the web page (Playwright driving Debian Chromium against npm start)', () => {
  it('serves the page with security headers, no inline script or style, and its own texts', async () => {
    const page = await fetch(server.baseUrl + '/');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|\son[a-z]+=/);
    const main = await fetch(server.baseUrl + '/app/main.js');
    expect(main.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(main.headers.get('content-security-policy')).toBe(csp);
    // The browser revalidates (no-cache) and gets 304 for an unchanged file.
    const again = await fetch(server.baseUrl + '/app/main.js', { headers: { 'If-None-Match': main.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect((await fetch(server.baseUrl + '/app/nothing.js')).status).toBe(404);
    // The API routes are unchanged: JSON errors, no page headers.
    const apiAnswer = await fetch(server.baseUrl + '/v2/check-jobs');
    expect(apiAnswer.status).toBe(401);
    expect(apiAnswer.headers.get('content-security-policy')).toBeNull();
  });

  it('English, keyboard only: a wrong password shows the API\'s answer; xlsx by the file picker; a column fixed; preview; start; done; result file and certificate', async () => {
    const { context, page, errors } = await newPage('en-GB');
    await page.locator('#email').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    // Signing in and the upload screen are photographed by portal-people (people-01, people-03).
    await expectAccessible(page, 'sign in');

    await signInByKeyboard(page, referenceTotp(person.secret, new Date(), 1), 'a wrong password, typed');
    const refused = await fetch(`${server.baseUrl}/v2/session`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept-Language': 'en' },
      body: JSON.stringify({ email: person.mailbox.address, password: 'a wrong password, typed', code: '000000' }),
    });
    const refusal = ((await refused.json()) as { error: { message: string } }).error.message;
    expect(refusal).toBe('The e-mail, password or code from your authenticator app is not right. Please try again.');
    await expect.poll(() => page.getByTestId('error-message').textContent()).toBe(refusal);

    // The code was cleared by the refusal; the e-mail stays. The next step's code (the one
    // the invitation used is spent).
    await page.locator('#email').fill('');
    await page.locator('#password').fill('');
    await signInByKeyboard(page, referenceTotp(person.secret, new Date(), 1));
    await page.locator('#dropzone').waitFor();
    signedIn = await context.storageState();
    expect(await page.locator('[role=alert]').isHidden()).toBe(true);
    await expectAccessible(page, 'upload');

    // The file picker, opened from the keyboard.
    await (await openFilePickerByKeyboard(page)).setFiles(files.xlsx);
    await page.getByTestId('draft').waitFor();
    const firstDraft = jobIdOf(page)!;
    expect(firstDraft).toBeTruthy();
    // The guess: Kunde nr → your id, Street address → address; Contact unknown, so no name: every row manual.
    expect(await page.locator('#map-external_id').inputValue()).toBe('0');
    expect(await page.locator('#map-address').inputValue()).toBe('2');
    expect(await page.locator('#map-name').inputValue()).toBe('');
    expect(await page.getByTestId('row-count').textContent()).toBe('7');
    const before = await page.locator('[data-testid=preview] tbody tr td.verdict').allTextContents();
    expect(before).toEqual(Array(7).fill('manual'));
    await portal.shoot(page, '01-draft-guessed', () => page.getByTestId('draft').waitFor());

    // Pick the name column with the keyboard (type-ahead in the select), then a true preview.
    await tabTo(page, '#map-name');
    await page.keyboard.type('Contact');
    expect(await page.locator('#map-name').inputValue()).toBe('1');
    // The button sits with its note at every size (docs/web.md "Decisions the issue left open").
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      const note = (await page.locator('#mapping-note').boundingBox())!;
      const button = (await page.getByRole('button', { name: 'Update preview' }).boundingBox())!;
      expect(await page.locator('#mapping-note').textContent()).not.toBe('');
      const gap = Math.max(0, button.y - (note.y + note.height), note.y - (button.y + button.height));
      expect(gap, `Update preview to its note at ${viewport.width} px`).toBeLessThanOrEqual(200);
    }
    await page.setViewportSize(DESKTOP);
    await tabTo(page, 'button', 'Update preview');
    await page.keyboard.press('Enter');
    // The same draft read again with the new mapping (POST …/preview): no second upload, no new job.
    const previewVerdicts = () => page.locator('[data-testid=preview] tbody tr td.verdict').allTextContents();
    await expect.poll(async () => (await previewVerdicts()).includes('blocked'), { timeout: 90_000 }).toBe(true);
    const draft = jobIdOf(page)!;
    expect(draft).toBe(firstDraft);
    const verdicts = await previewVerdicts();
    const apiDraft = await api(`/v2/check-jobs/${draft}`);
    expect(apiDraft.body.status).toBe('draft');
    expect(verdicts).toEqual(apiDraft.body.preview.map((row: { result: { status: string } }) => row.result.status));
    expect(apiDraft.body.column_mapping.name).toBe(1);
    // English words in the preview: verdicts and match labels, no Danish label, no snake_case code.
    expectEnglishWords(verdicts, 'preview verdicts');
    const levels = await page.locator('[data-testid=preview] tbody tr td:nth-child(3)').allTextContents();
    expectEnglishWords(levels, 'preview match levels');
    expect(levels).toContain(`5: ${LABELS.name_address.en}`);
    // Redrawn in the other language from the draft as the API keeps it: the picked column stays.
    await portal.shoot(page, '02-draft-fixed', async () => {
      await expect.poll(() => page.locator('#map-name').inputValue(), { timeout: 60_000 }).toBe('1');
    });

    await tabTo(page, 'button', 'Start the check');
    await page.keyboard.press('Enter');
    await waitForStatus(page, 'done');
    const done = (await api(`/v2/check-jobs/${draft}`)).body;
    expect(done.level_counts).toEqual(EXPECTED_LEVELS);
    expect(await page.getByTestId('count-blocked').textContent()).toBe(String(done.blocked_count));
    expect(await page.getByTestId('count-allowed').textContent()).toBe(String(done.allowed_count));
    expect(await page.getByTestId('count-manual').textContent()).toBe(String(done.manual_count));
    expect(await page.getByTestId('progress-text').textContent()).toBe('7 of 7 rows checked');
    const legend = await page.locator('[data-testid=levels] li').allTextContents();
    expect(legend[0]).toBe('5: Same name and address: 1');
    await portal.shoot(page, '03-done', () => waitForStatus(page, 'done'));

    await tabTo(page, 'button', 'Download the result file');
    const fileDownload = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    const resultFile = await fileDownload;
    expect(resultFile.suggestedFilename()).toMatch(/\.xlsx$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await savedDownload(resultFile)) as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(['Kunde nr', 'Contact', 'Street address', 'Postcode', 'City', 'Status', 'Match level', 'Match', 'Reason', 'List version (published)', 'Approximate name']);
    expect(sheet.getRow(2).getCell(6).value).toBe('Blocked');
    // The result's verdict columns in English words, on every row: no Danish label, no code.
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expectEnglishWords(header.map(String), 'result headers');
    for (const column of ['Status', 'Match', 'Reason']) {
      const index = header.indexOf(column) + 1;
      const cells: string[] = [];
      for (let row = 2; row <= sheet.rowCount; row++) cells.push(String(sheet.getRow(row).getCell(index).text));
      expectEnglishWords(cells.filter((cell) => cell !== ''), `result column ${column}`);
    }

    await tabTo(page, 'button', 'Download the certificate');
    const certificateDownload = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    const certificate = (await savedDownload(await certificateDownload)).toString('utf8');
    expect(certificate).toBe(done.certificate_token);
    await expect.poll(() => page.getByTestId('certificate-status').textContent()).toMatch(/^The certificate is valid: 7 rows checked/);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('Danish at 360 px: drag and drop a CSV as Excel writes it; the result file in Danish; delete the job from the list', async () => {
    const { context, page, errors } = await newPage('da-DK', { width: 360, height: 780 });
    await page.locator('#email').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('da');
    expect(await page.locator('h2').first().textContent()).toBe('Log ind');
    await signIn(page);

    // A drop as a file manager makes it: a DataTransfer holding the file.
    const bytes = readFileSync(files.csv).toString('base64');
    await page.evaluate(`(() => {
      const data = Uint8Array.from(atob(${JSON.stringify(bytes)}), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([data], 'kunder.csv', { type: 'text/csv' }));
      const zone = document.getElementById('dropzone');
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    })()`);
    await page.getByTestId('draft').waitFor();
    expect(await page.locator('#map-name').inputValue()).toBe('1');
    expect(await page.locator('h2.view-title').textContent()).toBe('Kolonner og forhåndsvisning');
    const verdicts = await page.locator('[data-testid=preview] tbody tr td.verdict').allTextContents();
    expect(verdicts).toContain('blokeret');
    // Nothing wider than the screen: wide tables scroll inside their own region.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await expectAccessible(page, 'draft at 360 px');

    await page.getByRole('button', { name: 'Start tjekket' }).click();
    await waitForStatus(page, 'done');
    const id = jobIdOf(page)!;
    expect(await page.getByTestId('progress-text').textContent()).toBe('7 af 7 rækker tjekket');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await expectAccessible(page, 'done at 360 px');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Hent resultatfilen' }).click();
    const csv = (await savedDownload(await download)).toString('latin1');
    // The input's own dialect (Windows-1252, `;`) with the verdict headers in Danish.
    expect(csv.split('\r\n')[0]).toBe('Kundenr;Navn;Adresse;Postnr;By;Status;Matchniveau;Match;Årsag;Listeversion (udgivet);Navn tilnærmet');

    const row = page.locator(`tr[data-job-id="${id}"]`);
    await row.getByRole('button', { name: 'Slet kunder.csv' }).click();
    // The confirmation is asked in place; a language switch redraws the list, so it is asked again.
    const confirmButton = row.locator('.row-actions button.danger:not(.link)');
    await portal.shoot(page, '04-delete-confirm', () => confirmButton.waitFor(), () => row.locator('.row-actions button.link.danger').click());
    await row.getByRole('button', { name: 'Bekræft sletning af kunder.csv' }).click();
    await expect.poll(() => row.getByTestId('job-row-status').textContent()).toBe('Slettet');
    await waitForStatus(page, 'deleted');
    expect((await api(`/v2/check-jobs/${id}`)).body.status).toBe('deleted');
    await portal.shoot(page, '05-deleted', () => waitForStatus(page, 'deleted'));
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('a refused file says why, as the API says it, in both languages, and creates nothing', async () => {
    const { context, page, errors } = await newPage('da-DK');
    await signIn(page);
    const garbage = join(dataDir, 'kunder.xlsx');
    (await import('node:fs')).writeFileSync(garbage, Buffer.from('Dette er ikke et regneark, bare tekst i en fil med et forkert navn.\n'.repeat(20)));
    const jobsBefore = (await api('/v2/check-jobs?limit=100')).body.data.length;

    const apiRefusal = async (locale: string) => {
      const form = new FormData();
      form.append('file', new Blob([readFileSync(garbage)]), 'kunder.xlsx');
      const answer = await api('/v2/check-jobs', { method: 'POST', body: form, locale });
      expect(answer.status).toBe(422);
      return answer.body.error.message as string;
    };
    await page.locator('#file').setInputFiles(garbage);
    const danish = await apiRefusal('da');
    await expect.poll(() => page.getByTestId('error-message').textContent()).toBe(danish);
    // The file's one issue is the message itself: said once, not again as "Fil: <the same sentence>".
    expect(await page.locator('#alert li').count()).toBe(0);
    const inEnglish = await apiRefusal('en');
    // The shown refusal follows each language switch (docs/web.md "Texts"), as the API says it.
    await portal.shoot(page, '06-refused-file', async () => {
      const expected = (await page.getAttribute('html', 'lang')) === 'da' ? danish : inEnglish;
      await expect.poll(() => page.getByTestId('error-message').textContent(), { timeout: 60_000 }).toBe(expected);
      expect(await page.locator('#alert li').count()).toBe(0);
    });

    // Switching the language keeps the shown refusal, now in English (the API's own English sentence).
    await page.getByRole('button', { name: 'English' }).click();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    const english = await apiRefusal('en');
    expect(english).not.toBe(danish);
    await expect.poll(() => page.getByTestId('error-message').textContent()).toBe(english);
    expect(await page.locator('.error-title').textContent()).toBe('That did not work');
    // And the same file again in English gives the same sentence.
    await page.locator('#file').setInputFiles(garbage);
    await expect.poll(() => page.getByTestId('error-message').textContent()).toBe(english);
    expect((await api('/v2/check-jobs?limit=100')).body.data.length).toBe(jobsBefore);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('a refused start leaves no "Starter …" behind: the reason at the top of the page, in words, focused; the draft stays a draft', async () => {
    const { context, page, errors } = await newPage('da-DK');
    await signIn(page);
    // A name over 200 characters is read into the draft but refused at /start (docs/uploads.md).
    const tooLong = join(dataDir, 'lange-navne.csv');
    writeFileSync(tooLong, csvAsExcelWrites([['Navn', 'Adresse', 'Postnr', 'By'], ['Anne Robinson', 'Vestergade 12', '8000', 'Aarhus C'], [`${'x'.repeat(201)} Jensen`, 'Søndergade 9', '8700', 'Horsens']], 'excel-utf8-bom'));
    await page.locator('#file').setInputFiles(tooLong);
    await page.getByTestId('draft').waitFor();
    const id = jobIdOf(page)!;
    const start = page.getByRole('button', { name: 'Start tjekket' });
    await start.click();
    await page.getByTestId('error-message').waitFor();
    // The API's own answer to the same start (the draft's mapping), in the page's language.
    const draft = (await api(`/v2/check-jobs/${id}`)).body;
    const refusal = await api(`/v2/check-jobs/${id}/start`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ column_mapping: draft.column_mapping }) });
    expect(refusal.status).toBe(422);
    // It tells a programmer to see details.issues, which hold the row and field as API paths; the
    // page asks the person to correct the line below it, which names the row and the field in
    // words, counted as the preview counts rows (docs/web.md "Issue lines in words").
    expect(refusal.body.error.message).toContain('details.issues');
    const issues = refusal.body.error.details.issues as Array<{ path: string; message: string }>;
    expect(issues.map((issue) => issue.path)).toEqual(['rows[1].name']);
    expect(await page.getByTestId('error-message').textContent()).toBe('Ret det, der står nedenfor, og prøv igen.');
    expect(await page.locator('#alert li').allTextContents()).toEqual([`Række 2, Fulde navn: ${issues[0].message}`]);
    // Where the eye and the keyboard are: the error's title focused and inside the screen.
    expect(await page.evaluate(`document.activeElement?.matches('.error-title') ?? false`)).toBe(true);
    const top = await page.evaluate<number>(`document.querySelector('.error-title').getBoundingClientRect().top`);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(900);
    expect(await page.locator('body').textContent()).not.toContain('Starter …');
    await expect.poll(() => start.isDisabled()).toBe(false);
    expect((await api(`/v2/check-jobs/${id}`)).body.status).toBe('draft');
    // The refusal stays through the language switches, its line in the words of each language.
    const inEnglish = await api(`/v2/check-jobs/${id}/start`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ column_mapping: draft.column_mapping }), locale: 'en' });
    const shown = {
      da: ['Ret det, der står nedenfor, og prøv igen.', `Række 2, Fulde navn: ${issues[0].message}`],
      en: ['Correct what is listed below and try again.', `Row 2, Full name: ${inEnglish.body.error.details.issues[0].message as string}`],
    };
    await portal.shoot(page, '07-refused-start', async () => {
      const lang = (await page.getAttribute('html', 'lang')) as 'da' | 'en';
      await expect.poll(async () => [await page.getByTestId('error-message').textContent(), ...(await page.locator('#alert li').allTextContents())], { timeout: 60_000 })
        .toEqual(shown[lang]);
    });
    expect((await api(`/v2/check-jobs/${id}`)).body.status).toBe('draft');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('a reload mid-job keeps the job and the session: progress resumes and ends done', async () => {
    const { context, page, errors } = await newPage('da-DK');
    await signIn(page);
    await page.locator('#file').setInputFiles(files.big);
    await page.getByTestId('draft').waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Start tjekket' }).click();
    // The start reads and publishes all 150,000 rows before it answers; then the job runs.
    await page.getByTestId('job').waitFor({ timeout: 170_000 });
    const id = jobIdOf(page)!;
    expect((await api(`/v2/check-jobs/${id}`)).body.status).not.toBe('done');
    // The progress screen is photographed on a job held unfinished (below): this one may end any moment.
    await expectAccessible(page, 'progress');

    await page.reload();
    expect(jobIdOf(page)).toBe(id);
    await page.getByTestId('job').waitFor();
    expect(await page.locator('#email').count()).toBe(0);
    await waitForStatus(page, 'done', 170_000);
    const done = (await api(`/v2/check-jobs/${id}`)).body;
    expect(done.processed_count).toBe(150_000);
    expect(await page.getByTestId('progress-text').textContent()).toBe('150.000 af 150.000 rækker tjekket');
    // The session is an HttpOnly cookie: no script reads it, nothing is kept in the tab's storage.
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite])).toEqual([['__Host-robinson_session', true, true, 'Strict']]);
    const storage = await page.evaluate<string>(`JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage }, cookie: document.cookie })`);
    expect(storage).not.toContain(cookies[0].value);
    expect(storage).not.toContain(person.password);
    expect(errors).toEqual([]);
    await context.close();
  }, 300_000);

  it('live, a job from the organisation\'s integration: its progress while the phone directory holds a look-up, then failed when the directory answers an error', async () => {
    const number = '+4533123456';
    directory.held.add(number);
    try {
      // The organisation's integration (its live key) checks phones too: each is looked up in the
      // directory. 20 rows, one chunk (at most 2,000 rows a chunk: docs/architecture.md
      // "Events"): no result comes back while the look-up is held, so the job stays queued and the
      // screen cannot change under the language switches (a new status redraws it and moves the focus).
      const people: Array<{ name: string; address: string; phone?: string }> = Array.from({ length: 20 }, (_, i) => ({ name: `Person ${i} Jensen`, address: `Vestergade ${i + 1}, 8000 Aarhus C` }));
      people[0] = { name: 'Anne Robinson', address: 'Vestergade 12, 8000 Aarhus C', phone: '+45 33 12 34 56' };
      const created = await fetch(`${server.baseUrl}/v2/check-jobs`, {
        method: 'POST', headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ external_ref: 'crm-eksport', options: { check_phones: true }, people }),
      });
      expect(created.status).toBe(202);
      const id = ((await created.json()) as { id: string }).id;
      // The matcher is at the look-up, which the double holds: the job cannot end before release.
      await expect.poll(() => directory.requests.includes(`/numbers/${encodeURIComponent(number)}`), { timeout: 90_000 }).toBe(true);

      const { context, page, errors } = await newPage('da-DK');
      await signInThroughPage(page, server.baseUrl, livePerson);
      // Opened from the recent jobs, as a person finds it.
      await page.locator(`tr[data-job-id="${id}"] .row-actions button.link:not(.danger)`).click();
      const queued = page.locator('[data-testid=job][data-status=queued]');
      await queued.waitFor({ timeout: 60_000 });
      expect(jobIdOf(page)).toBe(id);
      expect(await page.getByTestId('progress-text').textContent()).toBe('0 af 20 rækker tjekket');
      await portal.shoot(page, '08-progress', () => queued.waitFor({ timeout: 60_000 }));

      directory.failing.add(number);
      directory.release();
      await waitForStatus(page, 'failed', 90_000);
      const failed = await (await fetch(`${server.baseUrl}/v2/check-jobs/${id}`, { headers: { Authorization: `Bearer ${liveKey}` } })).json() as { status: string; error: string };
      expect(failed).toMatchObject({ status: 'failed', error: 'phone_directory_unavailable' });
      expect(await page.locator('[data-testid=job] .note').textContent()).toBe(`Fejlkode: ${failed.error}. Ingen resultater; upload filen igen.`);
      await portal.shoot(page, '09-failed', () => waitForStatus(page, 'failed'));
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      // Never leave the matcher waiting on the double.
      directory.release();
    }
  }, 300_000);

  it('a pay-per-list organisation, live: the draft withholds the list\'s answers; the started job waits for payment, its price shown', async () => {
    const { context, page, errors } = await newPage('da-DK');
    await signInThroughPage(page, server.baseUrl, payer);
    await page.locator('#file').setInputFiles(files.csv);
    await page.getByTestId('draft').waitFor();
    const id = jobIdOf(page)!;
    // Read with the page's own session (a GET needs no CSRF token).
    const jobOf = async () => (await (await page.context().request.get(`${server.baseUrl}/v2/check-jobs/${id}`)).json()) as Record<string, any>;
    const draft = await jobOf();
    expect(draft.status).toBe('draft');
    // docs/uploads.md "Previews of pay-per-list drafts": no row says blocked or allowed before payment.
    expect(draft.preview.map((row: { result: { status: string } }) => row.result.status)).toEqual(Array(7).fill('manual'));
    // The withheld verdict says so in the page's language, whichever language the file was uploaded in.
    const withheldLabel = { da: 'Tjekkes, når jobbet er betalt', en: 'Checked once the job is paid for' };
    await portal.shoot(page, '10-draft-pay-per-list', async () => {
      const lang = (await page.getAttribute('html', 'lang')) as 'da' | 'en';
      await expect.poll(() => page.locator('[data-testid=preview] tbody td.verdict').allTextContents(), { timeout: 60_000 }).toEqual(Array(7).fill(withheldLabel[lang]));
    });

    await page.getByRole('button', { name: 'Start tjekket' }).click();
    await waitForStatus(page, 'awaiting_payment');
    const waiting = await jobOf();
    expect(waiting).toMatchObject({ status: 'awaiting_payment', price: { product: 'list_small', amount_cents: 49_500, currency: 'DKK' } });
    expect(await page.locator('[data-testid=job] .note').textContent()).toContain('495');
    await portal.shoot(page, '11-awaiting-payment', () => waitForStatus(page, 'awaiting_payment'));
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('the accessibility check can fail: axe finds an unlabelled field and low contrast on a page made to have them', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent('<html lang="en"><body><main><h1>x</h1><input type="text"><p class="c">faint</p></main></body></html>');
    await page.addStyleTag({ content: '.c { color: #ccc; background: #fff; }' });
    const ids = (await seriousAxeViolations(page)).map((v) => v.id).sort();
    expect(ids).toEqual(expect.arrayContaining(['color-contrast', 'label']));
    await context.close();
  });

  it('never put the key, the password or the session in a URL or in the server\'s logs', () => {
    expect(requestedUrls.length).toBeGreaterThan(20);
    const session = signedIn!.cookies[0].value;
    for (const url of requestedUrls) {
      expect(url).not.toContain('rl_test_');
      expect(url).not.toContain(session);
    }
    const logLines = server.output().split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.some((line) => line.includes('"route":"/v2/check-jobs"'))).toBe(true);
    for (const line of logLines) {
      expect(line).not.toContain(testKey);
      expect(line).not.toContain(session);
      expect(line).not.toContain(person.password);
      expect(line).not.toContain(person.mailbox.address);
    }
  });
});
