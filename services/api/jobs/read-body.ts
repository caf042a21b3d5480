/**
 * Reads a POST /v2/check-jobs body as a stream (DECISIONS §7): people go through the streaming
 * readers into the intake's spool file, never into memory whole; the other job fields are
 * validated as soon as they are read; the raw bytes are counted (body limit) and hashed (the
 * input's SHA-256 and the idempotency fingerprint) on the way.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { PersonInput } from '../../domain/types.ts';
import type { JobIntake } from '../../ingest/jobs/intake.ts';
import type { SpooledPeople } from '../../ingest/jobs/spool.ts';
import { IntakeError, readPeopleFromJson, readPeopleFromNdjson } from '../../ingest/people/index.ts';
import { ApiError, validationFailed } from '../errors.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { MatchPolicySchema } from '../schemas/enums.ts';
import { CheckJobFieldsSchema, MAX_PEOPLE_PER_JOB, MAX_RETENTION_DAYS, type CheckJobFields } from '../schemas/check-job.ts';
import { boundedString } from '../schemas/registry.ts';
import { apiErrorOfIntake } from './intake-issues.ts';

export type JobMediaType = 'json' | 'ndjson';

/** The job fields of an NDJSON body, which holds only people, come from the query string. */
export const NdjsonQuerySchema = z.strictObject({
  callback_url: boundedString().optional().describe('NDJSON bodies only: https callback URL'),
  external_ref: boundedString().optional().describe('NDJSON bodies only: your reference, echoed on the job'),
  policy: MatchPolicySchema.optional().describe('NDJSON bodies only: match policy'),
  stop_level: z.coerce.number().int().min(1).max(5).optional().describe("NDJSON bodies only: stop line, default the organisation's"),
  retention_days: z.coerce.number().int().min(1).max(MAX_RETENTION_DAYS).optional()
    .describe("NDJSON bodies only: days names and addresses are kept, default the organisation's"),
});

export interface ReadJobBody {
  spooled: SpooledPeople;
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

/** The job fields of an NDJSON query string, checked before a byte of the body is read. */
export function fieldsFromQuery(mediaType: JobMediaType, query: Record<string, unknown>): CheckJobFields | null {
  if (mediaType === 'json') {
    // A JSON body carries its own fields; a query parameter would be silently ignored, so it is refused.
    const names = Object.keys(query);
    if (names.length > 0) {
      throw validationFailed(names.map((name) => ({
        path: /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? name : '',
        describe: (l) => (l === 'da' ? 'Ukendt felt (felterne står i JSON-indholdet).' : 'Unknown field (fields go in the JSON body).'),
      })));
    }
    return null;
  }
  const q = parseOrThrow(NdjsonQuerySchema, query);
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

/** A JSON body's field other than `people`, checked the moment it is read (fail fast). */
function checkJsonField(name: string, value: unknown): void {
  const shape = CheckJobFieldsSchema.shape as Record<string, z.ZodType>;
  if (!Object.hasOwn(shape, name)) {
    throw validationFailed([{
      path: /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? name : '',
      describe: (l) => (l === 'da' ? 'Ukendt felt.' : 'Unknown field.'),
    }]);
  }
  parseOrThrow(shape[name], value, [name]);
}

export async function readJobBody(options: {
  body: AsyncIterable<Uint8Array>;
  mediaType: JobMediaType;
  queryFields: CheckJobFields | null;
  intake: JobIntake;
  maxBytes: number;
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
  async function* people(): AsyncGenerator<PersonInput[]> {
    try {
      if (options.mediaType === 'json') {
        const summary = yield* readPeopleFromJson(counted(), { maxPeople: MAX_PEOPLE_PER_JOB, onField: checkJsonField });
        jsonFields = summary.fields;
      } else {
        yield* readPeopleFromNdjson(counted(), { maxPeople: MAX_PEOPLE_PER_JOB });
      }
    } catch (error) {
      if (!(error instanceof IntakeError)) throw error;
      // No body at all is a missing `people` (as on POST /v2/checks), not malformed JSON.
      if (bytes === 0) throw validationFailed([{ path: 'people', describe: (l) => (l === 'da' ? 'Skal udfyldes.' : 'Is required.') }]);
      throw apiErrorOfIntake(error);
    }
  }

  const spooled = await options.intake.spool(people());
  try {
    const fields = options.mediaType === 'json' ? parseOrThrow(CheckJobFieldsSchema, jsonFields) : (options.queryFields ?? {});
    return { spooled, fields, bodySha256: hash.digest('hex'), bytes };
  } catch (error) {
    await spooled.discard();
    throw error;
  }
}
