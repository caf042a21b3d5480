/**
 * Reads a POST /v2/check-jobs body as a stream (docs/decisions.md §7): people go through the streaming
 * readers into the intake's spool file, never into memory whole; the other job fields are
 * validated as soon as they are read; the raw bytes are counted (body limit) and hashed (the
 * input's SHA-256 and the idempotency fingerprint) on the way.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { PersonInput } from '../../domain/types.ts';
import type { JobIntake, JobSpec, StreamedPeople } from '../../ingest/jobs/intake.ts';
import { apiErrorOfIngest } from '../routes/check-job-files.ts';
import { IntakeError, readPeopleFromJson, readPeopleFromNdjson } from '../../ingest/people/index.ts';
import { ApiError, validationFailed } from '../errors.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { MatchPolicySchema } from '../schemas/enums.ts';
import { CheckJobFieldsSchema, MAX_PEOPLE_PER_JOB, MAX_RETENTION_DAYS, type CheckJobFields } from '../schemas/check-job.ts';
import { boundedString } from '../schemas/registry.ts';
import { apiErrorOfIntake } from './intake-issues.ts';
import { issueText } from '../issue-texts.ts';

export type JobMediaType = 'json' | 'ndjson';

/** The body kind of a job or monitor request (its content type); any other is 400 unsupported_media_type. */
export function jobMediaTypeOf(request: FastifyRequest): JobMediaType | 'multipart' {
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-ndjson') return 'ndjson';
  if (type === 'multipart/form-data') return 'multipart';
  throw new ApiError({ code: 'invalid_request', messageKey: 'unsupported_job_media_type', status: 400, details: { reason: 'unsupported_media_type' } });
}

/**
 * Job fields in the query string. An NDJSON body holds only people, so its fields can only come
 * from here; a JSON body may carry them here or in the body, but not the same field in both
 * (422 at that field: neither silently wins).
 */
export const JobQuerySchema = z.strictObject({
  callback_url: boundedString().optional().describe('https callback URL (or `callback_url` in a JSON body)'),
  external_ref: boundedString().optional().describe('Your reference, echoed on the job (or in a JSON body)'),
  policy: MatchPolicySchema.optional().describe('Match policy (or in a JSON body)'),
  stop_level: z.coerce.number().int().min(1).max(5).optional()
    .describe("Stop line, default the organisation's (or `options.stop_level` in a JSON body)"),
  retention_days: z.coerce.number().int().min(1).max(MAX_RETENTION_DAYS).optional()
    .describe("Days names and addresses are kept, default the organisation's (or `options.retention_days` in a JSON body)"),
});

export interface ReadJobBody {
  /** The spool, and the job already publishing when the intake overlapped (seal or abandon it). */
  spooled: StreamedPeople;
  fields: CheckJobFields;
  /** Hex SHA-256 of the raw body bytes as submitted. */
  bodySha256: string;
  bytes: number;
}

function parseOrThrow<T>(schema: z.ZodType<T>, data: unknown, prefix: PropertyKey[] = []): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] }));
  throw validationFailed(issuesFromZod(issues, prefix.length > 0 ? { [prefix[0] as string]: data } : data));
}

/** The job fields of the query string, checked before a byte of the body is read. */
export function fieldsFromQuery(query: Record<string, unknown>): CheckJobFields {
  const q = parseOrThrow(JobQuerySchema, query);
  const options = {
    ...(q.stop_level !== undefined ? { stop_level: q.stop_level } : {}),
    ...(q.retention_days !== undefined ? { retention_days: q.retention_days } : {}),
  };
  return {
    ...(q.callback_url !== undefined ? { callback_url: q.callback_url } : {}),
    ...(q.external_ref !== undefined ? { external_ref: q.external_ref } : {}),
    ...(q.policy !== undefined ? { policy: q.policy } : {}),
    ...(Object.keys(options).length > 0 ? { options } : {}),
  };
}

/**
 * A JSON body's fields with those of the query string added; a field given in both places is a
 * 422 at its body path (the two might disagree, and neither may be silently dropped).
 */
