/**
 * The pipeline's events (docs/architecture.md "Flow"): topic names, message keys and typed publish/decode
 * helpers over the event log and the schema registry. Every producer and consumer of jobs.events,
 * checks.rows, checks.results and usage.events goes through here, so topic names, keys and
 * subjects are written in one place. Shapes follow schemas/ (latest versions); see
 * docs/architecture.md "Pipeline events".
 */
import type { JobSource, JobStatus } from '../domain/check-job.ts';
import type { JobRowInput } from '../domain/job-row.ts';
import type { CheckResult, ListVersionRef, Locale, MatchPolicy } from '../domain/types.ts';
import type avro from 'avsc';
import { TOPIC_NAMES } from '../../infra/topics.ts';
import type { JobDataKeys } from '../platform/keys/data-keys.ts';
import type { ResultLine } from '../platform/store/jobs-port.ts';
import { open, seal, SealedPayloadError } from '../platform/keys/sealed-payload.ts';
import { loadSchemaCatalog } from '../platform/schema-registry/catalog.ts';
import { compileAvro, type CompiledAvro } from '../platform/schema-registry/compiled-codec.ts';
import {
  SchemaValidationError, subjectOf, unframe, WireFormatError, type SchemaRegistry,
} from '../platform/schema-registry/port.ts';
import { isPermanent, PermanentError } from '../platform/errors.ts';
import { fromSlim, toSlim, type SlimResults } from './slim-results.ts';
import { restorePersonCells } from './person-cells.ts';

/** The topics pipeline events go to (lists.versions is not one of them). */
export const TOPICS = {
  jobsEvents: TOPIC_NAMES.jobsEvents,
  checksRows: TOPIC_NAMES.checksRows,
  checksResults: TOPIC_NAMES.checksResults,
  usageEvents: TOPIC_NAMES.usageEvents,
} as const;
export type PipelineTopic = (typeof TOPICS)[keyof typeof TOPICS];

/** One message as the event log carries it. */
export interface EventMessage {
  key: string;
  value: Buffer;
}

/**
 * What publishing needs from the event log: append messages to a topic, durably once the promise
 * resolves. Messages with the same key keep their order. (The event-log port satisfies this.)
 */
