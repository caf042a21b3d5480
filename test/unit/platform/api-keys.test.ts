import { describe, expect, it } from 'vitest';
import { apiKeyPrefix, generateApiKey, hashApiKey, parseApiKeyMode } from '../../../services/platform/api-keys.ts';

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
