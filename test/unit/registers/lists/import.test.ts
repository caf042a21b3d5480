import { describe, expect, it } from 'vitest';
import type { ListEntry } from '../../../../services/domain/types.ts';
import { createActiveListIndex, toListVersionRef } from '../../../../services/registers/lists/active-index.ts';
import { writeCprFile, type CprWriteRecord } from '../../../../services/registers/lists/cpr-format.ts';
import { activateListVersion, importListVersion, ListImportError } from '../../../../services/registers/lists/import.ts';
import { silentLogger } from '../../../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../../../services/platform/store/embedded/database.ts';
import { createEmbeddedListStore } from '../../../../services/platform/store/embedded/lists.ts';
import type { ListStore } from '../../../../services/platform/store/lists-port.ts';

const logger = silentLogger();
const fixedNow = () => new Date('2026-03-01T12:00:00.000Z');

function store(): ListStore {
  return createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
}

async function* chunksOf(buffer: Buffer, size = 997): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

async function readAll(listStore: ListStore, id: string): Promise<ListEntry[]> {
  const all: ListEntry[] = [];
  for await (const chunk of listStore.readListEntries(id)) all.push(...chunk);
  return all;
}

function cprRecords(count: number): CprWriteRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    last_name: 'Hansen',
    first_name: `Anne${i}`,
    address: `Vestergade ${i + 1}, 1. tv`,
    postal_code: '8000',
    city: 'Aarhus C',
    previous: i % 10 === 3,
    kommunekode: '751',
    vejkode: '1234',
    husnummer: String(i + 1),
    etage: '1',
    door: 'tv',
  }));
}

const csv = (rows: string[]) => Buffer.from(['first_name;last_name;street;house_number;postal_code;city', ...rows].join('\n') + '\n');

describe('importListVersion', () => {
  it('imports a CPR file in batches, dated by the file, sealed but not active', async () => {
    const listStore = store();
    const file = writeCprFile('2026-01-15', cprRecords(2345));
    const { version, skippedLines } = await importListVersion(
      { listStore, logger, now: fixedNow },
      { source: 'cpr', format: 'cpr', chunks: chunksOf(file), batchSize: 500 },
    );
    expect(skippedLines).toBe(0);
    expect(version).toMatchObject({ source: 'cpr', org_id: null, published_on: '2026-01-15', entry_count: 2345, activated_at: null, created_at: '2026-03-01T12:00:00.000Z' });
    expect(await listStore.getActiveListVersion('cpr')).toBeNull();

    const entries = await readAll(listStore, version.id);
    expect(entries).toHaveLength(2345);
    expect(entries[0]).toMatchObject({ name: 'Hansen,Anne0', postal_code: '8000', city: 'Aarhus C' });
    expect(entries[3].previous).toBe(true);
    expect(entries[2344].name).toBe('Hansen,Anne2344');
  });

  it('imports a customer CSV for one organisation, dated today unless told', async () => {
    const listStore = store();
    const { version } = await importListVersion(
      { listStore, logger, now: fixedNow },
      { source: 'customer', format: 'csv', orgId: 'org-1', chunks: chunksOf(csv(['Anne;Hansen;Vestergade;12;8000;Aarhus C', 'Bo;Jensen;Nørregade;1;1165;København K']), 7) },
    );
    expect(version).toMatchObject({ source: 'customer', org_id: 'org-1', published_on: '2026-03-01', entry_count: 2 });
    expect((await readAll(listStore, version.id))[1]).toMatchObject({ first_name: 'Bo', street: 'Nørregade', city: 'København K' });

    await activateListVersion({ listStore, logger, now: fixedNow }, version.id);
    expect((await listStore.getActiveListVersion('customer', 'org-1'))?.id).toBe(version.id);
    expect(await listStore.getActiveListVersion('cpr')).toBeNull();
  });

  it('refuses malformed lines beyond the allowance and leaves the version unsealed', async () => {
    const listStore = store();
    const file = csv(['Anne;Hansen;Vestergade;12;8000;Aarhus C', ';;Vestergade;13;8000;Aarhus C', 'Bo;Jensen;Nørregade;1;1165;København K']);
    await expect(importListVersion({ listStore, logger }, { source: 'cpr', format: 'csv', chunks: chunksOf(file) }))
      .rejects.toBeInstanceOf(ListImportError);
    const [unsealed] = await listStore.listListVersions();
    expect(unsealed.entry_count).toBe(0);
    await expect(listStore.activateListVersion(unsealed.id, fixedNow().toISOString())).rejects.toThrow(/not sealed/);

    const { version, skippedLines } = await importListVersion(
      { listStore, logger },
      { source: 'cpr', format: 'csv', chunks: chunksOf(file), maxSkippedLines: 1, publishedOn: '2026-02-01' },
    );
    expect(skippedLines).toBe(1);
    expect(version).toMatchObject({ entry_count: 2, published_on: '2026-02-01' });
  });

  it('checks the owner rules before reading anything', async () => {
    const listStore = store();
    const chunks = chunksOf(csv([]));
    await expect(importListVersion({ listStore, logger }, { source: 'customer', format: 'csv', chunks })).rejects.toThrow(/orgId/);
    await expect(importListVersion({ listStore, logger }, { source: 'cpr', format: 'csv', orgId: 'o', chunks })).rejects.toThrow(/orgId/);
    await expect(importListVersion({ listStore, logger }, { source: 'cpr', format: 'csv', publishedOn: '1/2/2026', chunks })).rejects.toThrow(/publishedOn/);
    expect(await listStore.listListVersions()).toEqual([]);
  });
});

