import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPerson } from '../../../../services/domain/index.ts';
import { createPreviousAddressDeriver, previousAddressCutoff } from '../../../../services/domain/previous-addresses.ts';
import type { CheckOptions, ListEntry } from '../../../../services/domain/types.ts';
import { createActiveListIndex } from '../../../../services/registers/lists/active-index.ts';
import { silentLogger } from '../../../../services/platform/logger.ts';
import { openEmbeddedDatabase } from '../../../../services/platform/store/embedded/database.ts';
import { createEmbeddedListStore } from '../../../../services/platform/store/embedded/lists.ts';
import type { ListStore } from '../../../../services/platform/store/lists-port.ts';

/**
 * Previous addresses from earlier list versions (docs/decisions.md §1; docs/matching.md): a person on
 * version N at A and on N+1 at B is matched at A as a previous address, up to three years back.
 * The index is built from a real (embedded node:sqlite) list store.
 */
const OPTIONS: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'en' };
const AT_A = 'Nørregade 7, 2. th, 5000 Odense';
const AT_B = 'Vestergade 3, 1. tv, 8000 Aarhus C';
const AT_C = 'Algade 1, 4000 Roskilde';

async function version(lists: ListStore, publishedOn: string, entries: ListEntry[]): Promise<string> {
  const id = randomUUID();
  await lists.createListVersion({ id, source: 'cpr', org_id: null, published_on: publishedOn, created_at: new Date().toISOString(), activated_at: null, entry_count: 0 });
  await lists.appendListEntries(id, entries);
  await lists.sealListVersion(id);
  await lists.activateListVersion(id, new Date().toISOString());
  return id;
}

describe('previous addresses from earlier list versions', () => {
  it('a person who moved from A (version N) to B (N+1) is matched at A as a previous address, level ≥ 4', async () => {
    const lists = createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
    await version(lists, '2026-01-01', [{ name: 'Hansen,Anne', address: AT_A }, { name: 'Jensen,Ole', address: AT_C }]);
    const next = await version(lists, '2026-04-01', [{ name: 'Hansen,Anne', address: AT_B }, { name: 'Jensen,Ole', address: AT_C }]);
    const index = await createActiveListIndex({ listStore: lists, logger: silentLogger() }).forVersion(next, null);

    const atOld = checkPerson(index, { name: 'Anne Hansen', address: AT_A }, OPTIONS);
    expect(atOld.match).toMatchObject({ level: 5, previous_address: true });
    expect(atOld.reasons).toContain('previous_address');
    expect(atOld.status).toBe('blocked');
    // A household-only match at a previous address is no match (§1).
    expect(checkPerson(index, { name: 'Peter Olsen', address: AT_A }, OPTIONS).match.level).toBe(0);
    // At the current address: a plain level 5, not previous.
    expect(checkPerson(index, { name: 'Anne Hansen', address: AT_B }, OPTIONS).match).toMatchObject({ level: 5, previous_address: false });
    // Someone who did not move gets nothing extra.
    expect(checkPerson(index, { name: 'Ole Jensen', address: AT_C }, OPTIONS).match).toMatchObject({ level: 5, previous_address: false });
  });

  it('only versions published at most three years before count; a person no longer on the list is not carried', async () => {
    const lists = createEmbeddedListStore(openEmbeddedDatabase(':memory:'));
    await version(lists, '2022-01-01', [{ name: 'Hansen,Anne', address: AT_C }]);
    await version(lists, '2025-06-01', [{ name: 'Hansen,Anne', address: AT_A }, { name: 'Berg,Lise', address: AT_C }]);
    const now = await version(lists, '2026-01-01', [{ name: 'Hansen,Anne', address: AT_B }]);
    const index = await createActiveListIndex({ listStore: lists, logger: silentLogger() }).forVersion(now, null);
    expect(checkPerson(index, { name: 'Anne Hansen', address: AT_A }, OPTIONS).match).toMatchObject({ level: 5, previous_address: true });
    // 2022-01-01 is four years before: too old.
    expect(checkPerson(index, { name: 'Anne Hansen', address: AT_C }, OPTIONS).match.level).toBe(0);
    // Lise left the list: released, not kept at her old address.
    expect(checkPerson(index, { name: 'Lise Berg', address: AT_C }, OPTIONS).match.level).toBe(0);
  });

  it('the deriver: once per person and address, earlier records marked previous are not carried, cutoff dates', () => {
    const deriver = createPreviousAddressDeriver();
    deriver.note({ name: 'Hansen,Anne', address: AT_B });
    deriver.note({ name: 'Hansen,Anne', address: AT_C, previous: true });
    const found = deriver.derive([
      { name: 'Hansen,Anne', address: AT_A },
      { name: 'Anne Hansen', address: 'Nørregade 7, 2 th, 5000 Odense' },
      { name: 'Hansen,Anne', address: AT_B },
      { name: 'Hansen,Anne', address: 'Torvet 2, 6000 Kolding', previous: true },
      { name: 'Hansen,Peter', address: AT_A },
    ]);
    expect(found).toEqual([{ name: 'Hansen,Anne', address: AT_A, previous: true }]);
    expect(deriver.derived).toBe(1);
    expect(previousAddressCutoff('2026-04-01')).toBe('2023-04-01');
  });
});
