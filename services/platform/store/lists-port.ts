import type { ListEntry } from '../../domain/types.ts';

/**
 * List versions and their entries: the platform's copy of every Robinson list file imported, from
 * which any process (API, matcher) builds its in-memory index. Promises: entries of a version are
 * read back in the order appended, in chunks; a version becomes visible to `getActive` only after
 * `activate`; activating one `cpr` version deactivates the previous active one (the old one stays
 * readable so jobs pinned to it can drain). Customer lists (`source: customer`) belong to one
 * organisation and are activated per organisation.
 */
export interface ListVersion {
  id: string;
  source: 'cpr' | 'customer';
  /** Owner of a customer list; null for the national (cpr) list. */
  org_id: string | null;
  published_on: string;
  created_at: string;
  activated_at: string | null;
  entry_count: number;
}

export interface ListStore {
  createListVersion(version: ListVersion): Promise<void>;
  appendListEntries(versionId: string, entries: ListEntry[]): Promise<void>;
  /** Sets entry_count to the number of entries appended so far; call once the import is whole. */
  sealListVersion(versionId: string): Promise<ListVersion>;
  readListEntries(versionId: string, chunkSize?: number): AsyncIterable<ListEntry[]>;
  activateListVersion(versionId: string, at: string): Promise<ListVersion>;
  getActiveListVersion(source: 'cpr' | 'customer', orgId?: string | null): Promise<ListVersion | null>;
  getListVersion(id: string): Promise<ListVersion | null>;
  listListVersions(): Promise<ListVersion[]>;
}

/**
 * The version as the port gives it, from either adapter's row (which holds more columns). The
 * national list has no owner: NULL in the embedded row, '' in ClickHouse (its column is not
 * nullable); both are null here.
 */
export function listVersionOf(row: Omit<ListVersion, 'org_id'> & { org_id: string | null }): ListVersion {
  return {
    id: row.id,
    source: row.source,
    org_id: row.org_id === '' ? null : row.org_id,
    published_on: row.published_on,
    created_at: row.created_at,
    activated_at: row.activated_at ?? null,
    entry_count: row.entry_count,
  };
}