export interface EventAppender {
  publish(topic: string, messages: EventMessage[]): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Event values (the Avro records, nulls explicit)

export interface JobCreatedEvent {
  job_id: string;
  org_id: string;
  mode: 'live' | 'test';
  source: JobSource;
  /** The pinned list version; null in test mode. */
  list_version_id: string | null;
  policy: MatchPolicy | null;
  stop_level: number;
  check_people: boolean;
  check_companies: boolean;
  check_phones: boolean;
  use_private_list: boolean;
  row_count: number | null;
  delete_after: string;
  created_at: string;
}

/** The whole person record as Avro holds it: every job row field (PersonInput + cvr, company_name), null when absent. */
export type AvroPerson = { [K in keyof Required<JobRowInput>]: string | null };

export interface InputRow {
  /** 0-based position in the job's input. */
  row: number;
  person: AvroPerson;
  cells: Array<string | null> | null;
}

export interface RowsChunkEvent {
  job_id: string;
  /** 0-based sequence of the chunk within the job. */
  chunk: number;
  rows: InputRow[];
  org_id: string | null;
  mode: 'live' | 'test';
  list_version_id: string | null;
  policy: MatchPolicy;
  stop_level: number;
  locale: Locale;
  /** RowsChunk v3: the organisation's private list version the job pinned (use_private_list); null: none. */
  private_list_version_id: string | null;
  /**
   * The job data key the rows travel sealed with (RowsChunk v4). Publishers leave it unset: the
   * process's key of the job is taken. Decoded chunks carry it, and the matcher seals the results
   * with the same key.
   */
  data_key_id?: string | null;
  /** Set by decode when the chunk's key is gone (the job was deleted): rows is empty. */
  forgotten?: boolean;
  /** RowsChunk v5: the checks the job asked for (older chunks read as a person check only). */
  check_people: boolean;
  check_companies: boolean;
  check_phones: boolean;
  /** The company register version a live job with check_companies pinned; else null. */
  company_register_version_id: string | null;
  /** The imported phone directory version a live job with check_phones pinned; null for the provider's API and in test mode. */
  phone_directory_version_id: string | null;
  /**
   * RowsChunk v6: the address register version a live job pinned when queued; null: none was
   * active (or test mode, or an older chunk), checked on text alone (docs/addresses.md "One
   * check, every channel").
   */
  address_register_version_id: string | null;
  /**
   * RowsChunk v7: per person field, the cell each row takes it from (those fields are written
   * null in the person), -1 for one written in the person (services/pipeline/person-cells.ts).
   * Set by the writer; decoded chunks always read null, their persons whole.
   */
  person_cells?: number[] | null;
}

export interface RowsCompleteEvent {
  job_id: string;
  row_count: number;
  chunk_count: number;
  input_sha256: string;
  completed_at: string;
}

export interface JobStateChangedEvent {
  job_id: string;
  org_id: string;
  status: JobStatus;
  error: string | null;
  changed_at: string;
  processed_count: number;
  finished_at: string | null;
}

export interface RowResult {
  row: number;
  cells: Array<string | null> | null;
  result: CheckResult;
  /** Made by the embedded matcher only; never on the log (jobs-port.ts ResultLine). */
  line?: ResultLine;
}

export interface ResultsChunkEvent {
  job_id: string;
  list_version_id: string;
  chunk: number;
  results: RowResult[];
  /** The job data key that seals the results (the rows chunk's); unset: the process's key of the job. */
  data_key_id?: string | null;
  /** Set by decode when the chunk's key is gone (the job was deleted): results is empty. */
  forgotten?: boolean;
}

export interface CheckUsageEvent {
  org_id: string;
  kind: 'person_check' | 'job_row' | 'company_check' | 'phone_check';
  count: number;
  job_id: string | null;
  request_id: string | null;
  list_version_id: string | null;
  at: string;
  key_id: string | null;
}

/** Every pipeline event, tagged by its record name. */
export type PipelineEvent =
  | { type: 'JobCreated'; value: JobCreatedEvent }
  | { type: 'RowsChunk'; value: RowsChunkEvent }
  | { type: 'RowsComplete'; value: RowsCompleteEvent }
  | { type: 'JobStateChanged'; value: JobStateChangedEvent }
  | { type: 'ResultsChunk'; value: ResultsChunkEvent }
  | { type: 'CheckUsage'; value: CheckUsageEvent };
export type PipelineEventType = PipelineEvent['type'];

interface Route {
  topic: PipelineTopic;
  subject: string;
}

/** Where each event goes and under which subject (TopicRecordNameStrategy). */
const EVENT_ROUTES: Readonly<Record<PipelineEventType, Route>> = {
  JobCreated: route(TOPICS.jobsEvents, 'dk.robinson.jobs.JobCreated'),
  RowsComplete: route(TOPICS.jobsEvents, 'dk.robinson.jobs.RowsComplete'),
  JobStateChanged: route(TOPICS.jobsEvents, 'dk.robinson.jobs.JobStateChanged'),
  RowsChunk: route(TOPICS.checksRows, 'dk.robinson.checks.RowsChunk'),
  ResultsChunk: route(TOPICS.checksResults, 'dk.robinson.checks.ResultsChunk'),
  CheckUsage: route(TOPICS.usageEvents, 'dk.robinson.usage.CheckUsage'),
};

function route(topic: PipelineTopic, recordFullName: string): Route {
  return { topic, subject: subjectOf(topic, recordFullName) };
}

const TYPE_OF_SUBJECT = new Map<string, PipelineEventType>(
  Object.entries(EVENT_ROUTES).map(([type, r]) => [r.subject, type as PipelineEventType]),
);

/**
 * The message key of an event:
 * - jobs.events and checks.results: the job id, so one partition (one projection) owns a job and
 *   sees its events in order;
 * - checks.rows: `<job_id>:<chunk>`, so one job's chunks spread over every partition and a single
 *   1,000,000-row job keeps every matcher busy;
 * - usage.events: the organisation id.
 */
export function keyOf(event: PipelineEvent): string {
  switch (event.type) {
    case 'RowsChunk':
      return rowsChunkKey(event.value.job_id, event.value.chunk);
    case 'CheckUsage':
      return event.value.org_id;
    default:
      return event.value.job_id;
  }
}

function rowsChunkKey(jobId: string, chunk: number): string {
  return `${jobId}:${chunk}`;
}

/** A job row (PersonInput + company fields) → the Avro record (absent fields null). */
export function toAvroPerson(person: JobRowInput): AvroPerson {
  // Written out field by field in the schema's order, not in a loop over the field names: one
  // object shape and no keyed stores on the intake's hot path (docs/architecture.md
  // "Performance"). The AvroPerson type makes the compiler hold it to every field.
  return {
    id: person.id ?? null, name: person.name ?? null, first_name: person.first_name ?? null, last_name: person.last_name ?? null,
    address: person.address ?? null, street: person.street ?? null, house_number: person.house_number ?? null, floor: person.floor ?? null,
    door: person.door ?? null, postal_code: person.postal_code ?? null, city: person.city ?? null, kvhx: person.kvhx ?? null,
    phone: person.phone ?? null, cvr: person.cvr ?? null, company_name: person.company_name ?? null,
  };
}

/** The Avro record → the job row (null fields dropped), as the domain's checkJobRow takes it. */
export function fromAvroPerson(person: AvroPerson): JobRowInput {
  // Field by field in the schema's order, as toAvroPerson (named stores, not keyed ones: this
  // runs for every row the matcher reads).
  const out: JobRowInput = {};
  if (person.id != null) out.id = person.id;
  if (person.name != null) out.name = person.name;
  if (person.first_name != null) out.first_name = person.first_name;
  if (person.last_name != null) out.last_name = person.last_name;
  if (person.address != null) out.address = person.address;
  if (person.street != null) out.street = person.street;
  if (person.house_number != null) out.house_number = person.house_number;
  if (person.floor != null) out.floor = person.floor;
  if (person.door != null) out.door = person.door;
  if (person.postal_code != null) out.postal_code = person.postal_code;
  if (person.city != null) out.city = person.city;
  if (person.kvhx != null) out.kvhx = person.kvhx;
  if (person.phone != null) out.phone = person.phone;
  if (person.cvr != null) out.cvr = person.cvr;
  if (person.company_name != null) out.company_name = person.company_name;
  return out;
}

/**
 * A decoded CheckResult in the domain's shape: PhoneLookup's absent name/address are left out, not
 * null, and a null `company` (no company checked; ResultsChunk v1 data) becomes undefined in place,
 * so JSON leaves it out (cheaper than copying every result of a chunk).
 */
function fromAvroResult(result: CheckResult): CheckResult {
  if ((result as { company?: unknown }).company === null) result.company = undefined;
  // ResultsChunk v5: a match from the private list names its version; none (or older data): left out.
  const listVersion = (result as { list_version?: (ListVersionRef & { activated_at?: string | null }) | null }).list_version;
  if (listVersion === null) result.list_version = undefined;
  else if (listVersion && listVersion.activated_at === null) delete listVersion.activated_at;
  const lookup = result.phone_lookup as { outcome: string; name?: string | null; address?: string | null } | null;
  if (lookup === null) return result;
  const phone_lookup: Record<string, unknown> = { outcome: lookup.outcome };
  if (lookup.name != null) phone_lookup.name = lookup.name;
  if (lookup.address != null) phone_lookup.address = lookup.address;
  return { ...result, phone_lookup: phone_lookup as unknown as CheckResult['phone_lookup'] };
}

/**
 * The job a message belongs to, read from its key alone (so also for a message that cannot be
 * decoded): `<job_id>` on jobs.events and checks.results, `<job_id>:<chunk>` on checks.rows.
 * Null for keys of other shapes (usage.events is keyed by organisation).
 */
export function jobIdOfKey(key: string | null): string | null {
  const id = key?.split(':')[0] ?? '';
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id : null;
}

/**
 * Whether a decode failure is for good (unrecoverable, docs/architecture.md "Conventions"): not in the wire format, a
 * schema id no registry knows, a subject that is no pipeline event, or Avro bytes that do not
 * read with their schema (WireFormatError too). Anything else (the registry not answering) is
 * transient.
 */
export function isUnreadableEvent(error: unknown): boolean {
  return isPermanent(error);
}

export class UnknownEventError extends PermanentError {
  constructor(subject: string) {
    super(`not a pipeline event: ${subject}`);
    this.name = 'UnknownEventError';
  }
}

export interface PipelineEvents {
  /** Encodes and appends events; events of one call go out in order, grouped per topic. */
  publish(events: PipelineEvent | PipelineEvent[]): Promise<void>;
  /** Encodes without appending (for callers that batch messages themselves). */
  encode(event: PipelineEvent): Promise<{ topic: PipelineTopic; message: EventMessage }>;
  /** Decodes a message value of any pipeline topic into the latest version of its event. */
  decode(value: Buffer): Promise<PipelineEvent>;
}

/**
 * The topic names of a deployment: `prefix` (config KAFKA_TOPIC_PREFIX) before every name, so
 * deployments and test runs can share a broker. Subjects never carry the prefix.
 */
export function topicNames(prefix = ''): { [K in keyof typeof TOPICS]: string } {
  return {
    jobsEvents: prefix + TOPICS.jobsEvents,
    checksRows: prefix + TOPICS.checksRows,
    checksResults: prefix + TOPICS.checksResults,
    usageEvents: prefix + TOPICS.usageEvents,
  };
}

/**
 * The fields of row and result chunks that hold personal data, sealed with the job's data key
 * (crypto-shredding, docs/privacy-and-proof.md "Forgetting"): the array is written as Avro binary
 * of its own type (the schema's field type), sealed with AES-256-GCM bound to job, chunk and kind,
 * and travels in `sealed_<field>` with the array left empty. Everything else of a chunk (ids,
 * mode, version, policy) stays readable: it names no one.
 */
interface SealedField {
  field: 'rows' | 'results' | 'slim_results';
  type: avro.Type;
  /** The field type's compiled codec (bytes identical to avsc's); null: avsc's generic path. */
  codec: CompiledAvro | null;
}

type SealedKind = 'RowsChunk' | 'ResultsChunk' | 'SlimResults';
let sealedFields: Record<SealedKind, SealedField> | null = null;
function sealedFieldsOf(): Record<SealedKind, SealedField> {
  if (!sealedFields) {
    const catalog = loadSchemaCatalog();
    const record = (type: PipelineEventType) => catalog.latest(EVENT_ROUTES[type].subject)!.type as avro.types.RecordType;
    const sealed = (field: SealedField['field'], type: avro.Type): SealedField => ({ field, type, codec: compileAvro(type) });
    sealedFields = {
      RowsChunk: sealed('rows', record('RowsChunk').field('rows').type),
      ResultsChunk: sealed('results', record('ResultsChunk').field('results').type),
      // ResultsChunk v6: the SlimResults record itself (the non-null branch of slim_results).
      SlimResults: sealed('slim_results', slimResultsType(record('ResultsChunk'))),
    };
  }
  return sealedFields;
}

function slimResultsType(record: avro.types.RecordType): avro.Type {
  return (record.field('slim_results').type as avro.types.UnwrappedUnionType).types[1];
}

const sealAad = (type: 'RowsChunk' | 'ResultsChunk', jobId: string, chunk: number) => `${type}:${jobId}:${chunk}`;
/** The event a sealed kind travels in: its seal is bound to that event's name (the slim results are a ResultsChunk's). */
const chunkEventOf = (kind: SealedKind): 'RowsChunk' | 'ResultsChunk' => (kind === 'SlimResults' ? 'ResultsChunk' : kind);

const sealedResolvers = new Map<string, avro.Resolver | null>();
/**
 * The sealed field was written as Avro of the writer's own schema version (the message's schema
 * id): a chunk written before a field was added (ResultsChunk v3 before match.approximate) is
 * read through a resolver to the latest version, so its defaults apply. Null when the writer is
 * the latest version, or an id this catalog does not pin (a registry that numbers otherwise):
 * then the latest type reads it as before.
 */
function sealedResolverOf(kind: SealedKind, writerId: number): avro.Resolver | undefined {
  let resolver = sealedResolvers.get(`${kind}:${writerId}`);
  if (resolver === undefined) {
    const catalog = loadSchemaCatalog();
    const writer = catalog.byId.get(writerId);
    const latest = catalog.latest(EVENT_ROUTES[chunkEventOf(kind)].subject)!;
    const { field, type: latestType } = sealedFieldsOf()[kind];
    const writerRecord = writer?.type as avro.types.RecordType | undefined;
    resolver = writer === undefined || writer.subject !== latest.subject || writer.id === latest.id || !writerRecord?.field(field)
      ? null
      : latestType.createResolver(kind === 'SlimResults' ? slimResultsType(writerRecord) : writerRecord.field(field).type);
    sealedResolvers.set(`${kind}:${writerId}`, resolver);
  }
  return resolver ?? undefined;
}

/** A chunk to be sealed names a data key that is gone: its job was deleted meanwhile. */
export class JobDataForgottenError extends Error {
  constructor() {
    super('the job data key is gone (job deleted)');
    this.name = 'JobDataForgottenError';
  }
}

/** What the pipeline needs of the job data keys (platform/keys/data-keys.ts). */
export type PipelineDataKeys = Pick<JobDataKeys, 'writerKey' | 'key'>;

export function createPipelineEvents(deps: {
  log: EventAppender;
  registry: SchemaRegistry;
  topicPrefix?: string;
  /**
   * The job data keys (the platform's). Without them chunks are written unsealed (unit tests,
   * the bench's "without encryption" run) and a sealed chunk cannot be read.
   */
  dataKeys?: PipelineDataKeys;
  /**
   * False: result chunks carry their results in the full form of v1-v5 (`results` /
   * `sealed_results`), as a writer before v6 did. Only the bench's same-run comparison and the
   * rolling-upgrade tests set it; the default is the slim form (docs/architecture.md "Slim results").
   */
  slimResults?: boolean;
}): PipelineEvents {
  const { log, registry, dataKeys } = deps;
  const prefix = deps.topicPrefix ?? '';
  const slimResults = deps.slimResults ?? true;

  /** A ResultsChunk as v6 writes it: results empty, the slim form in slim_results (sealed below). */
  function slimmed(value: ResultsChunkEvent): Record<string, unknown> {
    const { forgotten: _forgotten, ...rest } = value;
    return { ...rest, results: [], slim_results: toSlim(value.results) };
  }

  async function sealChunk(event: PipelineEvent): Promise<unknown> {
    if (event.type === 'ResultsChunk' && slimResults) {
      const value = slimmed(event.value);
      if (!dataKeys) return value;
      const key = await sealingKey(event.value);
      return {
        ...value, slim_results: null, data_key_id: key.keyId,
        sealed_slim_results: sealField('SlimResults', key.key, value.slim_results, event.value),
      };
    }
    if (!dataKeys || (event.type !== 'RowsChunk' && event.type !== 'ResultsChunk')) return event.value;
    const { field } = sealedFieldsOf()[event.type];
    const value = event.value as RowsChunkEvent & ResultsChunkEvent & Record<string, unknown>;
    const key = await sealingKey(value);
    const { forgotten: _forgotten, ...rest } = value;
    return { ...rest, [field]: [], data_key_id: key.keyId, [`sealed_${field}`]: sealField(event.type, key.key, value[field], value) };
  }

  /** A chunk's personal-data field as Avro of its own type, sealed for this job and chunk (openSealed reads it back). */
  function sealField(kind: SealedKind, key: Buffer, fieldValue: unknown, chunk: { job_id: string; chunk: number }): Buffer {
    const { field, type, codec } = sealedFieldsOf()[kind];
    const event = chunkEventOf(kind);
    let plain: Uint8Array | null = null;
    try {
      plain = codec?.encode(fieldValue) ?? null;
    } catch {
      // A value that does not fit: avsc's path names the paths (SchemaValidationError).
    }
    plain ??= toAvro(type, EVENT_ROUTES[event].subject, field, fieldValue);
    // Sealed at once: `plain` may be the compiled writer's view, valid until the next encode.
    return seal(key, plain, sealAad(event, chunk.job_id, chunk.chunk));
  }

  async function sealingKey(value: { job_id: string; data_key_id?: string | null }) {
    const key = value.data_key_id ? await dataKeys!.key(value.job_id, value.data_key_id) : await dataKeys!.writerKey(value.job_id);
    if (!key) throw new JobDataForgottenError();
    return key;
  }

  /**
   * A chunk's sealed field (`sealed_rows`, `sealed_results` or, ResultsChunk v6, the slim
   * results' `sealed_slim_results`) opened into its field; a chunk whose key is gone is marked
   * forgotten, its field left empty (docs/privacy-and-proof.md "Forgetting").
   */
  async function openSealed(kind: SealedKind, value: RowsChunkEvent & ResultsChunkEvent & Record<string, unknown>, writerId: number): Promise<void> {
    const { field, type: fieldType, codec } = sealedFieldsOf()[kind];
    const sealed = value[`sealed_${field}`] as Buffer | null | undefined;
    if (sealed == null) return;
    value[`sealed_${field}`] = null;
    if (!dataKeys || !value.data_key_id) throw new SealedPayloadError();
    const key = await dataKeys.key(value.job_id, value.data_key_id);
    if (!key) {
      value.forgotten = true;
      return;
    }
    try {
      const plain = open(key.key, sealed, sealAad(chunkEventOf(kind), value.job_id, value.chunk));
      // The latest version reads through the compiled codec; an older writer's through avsc's resolver.
      const resolver = sealedResolverOf(kind, writerId);
      value[field] = resolver || !codec ? fieldType.fromBuffer(plain, resolver) : codec.decode(plain);
    } catch (error) {
      if (error instanceof SealedPayloadError) throw error;
      throw new WireFormatError(`sealed ${field} do not read with their schema (${(error as Error)?.name ?? 'error'})`);
    }
  }

  /** `topic` is the unprefixed name (as PipelineTopic); the appender gets the prefixed one. */
  async function encode(event: PipelineEvent): Promise<{ topic: PipelineTopic; message: EventMessage }> {
    const { topic, subject } = EVENT_ROUTES[event.type];
    return { topic, message: { key: keyOf(event), value: await registry.encode(subject, await sealChunk(event)) } };
  }

  return {
    encode,

    async publish(events) {
      const list = Array.isArray(events) ? events : [events];
      // Consecutive events of the same topic go in one append; the order of topics is kept, so a
      // JobCreated published before rows is on the log before them.
      let topic: PipelineTopic | null = null;
      let batch: EventMessage[] = [];
      for (const event of list) {
        const encoded = await encode(event);
        if (topic !== null && encoded.topic !== topic) {
          await log.publish(prefix + topic, batch);
          batch = [];
        }
        topic = encoded.topic;
        batch.push(encoded.message);
      }
      if (topic !== null && batch.length > 0) await log.publish(prefix + topic, batch);
    },

    async decode(buffer) {
      const decoded = await registry.decode(buffer);
      const type = TYPE_OF_SUBJECT.get(decoded.subject);
      if (!type) throw new UnknownEventError(decoded.subject);
      // Row and result chunks (thousands of rows each, the hot path of matcher and projection)
      // are kept as decoded: plain objects of the compiled codec, or avsc's record objects for an
      // older version (fields are own enumerable properties, so reading, spreading and JSON work
      // the same); copying them cost the projection a fifth of its time.
      const value = type === 'RowsChunk' || type === 'ResultsChunk' ? decoded.value : normalise(decoded.value);
      if (type === 'RowsChunk' || type === 'ResultsChunk') {
        await openSealed(type, value as RowsChunkEvent & ResultsChunkEvent & Record<string, unknown>, unframe(buffer).id);
      }
      if (type === 'RowsChunk') {
        const chunk = value as RowsChunkEvent;
        // v7: the persons' fields that were their cells, filled in again; consumers see whole persons.
        if (chunk.person_cells) restorePersonCells(chunk.rows, chunk.person_cells);
        chunk.person_cells = null;
      }
      if (type === 'ResultsChunk') {
        const chunk = value as ResultsChunkEvent & { slim_results?: SlimResults | null; sealed_slim_results?: Buffer | null };
        await openSealed('SlimResults', chunk as RowsChunkEvent & ResultsChunkEvent & Record<string, unknown>, unframe(buffer).id);
        if (chunk.slim_results) {
          // v6: the slim form, read into what the full form decodes to (slim-results.ts).
          chunk.results = fromSlim(chunk.slim_results);
        } else {
          for (const row of chunk.results) row.result = fromAvroResult(row.result);
        }
        // Consumers see one shape whichever version wrote the chunk.
        delete chunk.slim_results;
        delete chunk.sealed_slim_results;
      }
      return { type, value } as PipelineEvent;
    },
  };
}

/** Avro binary of a sealed field, or SchemaValidationError naming the paths that do not fit. */
function toAvro(type: avro.Type, subject: string, field: string, value: unknown): Buffer {
  const paths: string[] = [];
  if (!type.isValid(value, { errorHook: (path) => paths.push([field, ...path].join('.')) })) {
    throw new SchemaValidationError(subject, paths);
  }
  return type.toBuffer(value);
}

/**
 * avsc decodes records into instances of generated classes; consumers and tests want plain
 * objects (toEqual, JSON, spreading), so the decoded value is copied into plain data.
 */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalise(v);
    return out;
  }
  return value;
}
