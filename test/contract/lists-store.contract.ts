import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ListEntry } from '../../services/domain/types.ts';
import {
  ListVersionNotFoundError, ListVersionNotSealedError, ListVersionSealedError,
} from '../../services/platform/store/list-errors.ts';
import type { ListStore, ListVersion } from '../../services/platform/store/lists-port.ts';
import { useHarness } from './harness.ts';

export interface ListStoreHarness {
  store: ListStore;
  /** A second store on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<ListStore>;
  close(): Promise<void>;
}

/**
 * The ListStore conformance suite: every adapter passes it unchanged. The national (cpr) list is
 * global, so tests that activate cpr versions run in order and look only at their own versions.
 */
export function listsStoreContract(adapter: string, open: () => Promise<ListStoreHarness>): void {
  describe(`ListStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): ListStore => harness().store;

    it('reads entries back in append order, in chunks of the asked size', async () => {
      const v = version();
      await store().createListVersion(v);
      await store().appendListEntries(v.id, entries(0, 2500));
      await store().appendListEntries(v.id, []);
      await store().appendListEntries(v.id, entries(2500, 7));
      await store().appendListEntries(v.id, entries(2507, 9_500));
      await store().sealListVersion(v.id);

      const chunks = await readAll(store(), v.id, 777);
      expect(chunks.slice(0, -1).every((c) => c.length === 777)).toBe(true);
      expect(chunks.flat()).toEqual(entries(0, 12_007));
      expect((await readAll(store(), v.id)).flat()).toEqual(entries(0, 12_007));
      expect((await readAll(store(), v.id, 1)).length).toBe(12_007);
      await expect(readAll(store(), v.id, 0)).rejects.toBeInstanceOf(RangeError);
    });

    it('sets entry_count on seal, and refuses appends after it', async () => {
      const v = version();
      await store().createListVersion(v);
      await store().appendListEntries(v.id, entries(0, 10));
      expect(await store().getListVersion(v.id)).toEqual(v);
      expect(await store().sealListVersion(v.id)).toEqual({ ...v, entry_count: 10 });
      expect(await store().getListVersion(v.id)).toEqual({ ...v, entry_count: 10 });
      await expect(store().appendListEntries(v.id, entries(0, 1))).rejects.toBeInstanceOf(ListVersionSealedError);
      const unknown = randomUUID();
      await expect(store().appendListEntries(unknown, entries(0, 1))).rejects.toBeInstanceOf(ListVersionNotFoundError);
      await expect(store().sealListVersion(unknown)).rejects.toBeInstanceOf(ListVersionNotFoundError);
      await expect(readAll(store(), unknown)).rejects.toBeInstanceOf(ListVersionNotFoundError);
      expect(await store().getListVersion(unknown)).toBeNull();
    });

    it('refuses to activate an unsealed or unknown version', async () => {
      const v = version({ source: 'customer', org_id: randomUUID() });
      await store().createListVersion(v);
      await store().appendListEntries(v.id, entries(0, 5));
      await expect(store().activateListVersion(v.id, '2026-01-02T00:00:00.000Z')).rejects.toBeInstanceOf(ListVersionNotSealedError);
      await expect(store().activateListVersion(randomUUID(), '2026-01-02T00:00:00.000Z')).rejects.toBeInstanceOf(ListVersionNotFoundError);
      expect(await store().getActiveListVersion('customer', v.org_id)).toBeNull();
    });

    it('activates one cpr version at a time; the old one stays readable; rollback allowed', async () => {
      const v1 = version();
      const v2 = version({ published_on: '2026-04-01' });
      await sealed(store(), v1);
      await sealed(store(), v2);

      const first = await store().activateListVersion(v1.id, '2026-01-02T00:00:00.000Z');
      expect(first).toEqual({ ...v1, entry_count: 3, activated_at: '2026-01-02T00:00:00.000Z' });
      expect((await store().getActiveListVersion('cpr'))?.id).toBe(v1.id);

      await store().activateListVersion(v2.id, '2026-04-02T00:00:00.000Z');
      expect((await store().getActiveListVersion('cpr'))?.id).toBe(v2.id);
      // A cpr version is nobody's: an org id passed by the caller does not hide it.
      expect((await store().getActiveListVersion('cpr', randomUUID()))?.id).toBe(v2.id);
      expect((await readAll(store(), v1.id)).flat()).toHaveLength(3);

      // An earlier timestamp than the current activation still wins: the last activation counts.
      await store().activateListVersion(v1.id, '2026-03-01T00:00:00.000Z');
      expect(await store().getActiveListVersion('cpr')).toEqual({ ...v1, entry_count: 3, activated_at: '2026-03-01T00:00:00.000Z' });
    });

    it('activates customer lists per organisation, apart from the cpr list', async () => {
      const orgA = randomUUID();
      const orgB = randomUUID();
      const a1 = version({ source: 'customer', org_id: orgA });
      const a2 = version({ source: 'customer', org_id: orgA });
      const b1 = version({ source: 'customer', org_id: orgB });
      for (const v of [a1, a2, b1]) await sealed(store(), v);
      // Sealed is not active: only activateListVersion makes a version visible.
      expect(await store().getActiveListVersion('customer', orgA)).toBeNull();
      const cprBefore = await store().getActiveListVersion('cpr');
      for (const v of [a1, b1, a2]) await store().activateListVersion(v.id, '2026-01-02T00:00:00.000Z');

      expect((await store().getActiveListVersion('customer', orgA))?.id).toBe(a2.id);
      expect((await store().getActiveListVersion('customer', orgB))?.id).toBe(b1.id);
      expect(await store().getActiveListVersion('customer', randomUUID())).toBeNull();
      expect(await store().getActiveListVersion('customer')).toBeNull();
      expect(await store().getActiveListVersion('cpr')).toEqual(cprBefore);
      const mine = new Set([a1.id, a2.id, b1.id]);
      expect((await store().listListVersions()).filter((v) => mine.has(v.id)).map((v) => v.id)).toEqual([a1.id, a2.id, b1.id]);
    });

    it('keeps versions, entries and activation for a restarted process', async () => {
      const v = version({ source: 'customer', org_id: randomUUID() });
      await store().createListVersion(v);
      await store().appendListEntries(v.id, entries(0, 4321));
      await store().sealListVersion(v.id);
      await store().activateListVersion(v.id, '2026-01-02T00:00:00.000Z');
      const reopened = await harness().reopen();
      expect(await reopened.getActiveListVersion('customer', v.org_id)).toEqual({
        ...v, entry_count: 4321, activated_at: '2026-01-02T00:00:00.000Z',
      });
      expect((await readAll(reopened, v.id, 1000)).flat()).toEqual(entries(0, 4321));
    });
  });
}

function version(overrides: Partial<ListVersion> = {}): ListVersion {
  return {
    id: randomUUID(),
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
    last_name: (from + i) % 11 === 0 ? "O'Brien-Søgaard \\ 😀" : 'Hansen',
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

async function sealed(store: ListStore, v: ListVersion): Promise<void> {
  await store.createListVersion(v);
  await store.appendListEntries(v.id, entries(0, 3));
  await store.sealListVersion(v.id);
}
