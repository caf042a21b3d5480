/**
 * Self-service in the portal (docs/web.md, docs/inbound.md "In the page"): Debian's Chromium
 * driven by playwright-core against `npm start`, signed in as an invited admin. An SFTP drop
 * folder added in the page on the test OpenSSH server (a wrong host key and a made-up key
 * refused, nothing stored; the server's own key line and a private key the server accepts:
 * added, its fingerprint shown as ssh-keygen prints it); a connector added (too short an
 * interval and an internal address refused; its token never shown again); the issue lines of
 * a shown error name the field in words (never an API path) and follow a language switch.
 * Every screen in da and en, desktop and 360 px, axe 0 violations.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedProcess } from '../support/embedded-process.ts';
import { makeSpreadsheets } from '../support/files/spreadsheets.ts';
import { createMailUser, type MailUser } from '../support/mail.ts';
import { acceptInvitationOverApi, invitationLink, inviteByCli, portalTest, signInThroughPage, type SignedInState } from '../support/portal.ts';
import { createSftpAccount, generateSshKeyPair, type SftpAccount } from '../support/sftp.ts';

const run = promisify(execFile);
const PASSWORD = 'egne kanaler og kolonner 2026';

let server: StartedProcess;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let orgId: string;
let adminBox: MailUser;
let account: SftpAccount | undefined;
let adminState: SignedInState;
const portal = portalTest({
  name: 'portal-self-service', screenshots: 'self-service', mailboxes: ['selfservice'],
  // The key that seals the folders' and connectors' credentials; the test servers are on loopback.
  env: { INBOUND_SECRET_KEY: randomBytes(32).toString('base64'), CALLBACK_ALLOW_HOSTS: '127.0.0.1' },
});
const { newContext, switchTo, shoot, pageErrors } = portal;

beforeAll(async () => {
  ({ server, env, dataDir, orgId, mailboxes: [adminBox] } = await portal.start());
  // The organisation's first admin, invited by the operator, signed in through the page (live mode).
  await inviteByCli(env, orgId, adminBox.address, 'admin');
  const secret = await acceptInvitationOverApi(server.baseUrl, adminBox, PASSWORD);
  const { context, page } = await newContext('da-DK');
  await signInThroughPage(page, server.baseUrl, { email: adminBox.address, password: PASSWORD, secret });
  adminState = await context.storageState();
  await context.close();
}, 240_000);

afterAll(async () => {
  await portal.stop();
  await account?.remove();
});

/** The shown error's issue lines, as text. */
const issueLines = (page: Page) => page.locator('#alert li').allTextContents();

/** An API path before a colon: `column_mapping.name:`, `rows[3]:`, `host_public_key:`. */
const API_PATH = /\b[a-z_]+(\.[a-z_]+|\[\d+\])+:|(^|\s)[a-z]+(_[a-z]+)+:/;

/**
 * The shown error is in a person's words (docs/web.md "Issue lines in words"): no line starts
 * with an API path, and no "See details.issues".
 */
async function expectInWords(page: Page): Promise<void> {
  const lines = await issueLines(page);
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.filter((line) => API_PATH.test(line))).toEqual([]);
  expect(await page.locator('#alert').textContent()).not.toContain('details.issues');
}

/** The same request the page sent, answered in `locale`: the API's own issue lines, to compare with. */
async function apiIssues(page: Page, path: string, body: unknown, locale: 'da' | 'en'): Promise<string[]> {
  const csrf = await page.evaluate<string>(`fetch('/v2/session').then((r) => r.json()).then((s) => s.csrf_token)`);
  const answer = await page.evaluate<{ status: number; body: { error: { details?: { issues?: Array<{ path: string; message: string }> } } } }>(
    `fetch(${JSON.stringify(path)}, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept-Language': ${JSON.stringify(locale)}, 'X-CSRF-Token': ${JSON.stringify(csrf)} }, body: ${JSON.stringify(JSON.stringify(body))} })
      .then(async (r) => ({ status: r.status, body: await r.json() }))`);
  expect(answer.status).toBe(422);
  return (answer.body.error.details?.issues ?? []).map((i) => `${i.path}: ${i.message}`);
}

