import type { DatabaseSync } from 'node:sqlite';
import type { ListEntry } from '../../../domain/types.ts';
import { listVersionOf, type ListStore } from '../lists-port.ts';
import { LIST_VERSION_MISUSE } from '../list-errors.ts';
import { createEmbeddedVersionedBlocks, type EmbeddedVersionRow } from './versioned-blocks.ts';

/**
 * ListStore on the embedded database: the versioned-block store (embedded/versioned-blocks.ts)
 * with one active version per (source, owner): the national list has no owner (NULL), a
 * customer list belongs to one organisation. Blocks of 1,000 entries: a 2,000,000-entry version
 * is 2,000 rows.
 */
interface ListVersionRow extends EmbeddedVersionRow {
  source: 'cpr' | 'customer';
  org_id: string | null;
  entry_count: number;
}


export function createEmbeddedListStore(db: DatabaseSync): ListStore {
  const store = createEmbeddedVersionedBlocks<ListEntry, ListVersionRow>(db, {
    versions: 'list_versions', blocks: 'list_entry_blocks', blockColumn: 'entries', countColumn: 'entry_count',
    scope: [{ column: 'source', ddl: 'source TEXT NOT NULL' }, { column: 'org_id', ddl: 'org_id TEXT' }],
    blockSize: 1000, blocksPerFetch: 20,
    misuse: LIST_VERSION_MISUSE,
  });
  const orNull = (row: ListVersionRow | null) => (row ? listVersionOf(row) : null);

  return {
    async createListVersion(version) {
      store.create(version.id, [version.source, version.org_id ?? null], version.published_on, version.created_at);
    },
    async appendListEntries(versionId, entries) {
      store.append(versionId, entries);
    },
    async sealListVersion(versionId) {
      return listVersionOf(store.seal(versionId));
    },
    readListEntries: (versionId, chunkSize) => store.read(versionId, chunkSize),
    async activateListVersion(versionId, at) {
      return listVersionOf(store.activate(versionId, at));
    },
    async getActiveListVersion(source, orgId = null) {
      // The national list has no owner whatever the caller passes; customer lists are per org.
      return orNull(store.getActive([source, source === 'cpr' ? null : orgId]));
    },
    async getListVersion(id) {
      return orNull(store.get(id));
    },
    async listListVersions() {
      return store.list().map(listVersionOf);
    },
  };
}
