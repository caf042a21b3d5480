import { ClassifiedError, PermanentError } from '../errors.ts';

/**
 * The schema registry every event passes through (design: "schema registry (confluent | static)").
 *
 * Promises, whatever the adapter:
 * - `encode(subject, value)` writes `value` with the latest schema version of `subject` in the
 *   Confluent wire format: magic byte 0, the schema id as 4 bytes big-endian, the Avro binary.
 *   A value that does not fit the schema throws SchemaValidationError naming the bad paths.
 * - `decode(buffer)` reads any version of a known subject and resolves it into that subject's
 *   latest version (Avro schema resolution: fields added later take their defaults), so consumers
 *   only ever see the newest shape. An unknown id throws UnknownSchemaIdError; a buffer that is
 *   not in the wire format throws WireFormatError.
 * - Both adapters produce the same bytes for the same value when the registry's ids equal the
 *   pinned ids of schemas/registry.json (a fresh registry does, see confluent.ts).
 *
 * Subjects follow TopicRecordNameStrategy: `<topic>-<record full name>`, see `subjectOf`.
 */
export interface SchemaRegistry {
  encode(subject: string, value: unknown): Promise<Buffer>;
  decode(buffer: Buffer): Promise<DecodedEvent>;
}

export interface DecodedEvent {
  subject: string;
  /** The version the value was resolved into (the subject's latest). */
  version: number;
  value: unknown;
}

export function subjectOf(topic: string, recordFullName: string): string {
  return `${topic}-${recordFullName}`;
}

export class UnknownSubjectError extends ClassifiedError {
  constructor(subject: string) {
    super(`no schema for subject ${subject}`);
    this.name = 'UnknownSubjectError';
  }
}

export class UnknownSchemaIdError extends PermanentError {
  constructor(id: number) {
    super(`no schema with id ${id}`);
    this.name = 'UnknownSchemaIdError';
  }
}

export class WireFormatError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

/** The value does not fit the schema; `paths` name the offending fields (never their values). */
export class SchemaValidationError extends Error {
  readonly paths: string[];
  constructor(subject: string, paths: string[]) {
    super(`value does not fit the schema of ${subject} at ${paths.join(', ') || '(root)'}`);
    this.name = 'SchemaValidationError';
    this.paths = paths;
  }
}

const MAGIC_BYTE = 0;
export const HEADER_BYTES = 5;

/** Confluent framing: magic byte, 4-byte big-endian schema id, payload. */
export function frame(id: number, payload: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  writeHeader(framed, id);
  payload.copy(framed, HEADER_BYTES);
  return framed;
}

/** The header into the first 5 bytes of `buffer`. */
export function writeHeader(buffer: Buffer, id: number): void {
  buffer.writeUInt8(MAGIC_BYTE, 0);
  buffer.writeUInt32BE(id, 1);
}

export function unframe(buffer: Buffer): { id: number; payload: Buffer } {
  if (!Buffer.isBuffer(buffer) || buffer.length < 5) throw new WireFormatError('message shorter than the 5-byte header');
  if (buffer.readUInt8(0) !== MAGIC_BYTE) throw new WireFormatError(`magic byte ${buffer.readUInt8(0)}, expected 0`);
  return { id: buffer.readUInt32BE(1), payload: buffer.subarray(5) };
}
