import { randomUUID } from 'node:crypto';
import { apiKeyPrefix, generateApiKey, hashApiKey, type ApiKeyMode } from '../platform/api-keys.ts';
import type { AccountStore, ApiKeyRecord } from '../platform/store/accounts-port.ts';
import { existingOrganisation } from './organisations.ts';

/**
 * Issues a key for an organisation. The returned `key` is the only time the full text exists
 * outside the caller's hands: the store keeps its SHA-256 and prefix only.
 */
export async function issueApiKey(
  accounts: AccountStore,
  orgId: string,
  mode: ApiKeyMode,
  now: Date = new Date(),
): Promise<{ key: string; record: ApiKeyRecord }> {
  await existingOrganisation(accounts, orgId);
  const key = generateApiKey(mode);
  const record: ApiKeyRecord = {
    id: randomUUID(),
    org_id: orgId,
    mode,
    key_hash: hashApiKey(key),
    prefix: apiKeyPrefix(key),
    created_at: now.toISOString(),
    revoked_at: null,
    label: '',
    created_by: null,
  };
  await accounts.createKey(record);
  return { key, record };
}