const listOf = <T,>(page: Page, path: string) => page.evaluate<{ data: T[] }>(`fetch(${JSON.stringify(path)}).then((r) => r.json())`);

/** One field of a form, the value a person half-typed into it. */
type Typed = [selector: string, value: string | boolean];

/**
 * Fills `fields` as a person would, then switches the language twice: each time the form is a
 * new one (the old elements are gone), in the new language, with every value still there, and the
 * focus on the language button just pressed (docs/web.md "Language switch keeps what was typed").
 */
async function expectKeptAcrossSwitches(page: Page, fields: Typed[], afterSwitch: () => Promise<unknown> = async () => undefined): Promise<void> {
  for (const [selector, value] of fields) {
    const field = page.locator(selector);
    const tag = await field.evaluate((e) => e.tagName);
    if (typeof value === 'boolean') await field.setChecked(value);
    else if (tag === 'SELECT') await field.selectOption(value);
    else await field.fill(value);
  }
  const start = await page.getAttribute('html', 'lang');
  for (const language of start === 'da' ? ['en', 'da'] as const : ['da', 'en'] as const) {
    // switchTo marks the old elements: a field still carrying the mark was never drawn anew.
    await switchTo(page, language);
    await afterSwitch();
    for (const [selector, value] of fields) {
      const field = page.locator(selector);
      expect(await field.getAttribute('data-before-switch'), `${selector} drawn anew in ${language}`).toBeNull();
      if (typeof value === 'boolean') expect(await field.isChecked(), `${selector} in ${language}`).toBe(value);
      else expect(await field.inputValue(), `${selector} in ${language}`).toBe(value);
    }
  }
}

