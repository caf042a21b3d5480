import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../services/platform/api-keys.ts';
import { createEmbeddedAccountStore } from '../../services/platform/store/embedded/accounts.ts';
import { embeddedDatabasePath, openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../services/admin/cli.ts');
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function adminJson<T>(...args: string[]): Promise<T> {
  const result = await admin(...args, '--json');
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

// Each test starts the CLI five to ten times, each a fresh Node process loading the services:
// seconds apiece on a loaded machine, so the default 30 s is too little beside other work.
describe('admin CLI', { timeout: 120_000 }, () => {
  it('rotates the certificate key: each rotation adds a newer signing key, old ones stay listed', async () => {
    expect((await admin('certificate-keys', 'list')).stdout).toContain('no stored certificate keys');
    const first = await adminJson<{ kid: string }>('certificate-keys', 'rotate');
    const second = await adminJson<{ kid: string }>('certificate-keys', 'rotate');
    expect(second.kid).not.toBe(first.kid);
    const listed = await adminJson<Array<{ kid: string }>>('certificate-keys', 'list');
    expect(listed.map((k) => k.kid).sort()).toEqual([first.kid, second.kid].sort());
    expect((await admin('certificate-keys', 'list')).stdout).toMatch(new RegExp(`${second.kid}.*\\(signs\\)`));
  });

  it('creates an organisation, issues keys printed once, lists and revokes them', async () => {
    const created = await admin('orgs', 'create', '--name', 'Acme A/S', '--plan', 'pay_per_list', '--api-agreement', '--stop-level', '3', '--addons', 'phone');
    expect(created.code).toBe(0);
    const orgId = /organisation created: (\S+)/.exec(created.stdout)?.[1];
    expect(orgId).toMatch(/^[0-9a-f-]{36}$/);

    const orgs = await adminJson<Array<Record<string, unknown>>>('orgs', 'list');
    expect(orgs).toEqual([expect.objectContaining({ id: orgId, name: 'Acme A/S', plan: 'pay_per_list', api_agreement: true, stop_level: 3, addons: ['phone'], retention_days: 30, suspended: false })]);

    const keyOut = await admin('keys', 'create', '--org', orgId!, '--mode', 'live');
    expect(keyOut.code).toBe(0);
    const key = /(rl_live_[0-9A-Za-z]{32,})/.exec(keyOut.stdout)?.[1];
    expect(key).toBeDefined();
    const keyId = /key created: (\S+)/.exec(keyOut.stdout)?.[1];

    // Only the hash is stored: the database file never holds the key text.
    const db = openEmbeddedDatabase(embeddedDatabasePath(dataDir));
    const stored = await createEmbeddedAccountStore(db).findKeyByHash(hashApiKey(key!));
    db.close();
    expect(stored).toMatchObject({ id: keyId, org_id: orgId, mode: 'live', prefix: key!.slice(0, 12), revoked_at: null });

    const listed = await admin('keys', 'list', '--org', orgId!);
    expect(listed.stdout).toContain(key!.slice(0, 12));
    expect(listed.stdout).not.toContain(key!);
    expect(listed.stdout).toContain('active');

    const revoked = await admin('keys', 'revoke', keyId!);
    expect(revoked.code).toBe(0);
    const keys = await adminJson<Array<Record<string, unknown>>>('keys', 'list', '--org', orgId!);
    expect(keys).toHaveLength(1);
    expect(keys[0].revoked_at).toEqual(expect.any(String));
    expect(keys[0]).not.toHaveProperty('key_hash');

    const suspended = await adminJson<Record<string, unknown>>('orgs', 'suspend', orgId!);
    expect(suspended.suspended).toBe(true);
    const updated = await adminJson<Record<string, unknown>>('orgs', 'update', orgId!, '--retention-days', '60', '--no-api-agreement');
    expect(updated).toMatchObject({ retention_days: 60, api_agreement: false, suspended: true });
  });

  it('fails clearly with distinct exit codes', async () => {
    const unknown = await admin('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command');

    const badLevel = await admin('orgs', 'create', '--name', 'X', '--stop-level', '9');
    expect(badLevel.code).toBe(2);
    expect(badLevel.stderr).toContain('stop_level');

    const noOrg = await admin('keys', 'create', '--org', 'nope', '--mode', 'test');
    expect(noOrg.code).toBe(1);
    expect(noOrg.stderr).toContain('organisation nope does not exist');

    const badMode = await admin('keys', 'create', '--org', 'nope', '--mode', 'prod');
    expect(badMode.code).toBe(2);

    const noKey = await admin('keys', 'revoke', 'nope');
    expect(noKey.code).toBe(1);

    const badConfig = await run(process.execPath, [CLI, 'orgs', 'list'], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'loud' } })
      .then(() => 0, (e: { code: number; stderr: string }) => { expect(e.stderr).toContain('LOG_LEVEL'); return e.code; });
    expect(badConfig).toBe(78);
  });

  it('refuses an organisation that does not exist in every command that names one, in the same words, and stores nothing', { timeout: 300_000 }, async () => {
    const file = join(dataDir, 'customer-list.csv');
    writeFileSync(file, 'first_name,last_name,street,house_number,postal_code,city\nAnne,Hansen,Vestergade,12,8000,Aarhus C\n');
    const key = join(dataDir, 'unknown-org-key');
    writeFileSync(key, 'not a key');
    const commands = [
      ['keys', 'create', '--org', 'nope', '--mode', 'test'],
      ['keys', 'list', '--org', 'nope'],
      ['orgs', 'addon', 'nope', 'grant', 'company'],
      ['users', 'invite', '--org', 'nope', '--email', 'anne@example.dk'],
      ['lists', 'import', '--format', 'csv', '--file', file, '--source', 'customer', '--org', 'nope'],
      ['senders', 'add', '--org', 'nope', '--address', 'anne@example.dk'],
      ['drop-folders', 'add', '--org', 'nope', '--host', '127.0.0.1', '--user', 'u', '--path', '/', '--key-file', key],
      ['connectors', 'add', '--org', 'nope', '--url', 'https://127.0.0.1/x.csv', '--every', '3600'],
    ];
    // One after another: each is a fresh Node process, and two cores are shared with other work.
    const answers: Array<[string, number, string]> = [];
    for (const command of commands) {
      const { code, stderr } = await admin(...command);
      answers.push([command.slice(0, 2).join(' '), code, stderr.trim()]);
    }
    expect(answers).toEqual(commands.map((command) => [command.slice(0, 2).join(' '), 1, expect.stringContaining('organisation nope does not exist')]));
    expect((await adminJson<Array<{ source: string }>>('lists', 'list')).filter((v) => v.source === 'customer')).toEqual([]);
    expect((await adminJson<Array<{ org_id: string }>>('senders', 'list')).filter((s) => s.org_id === 'nope')).toEqual([]);
  });

  it('imports a CSV list, activates it and lists versions', async () => {
    const file = join(dataDir, 'list.csv');
    writeFileSync(file, 'first_name,last_name,street,house_number,postal_code,city\nAnne,Hansen,Vestergade,12,8000,Aarhus C\nBo,Jensen,Nørregade,1,1165,København K\n');
    const imported = await adminJson<Record<string, unknown>>('lists', 'import', '--format', 'csv', '--file', file, '--published-on', '2026-04-01');
    expect(imported).toMatchObject({ source: 'cpr', entry_count: 2, published_on: '2026-04-01', activated_at: null, skipped_lines: 0 });

    const notYet = await adminJson<Array<Record<string, unknown>>>('lists', 'list');
    expect(notYet).toEqual([expect.objectContaining({ id: imported.id, active: false })]);

    const activated = await admin('lists', 'activate', String(imported.id));
    expect(activated.code).toBe(0);
    const versions = await adminJson<Array<Record<string, unknown>>>('lists', 'list');
    expect(versions).toEqual([expect.objectContaining({ id: imported.id, active: true, activated_at: expect.any(String) })]);

    const missingFile = await admin('lists', 'import', '--format', 'csv', '--file', join(dataDir, 'nope.csv'));
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toContain('cannot read --file');

    const customerWithoutOrg = await admin('lists', 'import', '--format', 'csv', '--file', file, '--source', 'customer');
    expect(customerWithoutOrg.code).toBe(2);
    expect(customerWithoutOrg.stderr).toContain('--source customer needs --org');
  });

  it('grants and revokes add-ons; imports, activates and lists the company register and the phone directory', async () => {
    const org = await adminJson<{ id: string; addons: string[] }>('orgs', 'create', '--name', 'Addon ApS');
    expect(org.addons).toEqual([]);
    expect((await adminJson<{ addons: string[] }>('orgs', 'addon', org.id, 'grant', 'company')).addons).toEqual(['company']);
    expect((await adminJson<{ addons: string[] }>('orgs', 'addon', org.id, 'grant', 'phone')).addons).toEqual(['company', 'phone']);
    expect((await adminJson<{ addons: string[] }>('orgs', 'addon', org.id, 'grant', 'phone')).addons).toEqual(['company', 'phone']);
    expect((await adminJson<{ addons: string[] }>('orgs', 'addon', org.id, 'revoke', 'company')).addons).toEqual(['phone']);
    const bad = await admin('orgs', 'addon', org.id, 'grant', 'fax');
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('orgs addon ID grant|revoke company|phone')]);

    const extract = join(import.meta.dirname, '../fixtures/companies/cvr-extract-sample.jsonl');
    const companies = await adminJson<Record<string, unknown>>('companies', 'import', '--file', extract, '--published-on', '2026-02-28', '--activate');
    expect(companies).toMatchObject({ kind: 'companies', record_count: 3, published_on: '2026-02-28', activated_at: expect.any(String), skipped: 0 });
    const csv = join(dataDir, 'directory.csv');
    writeFileSync(csv, 'nummer;navn;adresse;synlig\n20 12 34 56;Anne Hansen;Vestergade 12, 8000 Aarhus C;ja\n');
    const phones = await adminJson<Record<string, unknown>>('phones', 'import', '--file', csv);
    expect(phones).toMatchObject({ kind: 'phones', record_count: 1, activated_at: null });
    expect((await admin('phones', 'activate', String(phones.id))).code).toBe(0);
    const listed = await adminJson<Array<Record<string, unknown>>>('phones', 'list');
    expect(listed).toEqual([expect.objectContaining({ id: phones.id, active: true })]);
    const wrongKind = await admin('companies', 'activate', String(phones.id));
    expect([wrongKind.code, wrongKind.stderr]).toEqual([2, expect.stringContaining('is not a companies version')]);
  }, 120_000); // 13 CLI processes: on a loaded shared machine each takes seconds to start
});
