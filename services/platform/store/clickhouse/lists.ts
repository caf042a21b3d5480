import type { ListEntry } from '../../../domain/types.ts';
import { listVersionOf, type ListStore } from '../lists-port.ts';
import { LIST_VERSION_MISUSE } from '../list-errors.ts';
import type { ClickHouseConnection } from './connection.ts';
import { createClickHouseVersionedBlocks, type ClickHouseVersionRow } from './versioned-blocks.ts';

/**
 * ListStore on ClickHouse (tables in infra/clickhouse/migrations/002_lists.sql): the
 * versioned-block store (clickhouse/versioned-blocks.ts) with one active version per (source,
 * owner). The owner column is not nullable: the national list's owner is stored as ''.
 */
interface ListVersionRow extends ClickHouseVersionRow {
  source: 'cpr' | 'customer';
  org_id: string;
  entry_count: number;
}


export function createClickHouseListStore(conn: ClickHouseConnection): ListStore {
  const store = createClickHouseVersionedBlocks<ListEntry, ListVersionRow>(conn, {
    noun: 'list', versions: 'list_versions', blocks: 'list_entry_blocks', blockColumn: 'entries',
    countColumn: 'entry_count', scope: ['source', 'org_id'], blockSize: 2000, blocksPerFetch: 25,
    misuse: LIST_VERSION_MISUSE,
  });
  const orNull = (row: ListVersionRow | null) => (row ? listVersionOf(row) : null);

  return {
    createListVersion: (version) => store.create(
      version.id, [version.source, version.org_id ?? ''], version.published_on, version.created_at,
    ),
    appendListEntries: (versionId, entries) => store.append(versionId, entries),
    sealListVersion: async (versionId) => listVersionOf(await store.seal(versionId)),
    readListEntries: (versionId, chunkSize) => store.read(versionId, chunkSize),
    activateListVersion: async (versionId, at) => listVersionOf(await store.activate(versionId, at)),
    async getActiveListVersion(source, orgId = null) {
      // The national list has no owner whatever the caller passes; customer lists are per org.
      const owner = source === 'cpr' ? '' : (orgId ?? '');
      if (source === 'customer' && owner === '') return null;
      return orNull(await store.getActive([source, owner]));
    },
    getListVersion: async (id) => orNull(await store.get(id)),
    listListVersions: async () => (await store.list()).map(listVersionOf),
  };
}
