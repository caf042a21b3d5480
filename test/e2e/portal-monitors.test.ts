/**
 * Monitors in the portal (docs/web.md "Monitors", docs/monitors.md): Debian's Chromium driven by
 * playwright-core against `npm start` (its monitor service walks every 300 ms here), signed in as
 * an invited admin in live mode. The flow "a monitor with a change report": a list version is
 * imported and activated with the admin CLI (a separate process, as an operator does it); a
 * monitor is made in the page from an xlsx written by exceljs whose name column the guesser does
 * not know (the warning, the column picked, the draft's preview again); its first check; a second
 * list version activated during the test (one member off the list, one on) makes a re-check whose
 * change report the page shows and downloads as a file with the column Ændring / Change, read
 * back and checked; the monitor deleted. Waits are on the monitor's own state (its last check's
 * list version), never on time. Every screen in da and en, desktop and 360 px, axe 0 violations.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedProcess } from '../support/embedded-process.ts';
import { makeSpreadsheets, type Rows } from '../support/files/spreadsheets.ts';
import type { MailUser } from '../support/mail.ts';
import { invitationLink, inviteByCli, portalTest, signInThroughPage, type SignedInState } from '../support/portal.ts';
import { referenceTotp } from '../support/totp-reference.ts';
import { until } from '../support/until.ts';

const run = promisify(execFile);
const ADMIN_CLI = join(import.meta.dirname, '../../services/admin/cli.ts');
const PASSWORD = 'overvågning af medlemmer 2026';

let server: StartedProcess;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let orgId: string;
let xlsxFile: string;
let adminBox: MailUser;
const portal = portalTest({
  name: 'portal-monitors', screenshots: 'monitors', mailboxes: ['monitors'], acceptDownloads: true,
  // The API reads a version the admin tool activated at its next refresh: every second here.
  env: { MONITOR_INTERVAL_MS: '300', LIST_REFRESH_SECONDS: '1' },
});
const { newContext, shoot, pageErrors } = portal;

// The contacts: "Kontakt" is a header the guesser does not read as a name, so the draft warns.
const CONTACTS: Rows = [
  ['Kundenr', 'Kontakt', 'Adresse', 'Postnr', 'By'],
  ['K-1', 'Anne Robinson', 'Vestergade 12', '8000', 'Aarhus C'],
  ['K-2', 'Bo Bygning', 'Nørregade 3', '1000', 'København K'],
  ['K-3', 'Carl Fornavn', 'Torvet 1', '4000', 'Roskilde'],
  ['K-4', 'Finn Jensen', 'Søndergade 9', '8700', 'Horsens'],
];
// The national list, twice: the second takes Bo off and puts Carl on.
const LIST_1 = 'Navn;Adresse;Postnr;By\r\nAnne Robinson;Vestergade 12;8000;Aarhus C\r\nBo Bygning;Nørregade 3;1000;København K\r\n';
const LIST_2 = 'Navn;Adresse;Postnr;By\r\nAnne Robinson;Vestergade 12;8000;Aarhus C\r\nCarl Fornavn;Torvet 1;4000;Roskilde\r\n';

beforeAll(async () => {
  ({ server, env, dataDir, orgId, mailboxes: [adminBox] } = await portal.start());
  [xlsxFile] = await makeSpreadsheets(dataDir, [{ name: 'medlemmer.xlsx', rows: CONTACTS, via: 'exceljs' }]);
}, 180_000);

afterAll(() => portal.stop());

/** `npm run admin -- lists import --format csv --activate`: a new national list version, as an operator publishes it. */
async function activateList(name: string, csv: string, publishedOn: string): Promise<string> {
  const file = join(dataDir, name);
  writeFileSync(file, csv);
  const { stdout } = await run(process.execPath, [ADMIN_CLI, 'lists', 'import', '--format', 'csv', '--source', 'cpr', '--file', file,
    '--published-on', publishedOn, '--activate', '--json'], { env });
  const version = JSON.parse(stdout) as { id: string; activated_at: string | null };
  expect(version.activated_at).not.toBeNull();
  return version.id;
}

/** The monitor as the API answers the page's own session. */
async function monitorOf(page: Page, id: string): Promise<{ status?: string; contact_count: number; last_check: { job_id: string; list_version_id: string } | null; error?: { code: string } }> {
  return page.evaluate(`fetch('/v2/monitors/${id}').then((r) => r.json())`);
}

