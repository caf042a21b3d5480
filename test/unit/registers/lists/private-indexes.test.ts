import { randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { createPrivateListIndexes, PrivateListNotCustomerError } from '../../../../services/registers/lists/private-indexes.ts';
import { ListVersionNeverActivatedError } from '../../../../services/registers/lists/active-index.ts';
import { silentLogger } from '../../../../services/platform/logger.ts';
import { createEmbeddedListStore } from '../../../../services/platform/store/embedded/lists.ts';
import type { ListStore } from '../../../../services/platform/store/lists-port.ts';

async function version(lists: ListStore, entries: number, options: { source?: 'cpr' | 'customer'; activate?: boolean } = {}): Promise<string> {
  const id = randomUUID();
  const source = options.source ?? 'customer';
  await lists.createListVersion({
    id, source, org_id: source === 'customer' ? randomUUID() : null, published_on: '2026-01-01', created_at: new Date().toISOString(), activated_at: null, entry_count: 0,
  });
  await lists.appendListEntries(id, Array.from({ length: entries }, (_, i) => ({ name: `Hansen,Anne${i}`, address: `Vestergade ${i + 1}, 5000 Odense` })));
  await lists.sealListVersion(id);
  if (options.activate !== false) await lists.activateListVersion(id, new Date().toISOString());
  return id;
}

/** Counts the builds (reads of a version's entries), to see what the cache kept. */
function counting(lists: ListStore) {
  const reads: string[] = [];
  const store: ListStore = { ...lists, readListEntries: (id, size) => { reads.push(id); return lists.readListEntries(id, size); } };
  return { store, reads };
}

describe('private list indexes: cached per version, memory bounded by entries', () => {
  it('keeps the most recently used versions within the entry bound; the least recently used is built again', async () => {
    const { store, reads } = counting(createEmbeddedListStore(new DatabaseSync(':memory:')));
    const [a, b, c] = [await version(store, 40), await version(store, 40), await version(store, 40)];
    const indexes = createPrivateListIndexes({ listStore: store, logger: silentLogger(), maxEntries: 100 });
    await indexes.forVersion(a, null);
    await indexes.forVersion(b, null);
    await indexes.forVersion(a, null); // a is now the most recent
    await indexes.forVersion(c, null); // 120 > 100: b (least recent) goes
    await indexes.forVersion(a, null);
    await indexes.forVersion(c, null);
    expect(reads).toEqual([a, b, c]);
    await indexes.forVersion(b, null);
    expect(reads).toEqual([a, b, c, b]);
  });

  it('builds and keeps one version larger than the bound, alone', async () => {
    const { store, reads } = counting(createEmbeddedListStore(new DatabaseSync(':memory:')));
    const big = await version(store, 150);
    const indexes = createPrivateListIndexes({ listStore: store, logger: silentLogger(), maxEntries: 100 });
    await indexes.forVersion(big, null);
    await indexes.forVersion(big, null);
    expect(reads).toEqual([big]);
  });

  it('refuses the national list, a version never activated, and one that does not exist', async () => {
    const lists = createEmbeddedListStore(new DatabaseSync(':memory:'));
    const indexes = createPrivateListIndexes({ listStore: lists, logger: silentLogger(), maxEntries: 100 });
    await expect(indexes.forVersion(await version(lists, 1, { source: 'cpr' }), null)).rejects.toBeInstanceOf(PrivateListNotCustomerError);
    await expect(indexes.forVersion(await version(lists, 1, { activate: false }), null)).rejects.toBeInstanceOf(ListVersionNeverActivatedError);
    await expect(indexes.forVersion(randomUUID(), null)).rejects.toThrow(/not found|does not exist|unknown/i);
  });
});
