import type avro from 'avsc';
import { loadSchemaCatalog, type SchemaCatalog } from './catalog.ts';
import {
  frame, SchemaValidationError, unframe, UnknownSchemaIdError, WireFormatError, UnknownSubjectError, type SchemaRegistry,
} from './port.ts';

/**
 * SchemaRegistry from schemas/ with the pinned ids of schemas/registry.json: no server needed
 * (embedded default and CI). Same wire format and bytes as the Confluent adapter.
 */
export function createStaticSchemaRegistry(catalog: SchemaCatalog = loadSchemaCatalog()): SchemaRegistry {
  const resolvers = new Map<number, avro.Resolver>();

  return {
    async encode(subject, value) {
      const latest = catalog.latest(subject);
      if (!latest) throw new UnknownSubjectError(subject);
      return frame(latest.id, toAvro(latest.type, subject, value));
    },

    async decode(buffer) {
      const { id, payload } = unframe(buffer);
      const writer = catalog.byId.get(id);
      if (!writer) throw new UnknownSchemaIdError(id);
      const reader = catalog.latest(writer.subject)!;
      let resolver = reader.id === writer.id ? undefined : resolvers.get(id);
      if (reader.id !== writer.id && !resolver) {
        resolver = reader.type.createResolver(writer.type);
        resolvers.set(id, resolver);
      }
      try {
        return { subject: writer.subject, version: reader.version, value: reader.type.fromBuffer(payload, resolver) };
      } catch (error) {
        // avsc's message may quote the bytes it choked on: only its name is kept.
        throw new WireFormatError(`the Avro payload does not read with schema ${id} (${(error as Error)?.name ?? 'error'})`);
      }
    },
  };
}

/** Avro binary of `value`, or SchemaValidationError naming the paths that do not fit. */
export function toAvro(type: avro.Type, subject: string, value: unknown): Buffer {
  const paths: string[] = [];
  if (!type.isValid(value, { errorHook: (path) => paths.push(path.join('.')) })) {
    throw new SchemaValidationError(subject, paths);
  }
  return type.toBuffer(value);
}
