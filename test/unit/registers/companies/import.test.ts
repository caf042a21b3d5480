import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createActiveRegister } from '../../../../services/registers/companies/active-register.ts';
import { importCompanyRegister } from '../../../../services/registers/companies/import.ts';
import { activateRegister, RegisterImportError } from '../../../../services/registers/companies/register-import.ts';
import { createCompanyIndexBuilder, findCompany, type CompanyIndex, type CompanyRecord } from '../../../../services/domain/index.ts';
import { silentLogger } from '../../../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../../../services/platform/store/embedded/database.ts';
import { createEmbeddedRegisterStore } from '../../../../services/platform/store/embedded/registers.ts';
import type { RegisterStore } from '../../../../services/platform/store/registers-port.ts';
import { cvrExtractChunks, generateCompanies } from '../../../../services/synthetic/index.ts';
import { until } from '../../../support/until.ts';

const logger = silentLogger();
const fixture = readFileSync(new URL('../../../fixtures/companies/cvr-extract-sample.jsonl', import.meta.url));

async function* chunksOf(buffer: Buffer, size = 333): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

async function* fromIterable(chunks: Iterable<Buffer>): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

async function readAll(store: RegisterStore, id: string): Promise<CompanyRecord[]> {
  const all: CompanyRecord[] = [];
  for await (const chunk of store.readRegisterRecords<CompanyRecord>(id)) all.push(...chunk);
  return all;
}

const newStore = () => createEmbeddedRegisterStore(openEmbeddedDatabase(':memory:'));

describe('CVR extract import', () => {
  it('keeps only the current name, form and owners of a realistic extract (history ignored)', async () => {
    const store = newStore();
    const { version, skipped } = await importCompanyRegister(
      { store, logger, now: () => new Date('2026-03-01T06:00:00.000Z') }, { chunks: chunksOf(fixture), publishedOn: '2026-02-28' },
    );
    expect(skipped).toBe(0);
    expect(version).toMatchObject({ kind: 'companies', record_count: 3, published_on: '2026-02-28', created_at: '2026-03-01T06:00:00.000Z' });
    expect(await readAll(store, version.id)).toEqual([
      // ENK: the current name, not the former one; the owner's current address, not the one before.
      {
        cvr: '25313763', name: 'Jensens Tømrer og Snedker', form: 'ENK', protected: false,
        owner: { name: 'Peter Jensen', address: 'Gammel Kongevej 12, 1. tv, 1610 København V' },
      },
      // Was an ENK, is an ApS now: no owner, whatever the old membership says.
      { cvr: '10150817', name: 'Nordisk Rådgivning ApS', form: 'ApS', protected: true, owner: null },
      // A PMV with two current owners is not a person (§17).
      { cvr: '35657339', name: 'Holm & Berg', form: 'PMV', protected: false, owner: null },
    ]);
  });

  it('matches the generator truth on 3,000 synthetic companies with historic names, forms and owners', async () => {
    const store = newStore();
    const { version } = await importCompanyRegister({ store, logger }, { chunks: fromIterable(cvrExtractChunks(3000, 7, 64 * 1024)) });
    const expected = [...generateCompanies(3000, 7)].map((c) => c.expected);
    const records = await readAll(store, version.id);
    expect(records).toEqual(expected);
    // The synthetic extract has every case the reader must get right.
    expect(records.some((r) => r.form === 'ENK' && r.owner)).toBe(true);
    expect(records.some((r) => r.form === 'PMV' && r.owner)).toBe(true);
    expect(records.some((r) => r.form === 'PMV' && !r.owner)).toBe(true);
    expect(records.some((r) => r.protected)).toBe(true);
    // Like the register, the generator never repeats a CVR.
    expect(new Set(records.map((r) => r.cvr)).size).toBe(3000);
  });

  it('refuses an extract with unusable records, naming lines and reasons only, and seals nothing', async () => {
    const store = newStore();
    const bad = Buffer.concat([fixture, Buffer.from('{"_source":{"Vrvirksomhed":{"cvrNummer":"x","navne":[{"navn":"Søren Hemmelig"}]}}}\nnot json\n')]);
    const error = await importCompanyRegister({ store, logger }, { chunks: chunksOf(bad) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegisterImportError);
    expect((error as Error).message).toContain('line 5: no_cvr');
    expect((error as Error).message).toContain('line 6: not_json');
    expect((error as Error).message).not.toContain('Hemmelig');
    const [unsealed] = await store.listRegisterVersions('companies');
    await expect(store.activateRegisterVersion(unsealed.id, '2026-03-01T00:00:00.000Z')).rejects.toThrow(/not sealed/);
    // Allowed to skip two: sealed with the three good ones.
    const { version, skipped } = await importCompanyRegister({ store, logger }, { chunks: chunksOf(bad), maxSkipped: 2 });
    expect([skipped, version.record_count]).toEqual([2, 3]);
  });

  it('a re-import of a newer extract replaces the version atomically while checks run', async () => {
    const store = newStore();
    const deps = { store, logger };
    const active = createActiveRegister<CompanyRecord, CompanyIndex>({ store, kind: 'companies', logger, createBuilder: createCompanyIndexBuilder });
    const older = [...generateCompanies(5_000, 1)];
    const first = await importCompanyRegister(deps, { chunks: fromIterable(cvrExtractChunks(5_000, 1)) });
    await activateRegister(deps, first.version.id);
    await active.refresh();
    // The newer extract: the same companies, every one of them now protected.
    const newerLines = older.map((c) => {
      const doc = structuredClone(c.document) as { _source: { Vrvirksomhed: { reklamebeskyttet: boolean } } };
      doc._source.Vrvirksomhed.reklamebeskyttet = true;
      return `${JSON.stringify(doc)}\n`;
    });
    const second = await importCompanyRegister(deps, { chunks: fromIterable([Buffer.from(newerLines.join(''))]) });

    const probes = older.filter((_, i) => i % 23 === 0).map((c) => ({ cvr: c.expected.cvr, was: c.expected.protected }));
    const seen: Array<{ version: string; protectedShare: number }> = [];
    let stop = false;
    const checking = (async () => {
      while (!stop) {
        // One check batch reads one version snapshot, as a request does.
        const snapshot = active.current()!;
        const answers = probes.map((p) => findCompany(snapshot.index, { cvr: p.cvr })!);
        const protectedCount = answers.filter((a) => a.protected).length;
        seen.push({ version: snapshot.version.id, protectedShare: protectedCount / probes.length });
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await activateRegister(deps, second.version.id);
    await active.refresh();
    // Until checks have run on the new version too (not a fixed wait: a loaded machine runs few).
    await until('two checks on the new version', () => seen.filter((s) => s.version === second.version.id).length >= 2, 30_000, 0);
    stop = true;
    await checking;

    const oldShare = probes.filter((p) => p.was).length / probes.length;
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.at(-1)!.version).toBe(second.version.id);
    // Never a mix: every batch saw the old answers of the old version or all-protected of the new.
    for (const s of seen) expect(s.protectedShare).toBe(s.version === first.version.id ? oldShare : 1);
    expect(seen.some((s) => s.version === first.version.id)).toBe(true);
  }, 120_000); // two imports and an index build: seconds, but minutes on a loaded shared machine
});
