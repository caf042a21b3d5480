import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListEntry } from '../../../services/domain/types.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedListStore } from '../../../services/platform/store/embedded/lists.ts';
import {
  ListVersionNotFoundError,
  ListVersionNotSealedError,
  ListVersionSealedError,
} from '../../../services/platform/store/list-errors.ts';
import type { ListStore, ListVersion } from '../../../services/platform/store/lists-port.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lists-'));
  dirs.push(dir);
  return join(dir, 'robinson.sqlite');
}

function version(id: string, overrides: Partial<ListVersion> = {}): ListVersion {
  return {
    id,
    source: 'cpr',
    org_id: null,
    published_on: '2026-01-01',
    created_at: '2026-01-01T10:00:00.000Z',
    activated_at: null,
    entry_count: 0,
    ...overrides,
  };
}

function entries(from: number, count: number): ListEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    first_name: `Given${from + i}`,
    last_name: 'Hansen',
    street: 'Vestergade',
    house_number: String(from + i),
    postal_code: '8000',
    ...((from + i) % 7 === 0 ? { previous: true } : {}),
  }));
}

async function readAll(store: ListStore, id: string, chunkSize?: number): Promise<ListEntry[][]> {
  const chunks: ListEntry[][] = [];
  for await (const chunk of store.readListEntries(id, chunkSize)) chunks.push(chunk);
  return chunks;
}

async function sealedVersion(store: ListStore, id: string, overrides: Partial<ListVersion> = {}): Promise<void> {
  await store.createListVersion(version(id, overrides));
  await store.appendListEntries(id, entries(0, 3));
  await store.sealListVersion(id);
}

describe('embedded list store', () => {
  it('reads entries back in append order, in chunks of the asked size', async () => {
    const store = createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
    await store.createListVersion(version('v1'));
    await store.appendListEntries('v1', entries(0, 2500));
    await store.appendListEntries('v1', []);
    await store.appendListEntries('v1', entries(2500, 7));
    await store.appendListEntries('v1', entries(2507, 1200));

    const chunks = await readAll(store, 'v1', 777);
    expect(chunks.slice(0, -1).every((c) => c.length === 777)).toBe(true);
    expect(chunks.flat()).toEqual(entries(0, 3707));
    expect((await readAll(store, 'v1')).flat()).toEqual(entries(0, 3707));
    expect((await readAll(store, 'v1', 1)).length).toBe(3707);
  });

  it('sets entry_count on seal, and refuses appends after it', async () => {
    const store = createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
    await store.createListVersion(version('v1'));
    await store.appendListEntries('v1', entries(0, 10));
    expect((await store.getListVersion('v1'))?.entry_count).toBe(0);
    expect(await store.sealListVersion('v1')).toEqual(version('v1', { entry_count: 10 }));
    await expect(store.appendListEntries('v1', entries(0, 1))).rejects.toBeInstanceOf(ListVersionSealedError);
    await expect(store.appendListEntries('nope', entries(0, 1))).rejects.toBeInstanceOf(ListVersionNotFoundError);
    await expect(readAll(store, 'nope')).rejects.toBeInstanceOf(ListVersionNotFoundError);
  });

  it('activates one cpr version at a time; the old one stays readable', async () => {
    const store = createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
    expect(await store.getActiveListVersion('cpr')).toBeNull();
    await sealedVersion(store, 'v1');
    await sealedVersion(store, 'v2', { published_on: '2026-04-01' });
    expect(await store.getActiveListVersion('cpr')).toBeNull();

    const first = await store.activateListVersion('v1', '2026-01-02T00:00:00.000Z');
    expect(first.activated_at).toBe('2026-01-02T00:00:00.000Z');
    expect((await store.getActiveListVersion('cpr'))?.id).toBe('v1');

    await store.activateListVersion('v2', '2026-04-02T00:00:00.000Z');
    expect((await store.getActiveListVersion('cpr'))?.id).toBe('v2');
    // A cpr version is nobody's: an org id passed by the caller does not hide it.
    expect((await store.getActiveListVersion('cpr', 'org-1'))?.id).toBe('v2');
    expect((await readAll(store, 'v1')).flat()).toHaveLength(3);

    // Rolling back to the older version is allowed and stamps a new activation time.
    await store.activateListVersion('v1', '2026-05-01T00:00:00.000Z');
    expect(await store.getActiveListVersion('cpr')).toMatchObject({ id: 'v1', activated_at: '2026-05-01T00:00:00.000Z' });
  });

  it('refuses to activate an unsealed or unknown version', async () => {
    const store = createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
    await store.createListVersion(version('v1'));
    await store.appendListEntries('v1', entries(0, 5));
    await expect(store.activateListVersion('v1', '2026-01-02T00:00:00.000Z')).rejects.toBeInstanceOf(ListVersionNotSealedError);
    await expect(store.activateListVersion('nope', '2026-01-02T00:00:00.000Z')).rejects.toBeInstanceOf(ListVersionNotFoundError);
    expect(await store.getActiveListVersion('cpr')).toBeNull();
  });

  it('activates customer lists per organisation, apart from the cpr list', async () => {
    const store = createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
    await sealedVersion(store, 'cpr-1');
    await sealedVersion(store, 'a-1', { source: 'customer', org_id: 'org-a' });
    await sealedVersion(store, 'a-2', { source: 'customer', org_id: 'org-a' });
    await sealedVersion(store, 'b-1', { source: 'customer', org_id: 'org-b' });
    for (const id of ['cpr-1', 'a-1', 'b-1', 'a-2']) await store.activateListVersion(id, '2026-01-02T00:00:00.000Z');

    expect((await store.getActiveListVersion('cpr'))?.id).toBe('cpr-1');
    expect((await store.getActiveListVersion('customer', 'org-a'))?.id).toBe('a-2');
    expect((await store.getActiveListVersion('customer', 'org-b'))?.id).toBe('b-1');
    expect(await store.getActiveListVersion('customer', 'org-c')).toBeNull();
    expect(await store.getActiveListVersion('customer')).toBeNull();
    expect((await store.listListVersions()).map((v) => v.id)).toEqual(['cpr-1', 'a-1', 'a-2', 'b-1']);
  });

  it('keeps versions, entries and activation across a reopen of the file database', async () => {
    const path = tempDbPath();
    const db = openEmbeddedDatabase(path);
    const store = createEmbeddedListStore(db);
    await store.createListVersion(version('v1'));
    await store.appendListEntries('v1', entries(0, 4321));
    await store.sealListVersion('v1');
    await store.activateListVersion('v1', '2026-01-02T00:00:00.000Z');
    db.close();

    const reopened = createEmbeddedListStore(openEmbeddedDatabase(path));
    expect(await reopened.getActiveListVersion('cpr')).toEqual(
      version('v1', { entry_count: 4321, activated_at: '2026-01-02T00:00:00.000Z' }),
    );
    expect((await readAll(reopened, 'v1', 1000)).flat()).toEqual(entries(0, 4321));
  });
});
