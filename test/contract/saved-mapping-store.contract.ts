import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { headerKey } from '../../services/domain/saved-mapping.ts';
import type { SavedMapping, SavedMappingStore } from '../../services/platform/store/saved-mappings-port.ts';
import { useHarness } from './harness.ts';

export interface SavedMappingStoreHarness {
  store: SavedMappingStore;
  /** A second store on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<SavedMappingStore>;
  close(): Promise<void>;
}

function mapping(overrides: Partial<SavedMapping> & { org_id: string; columns: string[] }): SavedMapping {
  return {
    id: randomUUID(), name: 'CRM-udtræk', header_key: headerKey(overrides.columns), column_mapping: { header_row: 0, name: 0, address: 1 },
    created_at: '2026-11-01T00:00:00.000Z', ...overrides,
  };
}

/** The SavedMappingStore conformance suite: every adapter passes it unchanged. */
export function savedMappingStoreContract(adapter: string, open: () => Promise<SavedMappingStoreHarness>): void {
  describe(`SavedMappingStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): SavedMappingStore => harness().store;

    it('keeps an organisation\'s mappings, oldest first, apart from another organisation\'s, durably', async () => {
      const org = randomUUID();
      const other = randomUUID();
      const a = mapping({ org_id: org, columns: ['Navn', 'Adresse'], created_at: '2026-11-01T00:00:00.000Z' });
      const b = mapping({ org_id: org, columns: ['Kunde', 'Gade', 'Postnr'], name: 'Webshop', created_at: '2026-11-02T00:00:00.000Z' });
      const c = mapping({ org_id: other, columns: ['Navn', 'Adresse'] });
      expect(await store().saveMapping(b)).toEqual(b);
      expect(await store().saveMapping(a)).toEqual(a);
      await store().saveMapping(c);
      expect(await store().listMappings(org)).toEqual([a, b]);
      expect(await store().listMappings(other)).toEqual([c]);
      expect(await store().listMappings(randomUUID())).toEqual([]);
      expect(await (await harness().reopen()).listMappings(org)).toEqual([a, b]);
    });

    it('has one mapping per header row: saving the same header row again replaces its name and mapping, keeps its id', async () => {
      const org = randomUUID();
      const first = mapping({ org_id: org, columns: ['Navn', 'Post nr'] });
      await store().saveMapping(first);
      // "post  nr " folds to the same cell: the same export, mapped anew.
      const again = mapping({ org_id: org, columns: [' NAVN', 'post  nr '], name: 'Månedligt udtræk', column_mapping: { header_row: 0, name: 0, postal_code: 1 }, created_at: '2026-11-05T00:00:00.000Z' });
      expect(again.header_key).toBe(first.header_key);
      const stored = await store().saveMapping(again);
      expect(stored).toEqual({ ...again, id: first.id, created_at: first.created_at });
      expect(await store().listMappings(org)).toEqual([stored]);
    });

    it('removes a mapping of the organisation only; a removed header row can be saved again', async () => {
      const org = randomUUID();
      const a = mapping({ org_id: org, columns: ['Navn'] });
      await store().saveMapping(a);
      expect(await store().removeMapping(randomUUID(), a.id)).toBe(false);
      expect(await store().removeMapping(org, randomUUID())).toBe(false);
      expect(await store().removeMapping(org, a.id)).toBe(true);
      expect(await store().removeMapping(org, a.id)).toBe(false);
      expect(await store().listMappings(org)).toEqual([]);
      const again = mapping({ org_id: org, columns: ['Navn'], name: 'Igen' });
      expect(await store().saveMapping(again)).toEqual(again);
      expect(await (await harness().reopen()).listMappings(org)).toEqual([again]);
    });
  });
}
