import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { RegisterAddress } from '../../domain/address-register.ts';
import type { AddressStore, AddressVersion } from '../../platform/store/addresses-port.ts';
import { newDarImportStats, readDar, type DarImportStats, type DarSources } from './dar-import.ts';

/**
 * Imports a DAR extract as a new, sealed (not yet active) address version: the model is the list
 * import (services/registers/lists/import.ts). Addresses go to the store in batches as they are joined, so
 * the import holds the small entities and one row per house number, never the unit addresses.
 * A failed import leaves an unsealed version that can never be activated.
 */
const BATCH = 10_000;

export interface AddressImportResult {
  version: AddressVersion;
  stats: DarImportStats;
}

export async function importAddressRegister(
  store: AddressStore, sources: DarSources, options: { publishedOn: string; now?: () => Date },
): Promise<AddressImportResult> {
  const now = options.now ?? (() => new Date());
  const version: AddressVersion = {
    id: randomUUID(), published_on: options.publishedOn, created_at: now().toISOString(), activated_at: null,
    address_count: 0,
  };
  await store.createAddressVersion(version);
  const stats = newDarImportStats();
  let batch: RegisterAddress[] = [];
  for await (const address of readDar(sources, stats)) {
    batch.push(address);
    if (batch.length === BATCH) {
      await store.appendAddresses(version.id, batch);
      batch = [];
    }
  }
  await store.appendAddresses(version.id, batch);
  return { version: await store.sealAddressVersion(version.id), stats };
}

/** File names DAR entities are published under: "Adresse.json", "HusnummerList.ndjson", ... */
function entityOfFile(file: string): string {
  const name = basename(file).split('.')[0];
  return name.endsWith('List') ? name.slice(0, -4) : name;
}

/**
 * The sources of a path: one file (the national download, entity lists inside) or a directory of
 * per-entity files (.json or .ndjson, named by entity). Each source re-reads its file per pass.
 */
export async function darSourcesFromPath(path: string): Promise<DarSources> {
  const info = await stat(path);
  const files = info.isDirectory()
    ? (await readdir(path)).filter((f) => /\.(nd)?json$/i.test(f)).sort().map((f) => join(path, f))
    : [path];
  const sources: DarSources = {};
  for (const file of files) {
    const entity = info.isDirectory() ? entityOfFile(file) : '';
    sources[entity === '' ? file : entity] = () => createReadStream(file);
  }
  return sources;
}
