import { SchemaRegistry as ConfluentClient, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { Logger } from '../logger.ts';
import { loadSchemaCatalog, type CatalogEntry, type SchemaCatalog } from './catalog.ts';
import { toAvro } from './static.ts';
import { unframe, UnknownSchemaIdError, UnknownSubjectError, type SchemaRegistry } from './port.ts';

/**
 * SchemaRegistry on a Confluent-compatible registry (used when SCHEMA_REGISTRY_URL is set, as in
 * docker-compose), through @kafkajs/confluent-schema-registry.
 *
 * On first use it registers every schema of schemas/ in registry.json order, subject by subject
 * with BACKWARD compatibility (the registry refuses an incompatible new version). Registering an
 * existing schema returns its id, so every process can do this at start. A fresh registry hands
 * out ids 1..n in that order, which are the pinned ids, so the bytes equal the static adapter's;
 * where a registry already held other schemas the ids differ (logged), and decoding still works
 * because ids are always looked up in the registry.
 */
export function createConfluentSchemaRegistry(options: {
  url: string;
  catalog?: SchemaCatalog;
  logger?: Logger;
}): SchemaRegistry & { ready(): Promise<void> } {
  const catalog = options.catalog ?? loadSchemaCatalog();
  const client = new ConfluentClient({ host: options.url, clientId: 'robinson-check' });
  const idOf = new Map<CatalogEntry, number>();
  const entryOf = new Map<number, CatalogEntry>();
  let registering: Promise<void> | undefined;

  async function registerAll(): Promise<void> {
    for (const entry of catalog.entries) {
      const { id } = await client.register(
        { type: SchemaType.AVRO, schema: entry.text },
        { subject: entry.subject },
      );
      idOf.set(entry, id);
      entryOf.set(id, entry);
      if (id !== entry.id) {
        options.logger?.warn({ subject: entry.subject, version: entry.version, pinned: entry.id, registry: id },
          'schema_registry.id_differs');
      }
    }
  }

  function ready(): Promise<void> {
    registering ??= registerAll().catch((error: unknown) => {
      registering = undefined; // a later call tries again (the registry may have been starting)
      throw error;
    });
    return registering;
  }

  return {
    ready,

    async encode(subject, value) {
      await ready();
      const latest = catalog.latest(subject);
      if (!latest) throw new UnknownSubjectError(subject);
      toAvro(latest.type, subject, value); // the same validation error as the static adapter
      return client.encode(idOf.get(latest)!, value);
    },

    async decode(buffer) {
      const { id } = unframe(buffer);
      await ready();
      const writer = entryOf.get(id);
      if (!writer) throw new UnknownSchemaIdError(id);
      const reader = catalog.latest(writer.subject)!;
      const value: unknown = await client.decode(buffer, { [SchemaType.AVRO]: { readerSchema: JSON.parse(reader.text) } });
      return { subject: writer.subject, version: reader.version, value };
    },
  };
}
