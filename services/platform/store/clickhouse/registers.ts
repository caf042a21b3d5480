import {
  REGISTER_VERSION_MISUSE,
  type RegisterKind, type RegisterStore, registerVersionOf,
} from '../registers-port.ts';
import type { ClickHouseConnection } from './connection.ts';
import { createClickHouseVersionedBlocks, type ClickHouseVersionRow } from './versioned-blocks.ts';

/**
 * RegisterStore on ClickHouse (infra/clickhouse/migrations/006_registers.sql): the
 * versioned-block store (clickhouse/versioned-blocks.ts) with records as the importer shaped them
 * and one active version per kind.
 */
interface RegisterVersionRow extends ClickHouseVersionRow {
  kind: RegisterKind;
  record_count: number;
}


export function createClickHouseRegisterStore(conn: ClickHouseConnection): RegisterStore {
  const store = createClickHouseVersionedBlocks<object, RegisterVersionRow>(conn, {
    noun: 'register', versions: 'register_versions', blocks: 'register_record_blocks', blockColumn: 'records',
    countColumn: 'record_count', scope: ['kind'], blockSize: 2000, blocksPerFetch: 25,
    misuse: REGISTER_VERSION_MISUSE,
  });
  const orNull = (row: RegisterVersionRow | null) => (row ? registerVersionOf(row) : null);

  return {
    createRegisterVersion: (version) => store.create(version.id, [version.kind], version.published_on, version.created_at),
    appendRegisterRecords: (versionId, records) => store.append(versionId, records),
    sealRegisterVersion: async (versionId) => registerVersionOf(await store.seal(versionId)),
    readRegisterRecords<T>(versionId: string, chunkSize?: number): AsyncIterable<T[]> {
      // Records are opaque to the store (registers-port.ts): the importer that wrote them names T.
      return store.read(versionId, chunkSize) as AsyncIterable<T[]>;
    },
    activateRegisterVersion: async (versionId, at) => registerVersionOf(await store.activate(versionId, at)),
    getActiveRegisterVersion: async (kind) => orNull(await store.getActive([kind])),
    getRegisterVersion: async (id) => orNull(await store.get(id)),
    listRegisterVersions: async (kind) => (await store.list([kind])).map(registerVersionOf),
  };
}
