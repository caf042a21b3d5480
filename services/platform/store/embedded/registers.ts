import type { DatabaseSync } from 'node:sqlite';
import {
  REGISTER_VERSION_MISUSE,
  type RegisterStore, registerVersionOf, type RegisterKind,
} from '../registers-port.ts';
import { createEmbeddedVersionedBlocks, type EmbeddedVersionRow } from './versioned-blocks.ts';

/**
 * RegisterStore on the embedded database: the versioned-block store
 * (embedded/versioned-blocks.ts) with records as the importer shaped them and one active version
 * per kind. Blocks of 1,000: a 2,000,000-company extract is 2,000 rows.
 */
interface RegisterVersionRow extends EmbeddedVersionRow {
  kind: RegisterKind;
  record_count: number;
}


export function createEmbeddedRegisterStore(db: DatabaseSync): RegisterStore {
  const store = createEmbeddedVersionedBlocks<object, RegisterVersionRow>(db, {
    versions: 'register_versions', blocks: 'register_record_blocks', blockColumn: 'records',
    countColumn: 'record_count', scope: [{ column: 'kind', ddl: 'kind TEXT NOT NULL' }],
    blockSize: 1000, blocksPerFetch: 20,
    misuse: REGISTER_VERSION_MISUSE,
  });
  const orNull = (row: RegisterVersionRow | null) => (row ? registerVersionOf(row) : null);

  return {
    async createRegisterVersion(version) {
      store.create(version.id, [version.kind], version.published_on, version.created_at);
    },
    async appendRegisterRecords(versionId, records) {
      store.append(versionId, records);
    },
    async sealRegisterVersion(versionId) {
      return registerVersionOf(store.seal(versionId));
    },
    readRegisterRecords<T>(versionId: string, chunkSize?: number): AsyncIterable<T[]> {
      // Records are opaque to the store (registers-port.ts): the importer that wrote them names T.
      return store.read(versionId, chunkSize) as AsyncIterable<T[]>;
    },
    async activateRegisterVersion(versionId, at) {
      return registerVersionOf(store.activate(versionId, at));
    },
    async getActiveRegisterVersion(kind) {
      return orNull(store.getActive([kind]));
    },
    async getRegisterVersion(id) {
      return orNull(store.get(id));
    },
    async listRegisterVersions(kind) {
      return store.list([kind]).map(registerVersionOf);
    },
  };
}
