import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedProcess } from '../support/embedded-process.ts';
import { allAxeViolations, screenshot, seriousAxeViolations } from '../support/browser.ts';
import { csvAsExcelWrites, makeSpreadsheets, type Rows } from '../support/files/spreadsheets.ts';
import type { MailUser } from '../support/mail.ts';
import { acceptInvitationOverApi, inviteByCli, portalTest, TEST_MODE_PEOPLE, type SignedInState } from '../support/portal.ts';
import { referenceTotp } from '../support/totp-reference.ts';

/**
 * The web page (docs/web.md) in a real browser: Debian's Chromium driven by playwright-core
 * against `npm start` (services/main.ts on a free port, its demo organisation's test key). Files
 * are written by exceljs and as Excel writes CSV. Each step's screenshot goes to docs/screenshots
 * (shown in the README); axe-core checks every step and finds no violation of any impact.
 */
let server: StartedProcess;
let browser: Browser;
let dataDir: string;
let testKey: string;
/** The person who signs in (invited through the MTA, docs/people.md) and the session the later tests reuse. */
let person: { mailbox: MailUser; password: string; secret: string };
let signedIn: SignedInState | undefined;
let files: { xlsx: string; csv: string; big: string };
const portal = portalTest({ name: 'web-page', mailboxes: ['web'] });
/** Every URL the browsers asked for: the key must never be in one. */
const requestedUrls: string[] = [];

// Test keys give fixed answers (docs/decisions.md §3): the surname picks the level, `?` an unreadable address.
const PEOPLE: Rows = TEST_MODE_PEOPLE;
const EXPECTED_LEVELS = { '5': 1, '4': 1, '3': 1, '2': 1, '1': 1, '0': 1, unread: 1 };

beforeAll(async () => {
  let mailbox: MailUser;
  let env: NodeJS.ProcessEnv;
  let orgId: string;
  ({ server, env, dataDir, orgId, browser, mailboxes: [mailbox] } = await portal.start());
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
  // A person of the demo organisation: invited by the operator, the invitation accepted over the API.
  await inviteByCli(env, orgId, mailbox.address);
  const password = 'en lang adgangskode til siden';
  person = { mailbox, password, secret: await acceptInvitationOverApi(server.baseUrl, mailbox, password) };
}, 180_000);

afterAll(() => portal.stop());

/**
 * A fresh browser context (own sessionStorage) on the page. `errors` collects script errors and
 * console errors; the browser's own "Failed to load resource" lines for the API's 4xx answers
 * are expected (the page shows those answers) and left out.
 */
async function newPage(locale: 'da-DK' | 'en-GB', viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ locale, viewport, acceptDownloads: true });
  const page = await context.newPage();
  page.on('request', (request) => requestedUrls.push(request.url()));
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
    await screenshot(page, '01-sign-in-en');
    await expectAccessible(page, 'sign in');

    await signInByKeyboard(page, referenceTotp(person.secret, new Date(), 1), 'a wrong password, typed');
    const refused = await fetch(`${server.baseUrl}/v2/session`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept-Language': 'en' },
      body: JSON.stringify({ email: person.mailbox.address, password: 'a wrong password, typed', code: '000000' }),
    });
    const refusal = ((await refused.json()) as { error: { message: string } }).error.message;
    expect(refusal).toBe('The e-mail, password or code from your authenticator app is not right. Please try again.');
    await expect.poll(() => page.getByTestId('error-message').textContent()).toBe(refusal);
    await screenshot(page, '02-sign-in-refused-en');

    // The code was cleared by the refusal; the e-mail stays. The next step's code (the one
    // the invitation used is spent).
    await page.locator('#email').fill('');
    await page.locator('#password').fill('');
    await signInByKeyboard(page, referenceTotp(person.secret, new Date(), 1));
    await page.locator('#dropzone').waitFor();
    signedIn = await context.storageState();
    expect(await page.locator('[role=alert]').isHidden()).toBe(true);
    await screenshot(page, '03-upload-en');
    await expectAccessible(page, 'upload');

    // The file picker, opened from the keyboard.
    await tabTo(page, '#file');
    const chooser = page.waitForEvent('filechooser');
    await page.keyboard.press('Space');
    await (await chooser).setFiles(files.xlsx);
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
    await screenshot(page, '04-draft-guessed-en');
    await expectAccessible(page, 'draft');

    // Pick the name column with the keyboard (type-ahead in the select), then a true preview.
    await tabTo(page, '#map-name');
    await page.keyboard.type('Contact');
    expect(await page.locator('#map-name').inputValue()).toBe('1');
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
    await screenshot(page, '05-draft-fixed-en');

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
    await screenshot(page, '06-done-en');
    await expectAccessible(page, 'done');

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
    await screenshot(page, '07-upload-da-360');

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
    await screenshot(page, '08-draft-da-360');
    await expectAccessible(page, 'draft at 360 px');

    await page.getByRole('button', { name: 'Start tjekket' }).click();
    await waitForStatus(page, 'done');
    const id = jobIdOf(page)!;
    expect(await page.getByTestId('progress-text').textContent()).toBe('7 af 7 rækker tjekket');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await screenshot(page, '09-done-da-360');
    await expectAccessible(page, 'done at 360 px');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Hent resultatfilen' }).click();
    const csv = (await savedDownload(await download)).toString('latin1');
    // The input's own dialect (Windows-1252, `;`) with the verdict headers in Danish.
    expect(csv.split('\r\n')[0]).toBe('Kundenr;Navn;Adresse;Postnr;By;Status;Matchniveau;Match;Årsag;Listeversion (udgivet);Navn tilnærmet');

    const row = page.locator(`tr[data-job-id="${id}"]`);
    await row.getByRole('button', { name: 'Slet kunder.csv' }).click();
    await screenshot(page, '10-delete-confirm-da-360');
    await row.getByRole('button', { name: 'Bekræft sletning af kunder.csv' }).click();
    await expect.poll(() => row.getByTestId('job-row-status').textContent()).toBe('Slettet');
    await waitForStatus(page, 'deleted');
    expect((await api(`/v2/check-jobs/${id}`)).body.status).toBe('deleted');
    await screenshot(page, '11-deleted-da-360');
    await expectAccessible(page, 'deleted at 360 px');
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
    await screenshot(page, '12-refused-da');
    await expectAccessible(page, 'refused file');

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
    await screenshot(page, '13-refused-en');
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
    await screenshot(page, '14-progress-da');
    await expectAccessible(page, 'progress');

    await page.reload();
    expect(jobIdOf(page)).toBe(id);
    await page.getByTestId('job').waitFor();
    expect(await page.locator('#email').count()).toBe(0);
    await waitForStatus(page, 'done', 170_000);
    const done = (await api(`/v2/check-jobs/${id}`)).body;
    expect(done.processed_count).toBe(150_000);
    expect(await page.getByTestId('progress-text').textContent()).toBe('150.000 af 150.000 rækker tjekket');
    await screenshot(page, '15-done-after-reload-da');
    // The session is an HttpOnly cookie: no script reads it, nothing is kept in the tab's storage.
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.secure, c.sameSite])).toEqual([['__Host-robinson_session', true, true, 'Strict']]);
    const storage = await page.evaluate<string>(`JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage }, cookie: document.cookie })`);
    expect(storage).not.toContain(cookies[0].value);
    expect(storage).not.toContain(person.password);
    expect(errors).toEqual([]);
    await context.close();
  }, 300_000);

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
