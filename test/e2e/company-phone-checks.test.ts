import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnNpmStart } from '../support/embedded-process.ts';
import { startFakeDirectory, type FakeDirectory } from '../support/fake-phone-directory.ts';

/**
 * Company and phone checks end to end: the admin CLI loads a list, a CVR extract and grants the
 * add-ons on a fresh DATA_DIR; `npm start` serves the checks over real HTTP, asking a fake phone
 * directory provider (a test double on loopback: no real provider runs here) through
 * PHONE_DIRECTORY_URL; a newer extract imported and activated by the CLI while the server runs is
 * picked up without a restart.
 */
const ADMIN = join(import.meta.dirname, '../../services/admin/cli.ts');
const EXTRACT = join(import.meta.dirname, '../fixtures/companies/cvr-extract-sample.jsonl');
const run = promisify(execFile);
let dataDir: string;
let directory: FakeDirectory;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'companies-e2e-'));
  directory = await startFakeDirectory('provider-key', [
    { number: '+4520123456', name: 'Peter Jensen', address: 'Gammel Kongevej 12, 1. tv, 1610 København V', listed: true },
    { number: '+4533123456', name: 'Hemmelig', address: 'Skjult 1, 8000 Aarhus C', listed: false },
  ]);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await directory.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function admin(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [ADMIN, ...args, '--json'], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' } });
  return stdout;
}

async function post(baseUrl: string, path: string, key: string, body: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'accept-language': 'en' }, body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
}

describe('company and phone checks on npm start', () => {
  it('serves both operations from CLI-imported registers and the provider API, and swaps in a newer extract while running', async () => {
    const list = join(dataDir, 'list.csv');
    writeFileSync(list, 'first_name,last_name,address,postal_code,city\nPeter,Jensen,"Gammel Kongevej 12, 1. tv",1610,København V\n');
    await admin('lists', 'import', '--format', 'csv', '--file', list, '--activate');
    await admin('companies', 'import', '--file', EXTRACT, '--activate');
    const org = JSON.parse(await admin('orgs', 'create', '--name', 'B2B ApS')) as { id: string };
    const { key } = JSON.parse(await admin('keys', 'create', '--org', org.id, '--mode', 'live')) as { key: string };
    const { key: otherKey } = JSON.parse(await admin('keys', 'create', '--org', (JSON.parse(await admin('orgs', 'create', '--name', 'Uden')) as { id: string }).id, '--mode', 'live')) as { key: string };

    const server = await spawnNpmStart({
      ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', DEMO_SEED: 'false', LIST_REFRESH_SECONDS: '1',
      PHONE_DIRECTORY_URL: directory.url, PHONE_DIRECTORY_KEY: 'provider-key',
      // Accounts read on every request: the add-on granted below by the CLI (another process) counts
      // at once, not AUTH_CACHE_MS later (that bound: admin-cli.distributed and test/unit/api/cached-accounts).
      AUTH_CACHE_MS: '0',
    }, children);

    // No add-on yet: 403; granted with the CLI: 200.
    expect((await post(server.baseUrl, '/v2/company-checks', key, { companies: [{ cvr: '25313763' }] })).status).toBe(403);
    await admin('orgs', 'addon', org.id, 'grant', 'company');
    await admin('orgs', 'addon', org.id, 'grant', 'phone');
    const companies = await post(server.baseUrl, '/v2/company-checks', key, { companies: [{ cvr: '25313763' }, { cvr: '10150817' }, { name: 'Holm & Berg' }] });
    expect(companies.status).toBe(200);
    expect(companies.json.results.map((r: any) => [r.cvr, r.status, r.reasons, r.company_form])).toEqual([
      ['25313763', 'blocked', ['name_and_unit'], 'ENK'], // the ENK's current owner is on the list at that flat
      ['10150817', 'blocked', ['company_protected'], 'ApS'],
      ['35657339', 'allowed', [], 'PMV'], // two owners: not a person
    ]);
    const firstSync = companies.json.results[0].synced_at as string;

    const phones = await post(server.baseUrl, '/v2/phone-checks', key, { phones: [{ phone: '+45 20 12 34 56' }, { phone: '33123456' }, { phone: '44 55 66 77' }] });
    expect(phones.status).toBe(200);
    expect(phones.json.results.map((r: any) => [r.status, r.reasons, r.phone_lookup.outcome])).toEqual([
      ['blocked', ['name_and_unit'], 'found'], ['manual', ['phone_unlisted'], 'unlisted'], ['manual', ['phone_not_found'], 'not_found'],
    ]);
    expect(directory.requests).toContain('/numbers/%2B4520123456');
    expect((await post(server.baseUrl, '/v2/phone-checks', otherKey, { phones: [{ phone: '20123456' }] })).status).toBe(403);

    // A newer extract: Holm & Berg now protected. Imported and activated while the server runs.
    const newer = join(dataDir, 'newer.jsonl');
    writeFileSync(newer, readFileSync(EXTRACT, 'utf8').replace('"cvrNummer":35657339,"reklamebeskyttet":false', '"cvrNummer":35657339,"reklamebeskyttet":true'));
    await admin('companies', 'import', '--file', newer, '--activate');
    // The server's own answer is the signal: it reports the version it used (synced_at).
    let result: any;
    for (let attempt = 0; attempt < 600; attempt++) {
      result = (await post(server.baseUrl, '/v2/company-checks', key, { companies: [{ cvr: '35657339' }] })).json.results[0];
      if (result.synced_at !== firstSync) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(result).toMatchObject({ status: 'blocked', reasons: ['company_protected'] });
    expect(result.synced_at > firstSync).toBe(true);
  }, 240_000);
});
