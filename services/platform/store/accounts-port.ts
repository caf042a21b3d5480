/**
 * Organisations and their API keys (docs/decisions.md §4, §8, §10). Promises: writes are durable when the
 * returned promise resolves; a key is found only by the SHA-256 of its full text; a revoked key is
 * still returned (with `revoked_at`) so callers can tell revoked from unknown. Does not promise
 * uniqueness of organisation names.
 */
export interface Organisation {
  id: string;
  name: string;
  /** The organisation's stop line S, 1..5, default 1. */
  stop_level: number;
  plan: 'annual' | 'pay_per_list';
  /** A pay_per_list organisation needs an API agreement for POST /v2/checks (§8). */
  api_agreement: boolean;
  suspended: boolean;
  /** 1..90, default 30. */
  retention_days: number;
  addons: Array<'phone' | 'company'>;
  created_at: string;
}

export interface ApiKeyRecord {
  id: string;
  org_id: string;
  mode: 'live' | 'test';
  /** Hex SHA-256 of the full key text; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key (e.g. `rl_live_AbC1`), so an admin can tell keys apart. */
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  /** What the key is for, as its creator named it (docs/people.md "API keys"); '' when unnamed. */
  label?: string;
  /** The user who created it in the portal; null (or absent) for keys issued by the admin CLI. */
  created_by?: string | null;
}

export interface AccountStore {
  createOrganisation(org: Organisation): Promise<void>;
  getOrganisation(id: string): Promise<Organisation | null>;
  updateOrganisation(id: string, patch: OrganisationPatch): Promise<Organisation | null>;
  listOrganisations(): Promise<Organisation[]>;
  createKey(key: ApiKeyRecord): Promise<void>;
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  listKeys(orgId: string): Promise<ApiKeyRecord[]>;
  /** Returns false when no such key exists. Revoking twice keeps the first revocation time. */
  revokeKey(id: string, at: string): Promise<boolean>;
}

export type OrganisationPatch = Partial<Omit<Organisation, 'id' | 'created_at'>>;

/**
 * What `updateOrganisation` stores, in every adapter: only the patch's known fields are taken (an
 * absent one keeps its value); id and created_at never change.
 */
export function patchedOrganisation(org: Organisation, patch: OrganisationPatch): Organisation {
  return {
    ...org,
    name: patch.name ?? org.name,
    stop_level: patch.stop_level ?? org.stop_level,
    plan: patch.plan ?? org.plan,
    api_agreement: patch.api_agreement ?? org.api_agreement,
    suspended: patch.suspended ?? org.suspended,
    retention_days: patch.retention_days ?? org.retention_days,
    addons: patch.addons ?? org.addons,
  };
}
