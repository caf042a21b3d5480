import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiKeyPrefix, generateApiKey, hashApiKey, parseApiKeyMode } from '../../../services/platform/api-keys.ts';
import type { ApiKeyRecord, Organisation } from '../../../services/platform/store/accounts-port.ts';
import { createEmbeddedAccountStore } from '../../../services/platform/store/embedded/accounts.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-'));
  dirs.push(dir);
  return join(dir, 'robinson.sqlite');
}

function org(overrides: Partial<Organisation> = {}): Organisation {
  return {
    id: 'org-1',
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

function keyRecord(key: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: 'key-1',
    org_id: 'org-1',
    mode: 'live',
    key_hash: hashApiKey(key),
    prefix: apiKeyPrefix(key),
    created_at: '2026-01-02T00:00:00.000Z',
    revoked_at: null,
    ...overrides,
  };
}

describe('api keys', () => {
  it('generates prefixed base62 keys of at least 32 random characters, hashed as hex sha-256', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    expect(live).toMatch(/^rl_live_[0-9A-Za-z]{32,}$/);
    expect(test).toMatch(/^rl_test_[0-9A-Za-z]{32,}$/);
    expect(live).not.toBe(generateApiKey('live'));
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(apiKeyPrefix(live)).toBe(live.slice(0, 12));
    expect(parseApiKeyMode(live)).toBe('live');
    expect(parseApiKeyMode(test)).toBe('test');
    expect(parseApiKeyMode('rl_live_short')).toBeNull();
    expect(parseApiKeyMode(`rl_prod_${'a'.repeat(40)}`)).toBeNull();
  });
});

describe('embedded account store', () => {
  it('creates, reads, lists and updates organisations', async () => {
    const store = createEmbeddedAccountStore(openEmbeddedDatabase(':memory:'));
    await store.createOrganisation(org({ addons: ['phone'], api_agreement: true }));
    await store.createOrganisation(org({ id: 'org-2', name: 'Beta', created_at: '2026-01-03T00:00:00.000Z' }));
    expect(await store.getOrganisation('org-1')).toEqual(org({ addons: ['phone'], api_agreement: true }));
    expect(await store.getOrganisation('nope')).toBeNull();
    expect((await store.listOrganisations()).map((o) => o.id)).toEqual(['org-1', 'org-2']);

    const updated = await store.updateOrganisation('org-1', { suspended: true, stop_level: 3, addons: ['phone', 'company'] });
    expect(updated).toEqual(org({ suspended: true, stop_level: 3, addons: ['phone', 'company'], api_agreement: true }));
    expect(await store.getOrganisation('org-1')).toEqual(updated);
    expect(await store.updateOrganisation('nope', { name: 'x' })).toBeNull();
  });

  it('finds keys only by hash, lists them per organisation, revokes once', async () => {
    const store = createEmbeddedAccountStore(openEmbeddedDatabase(':memory:'));
    await store.createOrganisation(org());
    const key = generateApiKey('live');
    await store.createKey(keyRecord(key));
    await store.createKey(keyRecord(generateApiKey('test'), { id: 'key-2', mode: 'test', created_at: '2026-01-03T00:00:00.000Z' }));

    expect(await store.findKeyByHash(hashApiKey(key))).toEqual(keyRecord(key));
    expect(await store.findKeyByHash(key)).toBeNull();
    expect((await store.listKeys('org-1')).map((k) => k.id)).toEqual(['key-1', 'key-2']);
    expect(await store.listKeys('org-2')).toEqual([]);

    expect(await store.revokeKey('key-1', '2026-02-01T00:00:00.000Z')).toBe(true);
    expect(await store.revokeKey('key-1', '2026-03-01T00:00:00.000Z')).toBe(true);
    expect((await store.findKeyByHash(hashApiKey(key)))?.revoked_at).toBe('2026-02-01T00:00:00.000Z');
    expect(await store.revokeKey('missing', '2026-02-01T00:00:00.000Z')).toBe(false);
  });

  it('rejects a key for an unknown organisation and a duplicate key hash', async () => {
    const store = createEmbeddedAccountStore(openEmbeddedDatabase(':memory:'));
    await expect(store.createKey(keyRecord('rl_live_x', { org_id: 'ghost' }))).rejects.toThrow();
    await store.createOrganisation(org());
    await store.createKey(keyRecord('rl_live_x'));
    await expect(store.createKey(keyRecord('rl_live_x', { id: 'key-9' }))).rejects.toThrow();
  });

  it('keeps organisations and keys across a reopen of the file database', async () => {
    const path = tempDbPath();
    const first = openEmbeddedDatabase(path);
    const store = createEmbeddedAccountStore(first);
    const key = generateApiKey('test');
    await store.createOrganisation(org());
    await store.createKey(keyRecord(key, { mode: 'test' }));
    await store.revokeKey('key-1', '2026-02-01T00:00:00.000Z');
    first.close();

    const reopened = createEmbeddedAccountStore(openEmbeddedDatabase(path));
    expect(await reopened.getOrganisation('org-1')).toEqual(org());
    expect(await reopened.findKeyByHash(hashApiKey(key))).toEqual(
      keyRecord(key, { mode: 'test', revoked_at: '2026-02-01T00:00:00.000Z' }),
    );
  });
});
