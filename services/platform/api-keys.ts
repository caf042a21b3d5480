import { createHash, randomBytes } from 'node:crypto';

/**
 * API key text (docs/decisions.md §4): `rl_live_` or `rl_test_` followed by random base62 characters.
 * Only the SHA-256 of the whole key is ever stored; the key itself is shown once, when issued.
 */
export type ApiKeyMode = 'live' | 'test';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 40 base62 characters carry ~238 bits; the contract asks for at least 32 characters. */
const RANDOM_LENGTH = 40;
const MIN_RANDOM_LENGTH = 32;
/** How much of the key an admin sees to tell keys apart: `rl_live_` + 4 characters. */
const PREFIX_LENGTH = 12;
const KEY_PATTERN = /^rl_(live|test)_([0-9A-Za-z]+)$/;

/** Random base62 text without modulo bias: bytes ≥ 248 (4 × 62) are rejected. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(mode: ApiKeyMode): string {
  return `rl_${mode}_${randomBase62(RANDOM_LENGTH)}`;
}

/** Hex SHA-256 of the full key text: what the account store keeps and looks keys up by. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The first characters of a key, stored beside the hash so an admin can tell keys apart. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

/** The mode of a well-formed key, or null when the text is not a key at all (→ 401). */
export function parseApiKeyMode(key: string): ApiKeyMode | null {
  const match = KEY_PATTERN.exec(key);
  if (!match || match[2].length < MIN_RANDOM_LENGTH) return null;
  return match[1] as ApiKeyMode;
}