describe('active list index', () => {
  it('builds the active cpr version from the store and swaps on refresh, keeping the previous one', async () => {
    const listStore = store();
    const deps = { listStore, logger, now: fixedNow };
    const active = createActiveListIndex({ listStore, logger });
    await active.refresh();
    expect(active.current()).toBeNull();

    const first = (await importListVersion(deps, { source: 'cpr', format: 'cpr', chunks: chunksOf(writeCprFile('2026-01-15', cprRecords(50))) })).version;
    await activateListVersion(deps, first.id);
    await Promise.all([active.refresh(), active.refresh()]);
    const one = active.current();
    expect(one?.version).toMatchObject({ id: first.id, entry_count: 50 });
    expect(one?.index.size).toBe(50);
    expect(toListVersionRef(one!.version)).toEqual({ id: first.id, source: 'cpr', published_on: '2026-01-15', activated_at: '2026-03-01T12:00:00.000Z' });

    const second = (await importListVersion(deps, { source: 'cpr', format: 'cpr', chunks: chunksOf(writeCprFile('2026-04-15', cprRecords(80))) })).version;
    await active.refresh();
    expect(active.current()?.version.id).toBe(first.id); // imported is not active
    await expect(active.forVersion(second.id, null)).rejects.toThrow(/never activated/);

    await activateListVersion(deps, second.id);
    await active.refresh();
    const two = active.current();
    expect(two?.version.id).toBe(second.id);
    expect(two?.index.size).toBe(80);
    // The previous version's index stays cached for jobs pinned to it.
    expect(await active.forVersion(first.id, null)).toBe(one?.index);
    expect(await active.forVersion(second.id, null)).toBe(two?.index);

    await expect(active.forVersion('no-such-version', null)).rejects.toThrow(/does not exist/);

    // A third version: two indexes are kept, the least recently used one (first) goes.
    const third = (await importListVersion(deps, { source: 'cpr', format: 'cpr', chunks: chunksOf(writeCprFile('2026-07-15', cprRecords(30))) })).version;
    await activateListVersion(deps, third.id);
    await active.refresh();
    expect(active.current()?.index.size).toBe(30);
    expect(await active.forVersion(second.id, null)).toBe(two?.index);
    const rebuilt = await active.forVersion(first.id, null);
    expect(rebuilt).not.toBe(one?.index);
    expect(rebuilt.size).toBe(50);
    // The active version's index is never the one evicted.
    expect(await active.forVersion(third.id, null)).toBe(active.current()?.index);
  });

  it('never builds from a customer list and gives a ref without activated_at before activation', async () => {
    const listStore = store();
    const deps = { listStore, logger, now: fixedNow };
    const { version } = await importListVersion(deps, { source: 'customer', format: 'csv', orgId: 'org-1', chunks: chunksOf(csv(['Anne;Hansen;Vestergade;12;8000;Aarhus C'])) });
    await activateListVersion(deps, version.id);
    const active = createActiveListIndex({ listStore, logger });
    await active.refresh();
    expect(active.current()).toBeNull();
    expect(toListVersionRef(version)).toEqual({ id: version.id, source: 'customer', published_on: '2026-03-01' });
  });
});
