import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../../services/platform/api-keys.ts';
import type { AccountStore, ApiKeyRecord, Organisation } from '../../services/platform/store/accounts-port.ts';
import { useHarness } from './harness.ts';

export interface AccountStoreHarness {
  store: AccountStore;
  /** A second store on the same data (a restarted process), to prove writes are durable. */
  reopen(): Promise<AccountStore>;
  close(): Promise<void>;
}

/** The AccountStore conformance suite: every adapter passes it unchanged. */
export function accountsStoreContract(adapter: string, open: () => Promise<AccountStoreHarness>): void {
  describe(`AccountStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = (): AccountStore => harness().store;

    it('creates, reads, lists and updates organisations', async () => {
      const a = org({ addons: ['phone'], api_agreement: true, created_at: '2026-01-01T00:00:00.000Z' });
      const b = org({ name: "Beta's \\ '; DROP TABLE organisations; --", created_at: '2026-01-03T00:00:00.000Z' });
      await store().createOrganisation(a);
      await store().createOrganisation(b);
      expect(await store().getOrganisation(a.id)).toEqual(a);
      expect(await store().getOrganisation(b.id)).toEqual(b);
      expect(await store().getOrganisation(randomUUID())).toBeNull();
      const ids = (await store().listOrganisations()).map((o) => o.id);
      expect(ids.filter((id) => id === a.id || id === b.id)).toEqual([a.id, b.id]);

      const updated = await store().updateOrganisation(a.id, { suspended: true, stop_level: 3, addons: ['phone', 'company'] });
      expect(updated).toEqual({ ...a, suspended: true, stop_level: 3, addons: ['phone', 'company'] });
      expect(await store().getOrganisation(a.id)).toEqual(updated);
      const again = await store().updateOrganisation(a.id, { plan: 'pay_per_list', retention_days: 90, name: 'Renamed' });
      expect(again).toEqual({ ...updated, plan: 'pay_per_list', retention_days: 90, name: 'Renamed' });
      expect(await store().getOrganisation(a.id)).toEqual(again);
      expect(await store().updateOrganisation(randomUUID(), { name: 'x' })).toBeNull();
    });

    it('finds keys only by hash, lists them per organisation, revokes once', async () => {
      const o = org();
      await store().createOrganisation(o);
      const live = generateApiKey('live');
      const first = keyRecord(o.id, live, { created_at: '2026-01-02T00:00:00.000Z' });
      const second = keyRecord(o.id, generateApiKey('test'), {
        mode: 'test', created_at: '2026-01-03T00:00:00.000Z', label: "Kasse 3's export ' \\ ø", created_by: randomUUID(),
      });
      await store().createKey(first);
      await store().createKey(second);

      expect(await store().findKeyByHash(hashApiKey(live))).toEqual(first);
      expect((await store().listKeys(o.id)).find((k) => k.id === second.id)).toEqual(second);
      expect(await store().findKeyByHash(live)).toBeNull();
      expect((await store().listKeys(o.id)).map((k) => k.id)).toEqual([first.id, second.id]);
      expect(await store().listKeys(randomUUID())).toEqual([]);

      expect(await store().revokeKey(first.id, '2026-02-01T00:00:00.000Z')).toBe(true);
      expect(await store().revokeKey(first.id, '2026-03-01T00:00:00.000Z')).toBe(true);
      expect((await store().findKeyByHash(hashApiKey(live)))?.revoked_at).toBe('2026-02-01T00:00:00.000Z');
      expect((await store().listKeys(o.id)).find((k) => k.id === second.id)?.revoked_at).toBeNull();
      expect(await store().revokeKey(randomUUID(), '2026-02-01T00:00:00.000Z')).toBe(false);
    });

    it('rejects a key for an unknown organisation and a duplicate key hash', async () => {
      const key = generateApiKey('live');
      await expect(store().createKey(keyRecord(randomUUID(), key))).rejects.toThrow();
      const o = org();
      await store().createOrganisation(o);
      await store().createKey(keyRecord(o.id, key));
      await expect(store().createKey(keyRecord(o.id, key))).rejects.toThrow();
      expect(await store().listKeys(o.id)).toHaveLength(1);
    });

    it('keeps organisations and keys for a restarted process', async () => {
      const o = org({ addons: ['company'] });
      const key = generateApiKey('test');
      const record = keyRecord(o.id, key, { mode: 'test' });
      await store().createOrganisation(o);
      await store().createKey(record);
      await store().revokeKey(record.id, '2026-02-01T00:00:00.000Z');
      const reopened = await harness().reopen();
      expect(await reopened.getOrganisation(o.id)).toEqual(o);
      expect(await reopened.findKeyByHash(hashApiKey(key))).toEqual({ ...record, revoked_at: '2026-02-01T00:00:00.000Z' });
    });
  });
}

function org(overrides: Partial<Organisation> = {}): Organisation {
  return {
    id: randomUUID(),
    name: 'Acme A/S',
    stop_level: 1,
    plan: 'annual',
    api_agreement: false,
    suspended: false,
    retention_days: 30,
    addons: [],
    created_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

function keyRecord(orgId: string, key: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: randomUUID(),
    org_id: orgId,
    mode: 'live',
    key_hash: hashApiKey(key),
    prefix: apiKeyPrefix(key),
    created_at: '2026-01-02T00:00:00.000Z',
    revoked_at: null,
    label: '',
    created_by: null,
    ...overrides,
  };
}
