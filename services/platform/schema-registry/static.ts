import type avro from 'avsc';
import { loadSchemaCatalog, type SchemaCatalog } from './catalog.ts';
import { compileAvro } from './compiled-codec.ts';
import {
  frame, HEADER_BYTES, SchemaValidationError, writeHeader, unframe, UnknownSchemaIdError, WireFormatError, UnknownSubjectError, type SchemaRegistry,
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
      const framed = compiledFrame(latest.id, latest.type, value);
      return framed ?? frame(latest.id, toAvro(latest.type, subject, value));
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
      // The latest version (what every current writer writes) through its compiled codec; older
      // versions through avsc's resolver, so their defaults apply.
      const codec = resolver ? null : compileAvro(reader.type);
      try {
        const value = codec ? codec.decode(payload) : reader.type.fromBuffer(payload, resolver);
        return { subject: writer.subject, version: reader.version, value };
      } catch (error) {
        // avsc's message may quote the bytes it choked on: only its name is kept.
        throw new WireFormatError(`the Avro payload does not read with schema ${id} (${(error as Error)?.name ?? 'error'})`);
      }
    },
  };
}

/**
 * The wire format of `value` written by the schema's compiled codec: header and Avro binary in one
 * buffer, copied once out of the codec's writer (avsc's toBuffer writes a chunk twice and framing
 * copies it again). Null when the schema has no compiled codec or the value does not fit it; the
 * caller then takes avsc's path, which names the paths that do not fit.
 */
function compiledFrame(id: number, type: avro.Type, value: unknown): Buffer | null {
  const codec = compileAvro(type);
  if (!codec) return null;
  let view: Buffer;
  try {
    view = codec.encode(value, HEADER_BYTES);
  } catch {
    return null;
  }
  writeHeader(view, id);
  return Buffer.from(view);
}

/** Avro binary of `value`, or SchemaValidationError naming the paths that do not fit. */
export function toAvro(type: avro.Type, subject: string, value: unknown): Buffer {
  const paths: string[] = [];
  if (!type.isValid(value, { errorHook: (path) => paths.push(path.join('.')) })) {
    throw new SchemaValidationError(subject, paths);
  }
  return type.toBuffer(value);
}