/** A CSV read back by Python's csv module (an independent reader). */
async function readCsv(file: string): Promise<string[][]> {
  const script = 'import csv,json,sys\nwith open(sys.argv[1], newline="", encoding="utf-8-sig") as f: print(json.dumps(list(csv.reader(f))))';
  const { stdout } = await run('python3', ['-c', script, file]);
  return JSON.parse(stdout) as string[][];
}

describe('monitors and channels in the portal (Playwright driving Debian Chromium against npm start)', () => {
  let adminState: SignedInState;

  it('a monitor with a change report: made from an xlsx in the page, re-checked when a new list version is activated, its changes shown and downloaded; deleted', async () => {
    const version1 = await activateList('list-1.csv', LIST_1, '2026-10-01');

    // The first admin, invited by the operator; signed in for live data (monitors re-check on activations in live mode only).
    await inviteByCli(env, orgId, adminBox.address, 'admin');
    const { context, page } = await newContext('da-DK');
    await page.goto(await invitationLink(adminBox));
    await page.getByTestId('totp-secret').waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
    await page.locator('#new-password').fill(PASSWORD);
    await page.locator('#first-code').fill(referenceTotp(secret, new Date()));
    await page.locator('[data-testid=invitation] button[type=submit]').click();
    await page.getByText(/Log ind med din e-mail/).waitFor();
    await signInThroughPage(page, server.baseUrl, { email: adminBox.address, password: PASSWORD, secret });
    adminState = await context.storageState();

    // The API checks against the new version once it has read it: its own answer says so.
    await until('the API to check against the first version', async () =>
      (await page.evaluate<{ id?: string }>(`fetch('/v2/list-versions/current').then((r) => r.json())`)).id === version1, 60_000, 100);

    // The monitors screen, reached from the navigation.
    await page.getByRole('link', { name: 'Overvågning', exact: true }).click();
    await page.getByTestId('monitors').waitFor();
    await page.getByText('Ingen overvågninger endnu.').waitFor();
    await shoot(page, '01-empty', () => page.getByTestId('monitor-create').waitFor());

    // A name and the file: read as a draft, so the columns are shown as for a check.
    await page.locator('#monitor-name').fill('Medlemmer 2026');
    await page.locator('#monitor-file').setInputFiles(xlsxFile);
    await page.getByTestId('monitor-draft').waitFor();
    expect(await page.locator('[data-testid=draft-warnings] li').evaluateAll((items) => items.map((li) => li.getAttribute('data-code')))).toContain('no_name_column');
    expect(await page.getByRole('button', { name: 'Opret overvågningen' }).isDisabled()).toBe(true);
    expect(await page.locator('#map-external_id').inputValue()).toBe('0');
    await shoot(page, '02-columns-guessed', () => page.getByTestId('monitor-draft').waitFor());

    // The name column picked; the same draft is read again (no second upload) and the warning goes.
    await page.locator('#map-name').selectOption('1');
    await page.getByRole('button', { name: 'Opdatér forhåndsvisning' }).click();
    await expect.poll(() => page.locator('[data-testid=draft-warnings]').count(), { timeout: 90_000 }).toBe(0);
    expect(await page.locator('[data-testid=preview] tbody tr td.verdict').allTextContents()).toEqual(['blokeret', 'blokeret', 'tilladt', 'tilladt']);
    await shoot(page, '03-columns-fixed', () => page.locator('[data-testid=preview] tbody tr').first().waitFor());
    // The columns saved for later files of this layout (docs/inbound.md "Saved column mappings on every channel").
    await page.locator('#mapping-name').fill('Medlemsliste');
    await page.getByRole('button', { name: 'Gem kolonnerne' }).click();
    await page.getByText('Gemt som "Medlemsliste".', { exact: false }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Opret overvågningen' }).click();
    const row = page.locator('[data-testid=monitors] tbody tr[data-monitor-id]');
    await row.waitFor();
    const id = (await row.getAttribute('data-monitor-id'))!;
    expect((await monitorOf(page, id)).contact_count).toBe(4);
    // The draft that read the columns is gone again (never a check, left out of the history).
    const drafts = await page.evaluate<{ data: Array<{ status: string }> }>(`fetch('/v2/check-jobs?status=draft').then((r) => r.json())`);
    expect(drafts.data).toEqual([]);

    // The first check, against the version active when the monitor was made: waited for on the monitor itself.
    await until('the monitor\'s first check', async () => (await monitorOf(page, id)).last_check?.list_version_id === version1, 90_000, 200);
    await page.reload();
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toMatch(/^Tjekket /);
    await shoot(page, '04-list', () => row.waitFor());

    // A new list version during the test: Bo is off the list, Carl is on. The monitor is re-checked.
    const version2 = await activateList('list-2.csv', LIST_2, '2026-11-01');
    await until('the re-check after the new list version', async () => (await monitorOf(page, id)).last_check?.list_version_id === version2, 120_000, 200);
    await page.getByRole('link', { name: 'Åbn Medlemmer 2026' }).click();
    const reports = page.getByTestId('change-report');
    await expect.poll(() => reports.count(), { timeout: 90_000 }).toBe(2);
    const latest = reports.nth(0);
    expect(await latest.locator('h4').textContent()).toMatch(/^Liste udgivet 2026-11-01, tjekket /);
    expect([
      await latest.getByTestId('changes-newly-blocked').textContent(),
      await latest.getByTestId('changes-released').textContent(),
      await latest.getByTestId('changes-changed-level').textContent(),
    ]).toEqual(['1', '1', '0']);
    expect(await reports.nth(1).getByTestId('changes-newly-blocked').textContent()).toBe('2');
    const changed = await latest.locator('[data-testid=changed-contacts] tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)));
    expect(changed).toEqual([['K-2', 'Frigivet', 'tilladt'], ['K-3', 'Ny blokeret', 'blokeret']]);
    await shoot(page, '05-change-report', () => reports.nth(1).waitFor());

    // The change report as a file: the contacts with a change, with the column Ændring, read back by Python.
    const download = page.waitForEvent('download');
    await latest.getByRole('button', { name: 'Hent ændringerne som fil' }).click();
    const saved = join(dataDir, 'changes.csv');
    await (await download).saveAs(saved);
    const table = await readCsv(saved);
    const header = table[0];
    expect(header[0]).toBe('id');
    expect(header.at(-1)).toBe('Ændring');
    const status = header.indexOf('Status');
    expect(table.slice(1).map((r) => [r[0], r[status], r.at(-1)])).toEqual([['K-2', 'Tilladt', 'Frigivet'], ['K-3', 'Blokeret', 'Ny blokeret']]);
    // The whole file of that check names every contact, unchanged ones as such.
    const all = await page.evaluate<string>(`fetch('/v2/check-jobs/' + ${JSON.stringify((await latest.getAttribute('data-job-id'))!)} + '/file', { headers: { 'Accept-Language': 'en' } }).then((r) => r.text())`);
    const allRows = all.trim().split(/\r?\n/);
    expect(allRows[0].split(',').at(-1)).toBe('Change');
    expect(allRows.slice(1).map((line) => [line.split(',')[0], line.split(',').at(-1)])).toEqual([['K-1', 'Unchanged'], ['K-2', 'Released'], ['K-3', 'Newly blocked'], ['K-4', 'Unchanged']]);

    // Delete, asked once more in place; the API no longer knows the monitor.
    await page.getByRole('button', { name: 'Slet Medlemmer 2026' }).click();
    await page.getByRole('button', { name: 'Bekræft sletning af Medlemmer 2026' }).click();
    await page.getByText('Ingen overvågninger endnu.').waitFor();
    expect((await monitorOf(page, id)).error?.code).toBe('not_found');

    // The same file again: its draft is read with the saved columns (said so), no warning, the
    // monitor made at once with them; then deleted.
    await page.locator('#monitor-name').fill('Medlemmer igen');
    await page.locator('#monitor-file').setInputFiles(xlsxFile);
    await page.getByTestId('monitor-draft').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('mapping-applied').textContent()).toBe('De gemte kolonner "Medlemsliste" er brugt: filen har de samme overskrifter. Se dem efter nedenfor.');
    expect(await page.locator('[data-testid=draft-warnings]').count()).toBe(0);
    expect(await page.locator('#map-name').inputValue()).toBe('1');
    await page.getByRole('button', { name: 'Opret overvågningen' }).click();
    const again = page.locator('[data-testid=monitors] tbody tr[data-monitor-id]');
    await again.waitFor({ timeout: 60_000 });
    const againId = (await again.getAttribute('data-monitor-id'))!;
    expect((await monitorOf(page, againId)).contact_count).toBe(4);
    await page.getByRole('button', { name: 'Slet Medlemmer igen' }).click();
    await page.getByRole('button', { name: 'Bekræft sletning af Medlemmer igen' }).click();
    await page.getByText('Ingen overvågninger endnu.').waitFor({ timeout: 60_000 });
    await context.close();
    expect(pageErrors).toEqual([]);
  }, 400_000);

  it('channels: an e-mail sender allowed and removed; the SFTP folder shown with the host key it is pinned to, and removed; a connector without its token, removed; an API key is refused', async () => {
    // The operator adds a folder with the admin tool, pinned to a host key made by ssh-keygen; its fingerprint as ssh-keygen prints it.
    const keyFile = join(dataDir, 'host_key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const fingerprint = (await run('ssh-keygen', ['-l', '-f', `${keyFile}.pub`])).stdout.split(' ')[1];
    expect(fingerprint).toMatch(/^SHA256:/);
    writeFileSync(join(dataDir, 'sftp-password'), 'et kodeord til sftp');
    await run(process.execPath, [ADMIN_CLI, 'drop-folders', 'add', '--org', orgId, '--host', '127.0.0.1', '--port', '2222', '--user', 'shop',
      '--password-file', join(dataDir, 'sftp-password'), '--host-key-file', `${keyFile}.pub`, '--path', '/kunder', '--json'],
    { env: { ...env, INBOUND_SECRET_KEY: randomBytes(32).toString('base64') } });
    // And a connector whose address carries a token in its query string (never shown).
    await run(process.execPath, [ADMIN_CLI, 'connectors', 'add', '--org', orgId, '--url', 'https://127.0.0.1:9443/eksport/kunder.csv?token=hemmeligt',
      '--every', '3600', '--json'], { env: { ...env, INBOUND_SECRET_KEY: randomBytes(32).toString('base64'), CALLBACK_ALLOW_HOSTS: '127.0.0.1' } });

    const { context, page } = await newContext('da-DK', adminState);
    await page.goto(server.baseUrl + '/#channels');
    const folder = page.locator('[data-testid=drop-folders] tbody tr');
    await folder.waitFor();
    expect(await folder.getByTestId('host-key').textContent()).toBe(fingerprint);
    expect(await folder.locator('td').first().textContent()).toBe('shop@127.0.0.1:2222/kunder');
    await page.getByText('Ingen afsendere endnu.').waitFor();
    const connector = page.locator('[data-testid=connectors] tbody tr');
    await connector.waitFor();
    expect(await connector.locator('td').first().textContent()).toBe('https://127.0.0.1:9443/eksport/kunder.csv');
    expect(await page.locator('[data-testid=channels]').textContent()).not.toContain('hemmeligt');

    // A bad address is refused in the person's language and adds nothing.
    await page.locator('#sender-address').fill('ikke-en-adresse');
    await page.getByRole('button', { name: 'Tilføj afsender' }).click();
    await page.getByTestId('error-message').waitFor();
    // The field in the form's words, never the API's path `address:` (docs/web.md "Issue lines in words").
    expect(await page.locator('#alert li').textContent()).toMatch(/^E-mailadresse: /);
    const senders = () => page.evaluate<{ data: Array<{ address: string; locale: string | null }> }>(`fetch('/v2/email-senders').then((r) => r.json())`);
    expect((await senders()).data).toEqual([]);

    await page.locator('#sender-address').fill('Indkoeb@Kunde.test');
    await page.locator('#sender-locale').selectOption('en');
    await page.getByRole('button', { name: 'Tilføj afsender' }).click();
    await page.locator('[data-sender="indkoeb@kunde.test"]').waitFor();
    expect((await senders()).data.map((s) => [s.address, s.locale])).toEqual([['indkoeb@kunde.test', 'en']]);
    await shoot(page, '06-channels', () => page.locator('[data-sender="indkoeb@kunde.test"]').waitFor());

    // An API key cannot read or change the channels (a leaked key must not redirect the mailbox).
    const liveKey = /live key: (\S+)/.exec(server.output())![1];
    for (const path of ['/v2/email-senders', '/v2/drop-folders', '/v2/connectors']) {
      expect((await fetch(server.baseUrl + path, { headers: { Authorization: `Bearer ${liveKey}` } })).status).toBe(403);
    }

    await page.getByRole('button', { name: 'Slet: indkoeb@kunde.test' }).click();
    await page.getByText('Ingen afsendere endnu.').waitFor();
    expect((await senders()).data).toEqual([]);
    await page.getByRole('button', { name: 'Slet: shop@127.0.0.1:2222/kunder' }).click();
    await page.getByRole('button', { name: 'Bekræft sletning af shop@127.0.0.1:2222/kunder' }).click();
    await page.getByText('Ingen SFTP-mapper.').waitFor();
    expect((await page.evaluate<{ data: unknown[] }>(`fetch('/v2/drop-folders').then((r) => r.json())`)).data).toEqual([]);
    await page.getByRole('button', { name: 'Slet: https://127.0.0.1:9443/eksport/kunder.csv' }).click();
    await page.getByRole('button', { name: 'Bekræft sletning af https://127.0.0.1:9443/eksport/kunder.csv' }).click();
    await page.getByText('Ingen forbindelser.').waitFor();
    expect((await page.evaluate<{ data: unknown[] }>(`fetch('/v2/connectors').then((r) => r.json())`)).data).toEqual([]);

    // Who did it is in the audit log.
    await page.goto(server.baseUrl + '/#audit');
    await page.locator('[data-testid=audit] tbody tr').first().waitFor();
    const audit = await page.locator('[data-testid=audit] tbody').textContent();
    for (const what of ['Tilføjede en afsender', 'Fjernede en afsender', 'Fjernede en SFTP-mappe', 'Fjernede en forbindelse', 'Oprettede en overvågning', 'Slettede en overvågning']) expect(audit).toContain(what);
    await context.close();
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('recovery codes: made in the page and shown once; one signs in instead of the app\'s code, once', async () => {
    const { context, page } = await newContext('da-DK', adminState);
    await page.goto(server.baseUrl + '/#account');
    await page.getByText('Du har ingen gendannelseskoder.').waitFor();
    await page.getByRole('button', { name: 'Lav nye gendannelseskoder' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    expect(await page.getByTestId('recovery-left').textContent()).toBe('Du har 10 ubrugte gendannelseskoder.');
    // The codes as shown, in both languages. They are shown once: a redraw (a language switch)
    // does not show them again, so each language makes a new set (which replaces the one before).
    const left = { da: 'Du har 10 ubrugte gendannelseskoder.', en: 'You have 10 unused recovery codes.' };
    await shoot(page, '07-recovery-codes', async () => {
      await page.getByTestId('recovery-codes').waitFor();
      const language = (await page.getAttribute('html', 'lang')) as 'da' | 'en';
      await expect.poll(() => page.getByTestId('recovery-left').textContent(), { timeout: 60_000 }).toBe(left[language]);
    }, () => page.getByTestId('account').locator('.actions button').click());
    const codes = await page.getByTestId('recovery-codes').locator('code').allTextContents();
    expect(codes).toHaveLength(10);
    await shoot(page, '08-account', () => page.getByTestId('recovery-left').waitFor());
    expect(await page.getByTestId('recovery-codes').count()).toBe(0);
    await context.close();

    // A new browser, no phone: e-mail, password and a recovery code.
    const fresh = await newContext('da-DK');
    const signIn = async (code: string) => {
      await fresh.page.goto(server.baseUrl + '/');
      await fresh.page.locator('#email').fill(adminBox.address);
      await fresh.page.locator('#password').fill(PASSWORD);
      await fresh.page.locator('#code').fill(code);
      await fresh.page.locator('[data-testid=sign-in] button[type=submit]').click();
    };
    await signIn(codes[3]);
    await fresh.page.getByTestId('who').waitFor();
    await fresh.page.goto(server.baseUrl + '/#account');
    await fresh.page.getByText('Du har 9 ubrugte gendannelseskoder.').waitFor();
    await fresh.page.getByRole('button', { name: 'Log ud', exact: true }).click();
    // The same code a second time: refused, in a person's words.
    await signIn(codes[3]);
    await fresh.page.getByTestId('error-message').waitFor();
    expect(await fresh.page.getByTestId('error-message').textContent()).toBe('E-mail, adgangskode eller kode fra godkendelses-appen passer ikke. Prøv igen.');
    await fresh.context.close();
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
