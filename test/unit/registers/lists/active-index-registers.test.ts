/**
 * The list index is built for a (list version, address register version) pair
 * (docs/addresses.md "One check, every channel"): a process started with a register active checks
 * with it, a pinned pair is served whatever is active, and an activation swaps the active pair
 * while the previous one stays cached for jobs pinned to it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createActiveAddressRegister, AddressRegisterUnavailableError } from '../../../../services/registers/addresses/active-register.ts';
import { checkPerson } from '../../../../services/domain/index.ts';
import { createActiveListIndex } from '../../../../services/registers/lists/active-index.ts';
import { silentLogger } from '../../../../services/platform/logger.ts';
import { createEmbeddedAddressStore } from '../../../../services/platform/store/embedded/addresses.ts';
import { openEmbeddedDatabase } from '../../../../services/platform/store/embedded/database.ts';
import { createEmbeddedListStore } from '../../../../services/platform/store/embedded/lists.ts';
import { CORPUS_LIST, CORPUS_PEOPLE, importCorpusRegister } from '../../../support/one-check-corpus.ts';
import { seedListVersion } from '../../../support/pipeline.ts';

const vibeke = CORPUS_PEOPLE.find((p) => p.id === 'p01')!;
const OPTIONS = { policy: 'standard', stopLevel: 1, locale: 'en' } as const;

async function setup() {
  const db = openEmbeddedDatabase(':memory:');
  const lists = createEmbeddedListStore(db);
  const store = createEmbeddedAddressStore(db);
  const addresses = createActiveAddressRegister({ store, logger: silentLogger() });
  const list = await seedListVersion(lists, CORPUS_LIST);
  return { lists, store, addresses, list, index: () => createActiveListIndex({ listStore: lists, logger: silentLogger(), addresses }) };
}

describe('the list index of a (list, address register) pair', () => {
  it('a process started with a register active checks with it; the text-only pair is another index', async () => {
    const { store, list, index } = await setup();
    const register = await importCorpusRegister(store);
    const active = index();
    await active.refresh();
    expect(active.current()?.addressVersion?.id).toBe(register.id);
    expect(checkPerson(active.current()!.index, vibeke, OPTIONS).match.level).toBe(5);
    expect(await active.forVersion(list.id, register.id)).toBe(active.current()?.index);
    const textOnly = await active.forVersion(list.id, null);
    expect(textOnly.register).toBeNull();
    expect(checkPerson(textOnly, vibeke, OPTIONS).match.level).toBe(0);
  });

  it('an activation swaps the active pair; the pair before stays served to jobs pinned to it', async () => {
    const { store, list, index } = await setup();
    const active = index();
    await active.refresh();
    expect(active.current()?.addressVersion).toBeNull();
    const before = active.current()?.index;
    const register = await importCorpusRegister(store);
    await active.refresh();
    expect(active.current()?.addressVersion?.id).toBe(register.id);
    expect(active.current()?.index).not.toBe(before);
    expect(await active.forVersion(list.id, null)).toBe(before);
  });

  it('a pinned register that does not exist or was never activated cannot be built', async () => {
    const { store, list, index } = await setup();
    const cut = { id: randomUUID(), published_on: '2026-11-02', created_at: new Date().toISOString(), activated_at: null, address_count: 0 };
    await store.createAddressVersion(cut);
    const active = index();
    await expect(active.forVersion(list.id, randomUUID())).rejects.toBeInstanceOf(AddressRegisterUnavailableError);
    await expect(active.forVersion(list.id, cut.id)).rejects.toBeInstanceOf(AddressRegisterUnavailableError);
  });
});