function mergeQueryFields(body: CheckJobFields, query: CheckJobFields): CheckJobFields {
  const conflicts: string[] = [];
  for (const name of ['callback_url', 'external_ref', 'policy'] as const) {
    if (query[name] !== undefined && body[name] !== undefined) conflicts.push(name);
  }
  for (const name of ['stop_level', 'retention_days'] as const) {
    if (query.options?.[name] !== undefined && body.options?.[name] !== undefined) conflicts.push(`options.${name}`);
  }
  if (conflicts.length > 0) {
    throw validationFailed(conflicts.map((path) => ({
      path,
      describe: issueText('given_twice'),
    })));
  }
  const options = { ...body.options, ...query.options };
  return { ...body, ...query, ...(Object.keys(options).length > 0 ? { options } : {}) };
}

/** A JSON body's field other than `people`, checked the moment it is read (fail fast). */
function checkJsonField(name: string, value: unknown): void {
  const shape = CheckJobFieldsSchema.shape as Record<string, z.ZodType>;
  if (!Object.hasOwn(shape, name)) {
    throw validationFailed([{
      path: /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? name : '',
      describe: issueText('unknown_field'),
    }]);
  }
  parseOrThrow(shape[name], value, [name]);
}

export async function readJobBody(options: {
  body: AsyncIterable<Uint8Array>;
  mediaType: JobMediaType;
  /** The job fields of the query string (fieldsFromQuery). */
  queryFields: CheckJobFields;
  intake: JobIntake;
  maxBytes: number;
  /**
   * The job as far as it is known when the first people are validated (fields read before
   * `people`, merged with the query): the overlapped intake publishes from then on. Absent: the
   * whole body is spooled first.
   */
  early?: (fields: CheckJobFields) => JobSpec | null;
}): Promise<ReadJobBody> {
  const hash = createHash('sha256');
  let bytes = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of options.body) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) {
        throw new ApiError({ code: 'invalid_request', messageKey: 'body_too_large', status: 413, details: { reason: 'body_too_large' } });
      }
      hash.update(chunk);
      yield chunk;
    }
  }

  let jsonFields: Record<string, unknown> = {};
  const fieldsSoFar: Record<string, unknown> = {};
  // `chunks`: the body as it arrives, or (the overlapped intake's spool read back) its bytes from
  // the spool file, which give the same people and fields again.
  async function* people(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<PersonInput[]> {
    try {
      if (options.mediaType === 'json') {
        const onField = (name: string, value: unknown) => {
          checkJsonField(name, value);
          fieldsSoFar[name] = value;
        };
        const summary = yield* readPeopleFromJson(chunks, { maxPeople: MAX_PEOPLE_PER_JOB, onField });
        jsonFields = summary.fields;
      } else {
        yield* readPeopleFromNdjson(chunks, { maxPeople: MAX_PEOPLE_PER_JOB });
      }
    } catch (error) {
      if (!(error instanceof IntakeError)) throw error;
      // No body at all is a missing `people` (as on POST /v2/checks), not malformed JSON.
      if (bytes === 0) throw validationFailed([{ path: 'people', describe: issueText('required') }]);
      throw apiErrorOfIntake(error);
    }
  }

  const early = options.early;
  let spooled: StreamedPeople;
  try {
    spooled = early
      ? await options.intake.spoolBodyAndPublish(counted(), people, () => {
        const known = options.mediaType === 'json'
          ? mergeQueryFields(parseOrThrow(CheckJobFieldsSchema, fieldsSoFar), options.queryFields)
          : options.queryFields;
        return early(known);
      })
      : Object.assign(await options.intake.spool(people(counted())), { early: null });
  } catch (error) {
    throw apiErrorOfIngest(error);
  }
  try {
    const fields =
      options.mediaType === 'json'
        ? mergeQueryFields(parseOrThrow(CheckJobFieldsSchema, jsonFields), options.queryFields)
        : options.queryFields;
    return { spooled, fields, bodySha256: hash.digest('hex'), bytes };
  } catch (error) {
    await options.intake.abandon(spooled);
    await spooled.discard();
    throw error;
  }
}