describe('self-service in the portal (Playwright driving Debian Chromium against npm start)', () => {
  it('an SFTP drop folder added in the page: a wrong host key and a made-up key refused in the person\'s language, nothing stored; the right key added and shown as ssh-keygen prints it', async () => {
    account = await createSftpAccount();
    const stranger = await generateSshKeyPair('another-server');
    const { context, page } = await newContext('da-DK', adminState);
    await page.goto(server.baseUrl + '/#channels');
    const form = page.getByTestId('add-folder');
    await form.waitFor();
    const sftp = account;
    // The form as an admin fills it (again after a language switch: the screen is drawn anew).
    const fillFolder = async (publicKey: string) => {
      await page.locator('#folder-host').fill(sftp.host);
      await page.locator('#folder-port').fill(String(sftp.port));
      await page.locator('#folder-user').fill(sftp.user);
      await page.locator('#folder-private-key').fill(sftp.privateKey);
      await page.locator('#folder-public-key').fill(publicKey);
    };

    // A text that is no key: refused at the field, in Danish.
    await fillFolder('dette er ikke en nøgle');
    await form.getByRole('button', { name: 'Tjek og tilføj mappen' }).click();
    await page.getByTestId('error-message').waitFor();
    expect(await issueLines(page)).toEqual(['Værtsnøgle: Indsæt serverens offentlige nøgle som én linje, som ssh-keyscan eller en .pub-fil viser den (fx "ssh-ed25519 AAAA…").']);
    // The API's "See details.issues" is for programmers: a person is asked to correct the lines below.
    expect(await page.getByTestId('error-message').textContent()).toBe('Ret det, der står nedenfor, og prøv igen.');
    await expectInWords(page);

    // Another server's key: the service connects, the server shows its own key, nothing is stored.
    await page.locator('#folder-public-key').fill(stranger.public);
    await form.getByRole('button', { name: 'Tjek og tilføj mappen' }).click();
    await expect.poll(() => issueLines(page)).toEqual(['Værtsnøgle: Serveren viste en anden nøgle end den indsatte. Intet er gemt; tjek nøglen med ssh-keyscan.']);
    expect((await listOf(page, '/v2/drop-folders')).data).toEqual([]);
    const sent = { host: account.host, port: account.port, username: account.user, path: '/', host_public_key: stranger.public, private_key: account.privateKey, locale: 'da' };
    // The API's own line, its field said in words.
    const inWords = (lines: string[], words: string) => lines.map((line) => {
      expect(line).toMatch(/^host_public_key: /);
      return line.replace(/^host_public_key: /, `${words}: `);
    });
    expect(await issueLines(page)).toEqual(inWords(await apiIssues(page, '/v2/drop-folders', sent, 'da'), 'Værtsnøgle'));
    // The issue line follows a language switch: the API's own English line, the field's English word.
    await switchTo(page, 'en');
    await expect.poll(() => issueLines(page)).toEqual(inWords(await apiIssues(page, '/v2/drop-folders', sent, 'en'), 'Host key'));
    expect(await issueLines(page)).toEqual(['Host key: The server showed another key than the one pasted. Nothing was saved; check the key with ssh-keyscan.']);
    expect(await page.getByTestId('error-message').textContent()).toBe('Correct what is listed below and try again.');
    await expectInWords(page);
    await shoot(page, '01-folder-refused', () => page.locator('#alert li').waitFor());

    // The server's own key line (as ssh-keyscan prints it): connected, logged in, inbox/ found, stored.
    await switchTo(page, 'da');
    await fillFolder(account.hostKeyLine);
    await form.getByRole('button', { name: 'Tjek og tilføj mappen' }).click();
    const row = page.locator('[data-testid=drop-folders] tbody tr');
    await row.waitFor();
    // The fingerprint as OpenSSH's own ssh-keygen prints it for the server's key.
    writeFileSync(join(dataDir, 'server-key.pub'), `${account.hostKeyLine}\n`);
    const fingerprint = (await run('ssh-keygen', ['-l', '-f', join(dataDir, 'server-key.pub')])).stdout.split(' ')[1];
    expect(await row.getByTestId('host-key').textContent()).toBe(fingerprint);
    expect(await row.locator('td').first().textContent()).toBe(`${account.user}@${account.host}:${account.port}/`);
    expect(await page.locator('#folder-private-key').inputValue()).toBe('');
    const folders = (await listOf<{ auth: string; host_key_sha256: string }>(page, '/v2/drop-folders')).data;
    expect(folders.map((f) => [f.auth, f.host_key_sha256])).toEqual([['key', account.hostKeySha256]]);
    expect(JSON.stringify(folders)).not.toContain('PRIVATE KEY');
    await shoot(page, '02-folder-added', () => row.waitFor());

    // Who did it is in the audit log.
    await page.goto(server.baseUrl + '/#audit');
    await page.locator('[data-testid=audit] tbody tr').first().waitFor();
    expect(await page.locator('[data-testid=audit] tbody').textContent()).toContain('Tilføjede en SFTP-mappe');
    await context.close();
    expect(pageErrors).toEqual([]);
  }, 240_000);

  it('a connector added in the page: too short an interval and an internal address refused, nothing stored; added, its token never shown again', async () => {
    const { context, page } = await newContext('en-GB', adminState);
    await page.goto(server.baseUrl + '/#channels');
    const form = page.getByTestId('add-connector');
    await form.waitFor();
    await page.locator('#connector-url').fill('https://127.0.0.1:9443/eksport/kunder.csv?token=hemmeligt');
    await page.locator('#connector-interval').fill('1');
    await form.getByRole('button', { name: 'Add connector' }).click();
    await expect.poll(() => issueLines(page)).toEqual(['Interval (minutes): Must be between 5 and 527040 minutes.']);
    // A line with a number in it follows the language too.
    await switchTo(page, 'da');
    await expect.poll(() => issueLines(page)).toEqual(['Interval (minutter): Skal være mellem 5 og 527040 minutter.']);
    await expectInWords(page);
    await switchTo(page, 'en');

    await page.locator('#connector-interval').fill('60');
    await page.locator('#connector-url').fill('https://10.1.2.3/eksport/kunder.csv');
    await form.getByRole('button', { name: 'Add connector' }).click();
    await expect.poll(() => issueLines(page)).toEqual(["The file's address: The address points to an internal or private network and is not allowed."]);
    await expectInWords(page);
    await page.locator('#connector-url').fill('https://127.0.0.1:9443/eksport/kunder.csv?token=hemmeligt');
    await page.locator('#connector-header-name').fill('Authorization');
    await form.getByRole('button', { name: 'Add connector' }).click();
    await expect.poll(() => issueLines(page)).toEqual(["The header's value: Give both the header's name and value, or neither."]);
    await expectInWords(page);
    expect((await listOf(page, '/v2/connectors')).data).toEqual([]);

    await page.locator('#connector-header-value').fill('Bearer hemmelig-nøgle');
    await form.getByRole('button', { name: 'Add connector' }).click();
    const row = page.locator('[data-testid=connectors] tbody tr');
    await row.waitFor();
    expect(await row.locator('td').first().textContent()).toBe('https://127.0.0.1:9443/eksport/kunder.csv');
    expect(await row.locator('td').nth(1).textContent()).toBe('every 60 minutes');
    const connectors = (await listOf<{ auth_header_name: string; interval_seconds: number; url: string }>(page, '/v2/connectors')).data;
    expect(connectors.map((c) => [c.url, c.auth_header_name, c.interval_seconds])).toEqual([['https://127.0.0.1:9443/eksport/kunder.csv', 'Authorization', 3600]]);
    const shown = await page.locator('[data-testid=channels]').textContent();
    expect(shown).not.toContain('hemmelig');
    expect(JSON.stringify(connectors)).not.toContain('hemmelig');
    await shoot(page, '03-connector-added', () => row.waitFor());
    await context.close();
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('a draft\'s issue lines follow a language switch: a refused file and a column the file does not have', async () => {
    const { context, page } = await newContext('da-DK', adminState);
    await page.goto(server.baseUrl + '/');
    const garbage = join(dataDir, 'kunder.xlsx');
    writeFileSync(garbage, Buffer.from('Dette er ikke et regneark, bare tekst i en fil med et forkert navn.\n'.repeat(20)));
    await page.locator('#file').setInputFiles(garbage);
    const message = page.getByTestId('error-message');
    await message.waitFor();
    // The refusal's one issue says what the message says, so it is not repeated as a line
    // (docs/web.md "Issue lines in words"); the message follows the switch.
    expect(await issueLines(page)).toEqual([]);
    const danish = await message.textContent();
    expect(danish).toMatch(/Filen/);
    await switchTo(page, 'en');
    await expect.poll(() => message.textContent()).not.toBe(danish);
    expect(await message.textContent()).toMatch(/\bfile\b/i);
    expect(await issueLines(page)).toEqual([]);

    // A draft, then "Update preview" with a column the file does not have (as a page left open while the draft's file changed).
    await switchTo(page, 'da');
    const [csv] = await makeSpreadsheets(dataDir, [{ name: 'kunder.csv', rows: [['Navn', 'Adresse', 'Postnr', 'By'], ['Anne Robinson', 'Vestergade 12', '8000', 'Aarhus C']], via: 'excel-utf8-bom' }]);
    await page.locator('#file').setInputFiles(csv);
    await page.getByTestId('draft').waitFor();
    await page.evaluate(`(() => {
      const select = document.getElementById('map-name');
      select.add(new Option('Kolonne 40', '40'));
      select.value = '40';
      select.dispatchEvent(new Event('change'));
    })()`);
    await page.getByRole('button', { name: 'Opdatér forhåndsvisning' }).click();
    await expect.poll(() => issueLines(page)).toEqual(['Navnekolonne: Kolonnen findes ikke i filen.']);
    await switchTo(page, 'en');
    await expect.poll(() => issueLines(page)).toEqual(['Name column: The column does not exist in the file.']);
    await expectInWords(page);
    await shoot(page, '04-draft-issue-lines', () => page.locator('#alert li').waitFor());
    expect(readFileSync(csv).length).toBeGreaterThan(0);
    await context.close();
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('saved column mappings: a draft\'s columns saved under a name; next month\'s export with the same headers (other case and spaces) gets them and says so, another file does not; listed and deleted', async () => {
    const { context, page } = await newContext('da-DK', adminState);
    await page.goto(server.baseUrl + '/');
    // "Kontakt" is a header the guesser does not read as a name: the person picks it once.
    const [november, december, other] = await makeSpreadsheets(dataDir, [
      { name: 'crm-november.csv', rows: [['Kundenr', 'Kontakt', 'Adresse', 'Post nr', 'By'], ['K-1', 'Anne Robinson', 'Vestergade 12', '8000', 'Aarhus C'], ['K-2', 'Bo Bygning', 'Nørregade 3', '1000', 'København K']], via: 'excel-1252-semicolon' },
      { name: 'crm-december.xlsx', rows: [['KUNDENR', ' kontakt', 'Adresse', 'post  nr', 'By'], ['K-3', 'Carl Fornavn', 'Torvet 1', '4000', 'Roskilde']], via: 'exceljs' },
      { name: 'webshop.csv', rows: [['Kundenr', 'Kontakt', 'Adresse', 'Postnummer', 'By'], ['W-1', 'Finn Jensen', 'Søndergade 9', '8700', 'Horsens']], via: 'excel-utf8-bom' },
    ]);
    await page.getByTestId('saved-mappings').getByText('Ingen gemte kolonnevalg endnu.', { exact: false }).waitFor();
    await page.locator('#file').setInputFiles(november);
    await page.getByTestId('draft').waitFor();
    expect(await page.getByTestId('mapping-applied').count()).toBe(0);
    expect(await page.locator('[data-testid=draft-warnings] li').evaluateAll((items) => items.map((li) => li.getAttribute('data-code')))).toContain('no_name_column');
    await page.locator('#map-name').selectOption({ label: 'Kontakt' });
    await page.getByRole('button', { name: 'Opdatér forhåndsvisning' }).click();
    await expect.poll(() => page.getByTestId('draft-warnings').count()).toBe(0);
    const novemberDraft = await page.evaluate<string>('location.hash.slice(5)');
    await page.locator('#mapping-name').fill('CRM-udtræk');
    await page.getByRole('button', { name: 'Gem kolonnerne' }).click();
    await expect.poll(() => page.getByTestId('mapping-saved').textContent()).toBe('Gemt som "CRM-udtræk". Næste fil med de samme overskrifter får disse kolonner.');
    const saved = (await listOf<{ name: string; columns: string[]; column_mapping: Record<string, number> }>(page, '/v2/column-mappings')).data;
    expect(saved.map((m) => [m.name, m.columns, m.column_mapping.name])).toEqual([['CRM-udtræk', ['Kundenr', 'Kontakt', 'Adresse', 'Post nr', 'By'], 1]]);
    expect(saved.map((m) => (m as { channels?: unknown }).channels)).toEqual([null]);
    expect(novemberDraft).toMatch(/^[0-9a-f-]{36}$/);

    // Next month's export: other case and spaces in the headers, the same columns: the saved mapping is used and said.
    await page.getByRole('link', { name: 'Tjek en fil', exact: true }).click();
    await page.locator('#file').setInputFiles(december);
    await page.getByTestId('mapping-applied').waitFor();
    expect(await page.getByTestId('mapping-applied').textContent()).toBe('De gemte kolonner "CRM-udtræk" er brugt: filen har de samme overskrifter. Se dem efter nedenfor.');
    expect(await page.locator('#map-name').inputValue()).toBe('1');
    expect(await page.getByTestId('draft-warnings').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Start tjekket' }).isDisabled()).toBe(false);
    // The preview is the true one of those columns: the name cell is the contact's.
    const decemberId = await page.evaluate<string>('location.hash.slice(5)');
    const draft = await page.evaluate<{ column_mapping: Record<string, number>; warnings?: unknown[] }>(`fetch('/v2/check-jobs/${decemberId}').then((r) => r.json())`);
    expect(draft.column_mapping.name).toBe(1);
    expect(draft.warnings ?? []).toEqual([]);
    await shoot(page, '05-mapping-applied', () => page.getByTestId('mapping-applied').waitFor());

    // Another export (one header differs): guessed as before, nothing said.
    await page.getByRole('link', { name: 'Tjek en fil', exact: true }).click();
    await page.locator('#file').setInputFiles(other);
    await page.getByTestId('draft').waitFor();
    const otherId = await page.evaluate<string>('location.hash.slice(5)');
    expect(otherId).not.toBe(decemberId);
    expect(await page.getByTestId('mapping-applied').count()).toBe(0);
    expect((await listOf(page, `/v2/column-mappings?job_id=${otherId}`)).data).toEqual([]);

    // Listed on the upload screen, and deleted (asked once more in place).
    await page.getByRole('link', { name: 'Tjek en fil', exact: true }).click();
    const row = page.locator('[data-testid=saved-mappings] tbody tr');
    await row.waitFor();
    expect(await row.locator('td').first().textContent()).toBe('CRM-udtræk');
    // Saved with the form's default: for every channel (docs/inbound.md "Saved column mappings on every channel").
    expect(await row.locator('td').nth(3).textContent()).toBe('Alle kanaler');
    await shoot(page, '06-mappings-list', () => row.waitFor());
    await page.getByRole('button', { name: 'Slet: CRM-udtræk' }).click();
    await page.getByRole('button', { name: 'Bekræft sletning af CRM-udtræk' }).click();
    await page.getByTestId('saved-mappings').getByText('Ingen gemte kolonnevalg endnu.', { exact: false }).waitFor();
    expect((await listOf(page, '/v2/column-mappings')).data).toEqual([]);

    // Bad input: a mapping to a column the file does not have, and an unknown job: 422 in the caller's language, nothing saved.
    const english = await apiIssues(page, '/v2/column-mappings', { name: 'x', job_id: decemberId, column_mapping: { header_row: 0, name: 9 } }, 'en');
    expect(english).toEqual(['column_mapping.name: The column does not exist in the file.']);
    const danish = await apiIssues(page, '/v2/column-mappings', { name: 'x', job_id: randomUUID(), column_mapping: { name: 1 } }, 'da');
    expect(danish).toEqual(['job_id: Ukendt job.']);
    expect((await listOf(page, '/v2/column-mappings')).data).toEqual([]);
    await page.goto(server.baseUrl + '/#audit');
    await page.locator('[data-testid=audit] tbody tr').first().waitFor();
    const audit = await page.locator('[data-testid=audit] tbody').textContent();
    for (const what of ['Gemte et kolonnevalg', 'Slettede et kolonnevalg']) expect(audit).toContain(what);
    await context.close();
    expect(pageErrors).toEqual([]);
  }, 240_000);

  it('a language switch keeps what was typed in every form of the page, and the focus on the language button', async () => {
    // Signed out: the sign-in form.
    const signedOut = await newContext('da-DK');
    await signedOut.page.goto(server.baseUrl + '/');
    await signedOut.page.getByTestId('sign-in').waitFor();
    await expectKeptAcrossSwitches(signedOut.page, [['#email', 'halv@kunde.test'], ['#password', 'halvt skrevet kodeord'], ['#code', '1234'], ['#test-mode', true]]);
    await signedOut.context.close();

    // An invitation link: its form is drawn once the invitation is loaded (after each switch too).
    const invitee = await createMailUser('skift', 'customer.test');
    try {
      await inviteByCli(env, orgId, invitee.address, 'member');
      const invited = await newContext('da-DK');
      await invited.page.goto(await invitationLink(invitee));
      await invited.page.locator('#new-password').waitFor();
      await expectKeptAcrossSwitches(invited.page, [['#new-password', 'et halvt nyt kodeord'], ['#first-code', '123']],
        () => invited.page.locator('#new-password').waitFor());
      await invited.context.close();
    } finally {
      await invitee.remove();
    }

    const { context, page } = await newContext('da-DK', adminState);
    await page.goto(server.baseUrl + '/');
    // A draft whose columns the guesser cannot read: the person maps them, ticks the warnings box
    // and names the mapping, then switches; "Update preview" and Start follow the kept values.
    const [unguessable] = await makeSpreadsheets(dataDir, [{ name: 'skift-kunder.csv', rows: [['Kunde', 'Sted'], ['Anne Robinson', 'Vestergade 12, 8000 Aarhus C']], via: 'excel-utf8-bom' }]);
    await page.locator('#file').setInputFiles(unguessable);
    await page.getByTestId('draft-warnings').waitFor();
    await expectKeptAcrossSwitches(page, [['#map-name', '0'], ['#map-address', '1'], ['#confirm-warnings', true], ['#mapping-name', 'Kundeliste fra CRM'], ['#mapping-channels', 'sftp']]);
    expect(await page.getByRole('button', { name: 'Opdatér forhåndsvisning' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Start tjekket' }).isDisabled()).toBe(false);

    // The history's filters: kept, and the list asked again with them.
    await page.goto(server.baseUrl + '/#history');
    await page.locator('#filter-q').waitFor();
    await expectKeptAcrossSwitches(page, [['#filter-source', 'sftp'], ['#filter-from', '2026-01-01'], ['#filter-q', 'skift-kunder']]);
    // Unfiltered the list holds the draft above; with the kept filters (SFTP only) it is empty.
    await expect.poll(() => page.getByTestId('jobs').getByText('Ingen job endnu.').count(), { timeout: 60_000 }).toBe(1);

    await page.goto(server.baseUrl + '/#monitors');
    await page.locator('#monitor-name').waitFor();
    await expectKeptAcrossSwitches(page, [['#monitor-name', 'Medlemmer halvt navngivet']]);

    await page.goto(server.baseUrl + '/#users');
    await page.locator('#invite-email').waitFor();
    await expectKeptAcrossSwitches(page, [['#invite-email', 'ny.kollega@kunde.test'], ['#invite-role', 'admin']]);

    await page.goto(server.baseUrl + '/#keys');
    await page.locator('#key-label').waitFor();
    await expectKeptAcrossSwitches(page, [['#key-label', 'Halv nøgle'], ['#key-mode', 'test']]);

    // Settings load after the form is drawn: the loaded values (the field's value attribute is
    // the loaded one) do not overwrite what the person had changed.
    await page.goto(server.baseUrl + '/#settings');
    await page.locator('#retention[value]').waitFor();
    const loaded = await page.locator('#retention').inputValue();
    const changedTo = loaded === '45' ? '46' : '45';
    await expectKeptAcrossSwitches(page, [['#stop-level', '4'], ['#retention', changedTo]], () => page.locator('#retention[value]').waitFor());
    expect(await page.locator('#retention').getAttribute('value')).toBe(loaded);

    await page.goto(server.baseUrl + '/#channels');
    await page.getByTestId('add-connector').waitFor();
    await expectKeptAcrossSwitches(page, [
      ['#sender-address', 'bogholder@kunde.test'], ['#sender-locale', 'en'],
      ['#folder-host', 'sftp.kunde.test'], ['#folder-port', '2222'], ['#folder-user', 'robinson'], ['#folder-path', '/ud'],
      ['#folder-public-key', 'ssh-ed25519 AAAAhalv'], ['#folder-password', 'hemmeligt halvt'], ['#folder-private-key', '-----BEGIN halv'], ['#folder-locale', 'en'],
      ['#connector-url', 'https://kunde.test/eksport.csv'], ['#connector-interval', '120'], ['#connector-header-name', 'Authorization'], ['#connector-header-value', 'Bearer halv'],
    ]);
    // Nothing was sent by the switches.
    expect((await listOf(page, '/v2/drop-folders')).data.length).toBeLessThanOrEqual(1);
    expect((await listOf<{ url: string }>(page, '/v2/connectors')).data.map((c) => c.url)).not.toContain('https://kunde.test/eksport.csv');
    await context.close();
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
