import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActiveAddressRegister } from '../../services/registers/addresses/active-register.ts';
import { darSourcesOf, writeDarFiles } from '../../services/registers/addresses/dar-generate.ts';
import { resolveWithRegister } from '../../services/domain/index.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import { createEmbeddedAddressStore } from '../../services/platform/store/embedded/addresses.ts';
import { embeddedDatabasePath, openEmbeddedDatabase } from '../../services/platform/store/embedded/database.ts';
import { generateRegisterAddresses } from '../../services/synthetic/register.ts';

/**
 * `npm run admin -- addresses import|list|activate` as an operator runs it: DAR entity files
 * written to a directory (the Datafordeler shape, with superseded history rows), imported into the
 * DATA_DIR database, activated, then loaded the way the services load it.
 */
const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../services/admin/cli.ts');
const UNITS = 3_000;
let dataDir: string;
let darDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'admin-addresses-'));
  darDir = join(dataDir, 'dar');
  mkdirSync(darDir);
  const addresses = [...generateRegisterAddresses(UNITS)];
  await writeDarFiles(darDir, darSourcesOf(() => addresses));
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

// Each CLI run is a fresh Node process (seconds on a loaded machine): a budget, not a timing claim.
describe('admin CLI: addresses', { timeout: 180_000 }, () => {
  it('imports a DAR directory as a version, lists it, activates it; the services load it', async () => {
    expect((await admin('addresses', 'list')).stdout).toContain('no address versions');
    const imported = await admin('addresses', 'import', '--file', darDir, '--published-on', '2026-11-01', '--json');
    expect(imported.code).toBe(0);
    const version = JSON.parse(imported.stdout) as { id: string; address_count: number; activated_at: string | null };
    // Every current unit address, none of the superseded history rows.
    expect(version).toMatchObject({ address_count: UNITS, activated_at: null });
    expect((await admin('addresses', 'list')).stdout).toMatch(new RegExp(`${version.id}.*not activated`));

    const activated = await admin('addresses', 'activate', version.id);
    expect(activated.code).toBe(0);
    expect((await admin('addresses', 'list')).stdout).toMatch(new RegExp(`${version.id}.*ACTIVE`));

    const db = openEmbeddedDatabase(embeddedDatabasePath(dataDir));
    try {
      const active = createActiveAddressRegister({ store: createEmbeddedAddressStore(db), logger: silentLogger() });
      await active.refresh();
      const register = active.current()!.register;
      expect(register.unitCount).toBe(UNITS);
      const [first] = generateRegisterAddresses(1);
      const text = `${first.street} ${first.houseNumber}, ${first.floor}. ${first.door}, ${first.postalCode} ${first.postalName}`;
      expect(resolveWithRegister(register, text).address).toMatchObject({ confidence: 'exact', formatted: text });
    } finally {
      db.close();
    }
  });

  it('refuses what it cannot import with a clear message, and changes nothing', async () => {
    const before = (await admin('addresses', 'list', '--json')).stdout;
    const missing = await admin('addresses', 'import', '--file', join(dataDir, 'nope'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read --file');
    const broken = join(dataDir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'Adresse.json'), '{"AdresseList":[{"id_lokalId":"x",');
    const cut = await admin('addresses', 'import', '--file', broken);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain('JSON');
    const unknown = await admin('addresses', 'activate', '00000000-0000-4000-8000-00000000abcd');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('does not exist');
    // The cut import left an unsealed version behind that can never be activated; the list shows it.
    const after = JSON.parse((await admin('addresses', 'list', '--json')).stdout) as Array<{ active: boolean }>;
    expect(after.filter((v) => v.active)).toHaveLength(JSON.parse(before).filter((v: { active: boolean }) => v.active).length);
  });
});
