import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { PrivateListIndexes } from '../../registers/lists/private-indexes.ts';
import type { ActiveListIndex } from '../../registers/lists/active-index.ts';
import type { ActiveRegister } from '../../registers/companies/active-register.ts';
import type { CompanyIndex } from '../../domain/index.ts';
import type { PhoneDirectory } from '../../registers/phones/directory-port.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Ingest } from '../../ingest/index.ts';
import type { PipelineEvents } from '../../pipeline/events.ts';
import type { CursorSeal } from '../../platform/keys/cursor-seal.ts';
import type { JobStore } from '../../platform/store/jobs-port.ts';
import type { AnswerCheck } from '../answer-check.ts';
import type { UsageWriter } from '../billing/usage-writer.ts';
import type { Idempotency } from '../idempotency.ts';
import type { RateLimiter } from '../rate-limiter.ts';
import type { Quotas } from '../quotas.ts';

/** What every route module receives from buildApp. */
export interface RouteContext {
  authenticate: (request: FastifyRequest) => Promise<void>;
  rateLimiter: RateLimiter;
  /** What the RateLimit headers announce (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST). */
  rateLimitPolicy: { ratePerSecond: number; burst: number };
  idempotency: Idempotency;
  /** What is done with a synchronous check's own written answer (answer-check.ts): nothing, or in tests a check against its schema. */
  checkAnswer: AnswerCheck;
  /** `addressRegister` is optional: without it, addresses are parsed only. */
  activeIndex: Pick<ActiveListIndex, 'current'> & Partial<Pick<ActiveListIndex, 'addressRegister'>>;
  /** Organisations' private list indexes (use_private_list, docs/decisions.md §16). */
  privateLists: PrivateListIndexes;
  logger: Logger;
  /** Writes the usage events of live checks (billing/usage-writer.ts); absent: none are written. */
  usage?: UsageWriter;
  clock: () => Date;
  /** The active company register (live company checks); absent: live company checks answer 503. */
  companyRegister?: Pick<ActiveRegister<CompanyIndex>, 'current'>;
  /** The phone directory (live phone checks); absent: live phone checks answer 503. */
  phoneDirectory?: PhoneDirectory;
}

/** What the check-job routes need besides the RouteContext. */
export interface CheckJobsContext {
  jobs: JobStore;
  /** The job entry points (people, files, drafts, result files). */
  ingest: Ingest;
  /** Where uploads are received (the spool directory). */
  spoolDir: string;
  /** JSON/NDJSON jobs publish their rows while the body is still read (docs/architecture.md "Overlapped intake"). */
  overlapIntake: boolean;
  /** Publishes JobStateChanged on DELETE; absent: nothing is published. */
  events?: Pick<PipelineEvents, 'publish'>;
  maxBodyBytes: number;
  maxUploadBytes: number;
  clock: () => Date;
  /** Seals and opens results cursors (HMAC). */
  cursors: CursorSeal;
  /** The organisation's quotas of drafts, waiting rows, uploads at once, previews and monitor uploads (docs/api-decisions.md "Quotas"). */
  quotas: Quotas;
}

/** Response headers the OpenAPI document describes, by name. */
export type DocumentedHeader = 'Request-Id' | 'Retry-After' | 'Idempotent-Replayed' | 'WWW-Authenticate' | 'Location'
  | 'RateLimit-Policy' | 'RateLimit-Limit' | 'RateLimit-Remaining' | 'RateLimit-Reset';

/** The headers of a rate-limited route (check-hooks.ts limitRate), on its answers and its 429. */
export const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const satisfies readonly DocumentedHeader[];

/**
 * One operation as both fastify and the OpenAPI document see it: the same zod schemas validate the
 * request, check the response and are published, so the three cannot drift apart.
 */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  operationId: string;
  summary: string;
  description?: string;
  /** false only for the OpenAPI document itself. */
  authenticated: boolean;
  requestHeaders?: Array<{ name: string; description: string; schema: z.ZodType; required: boolean }>;
  body?: z.ZodType;
  /** The body may be left out (documented as not required). */
  bodyOptional?: boolean;
  /** Other media types the body may come as (documented only; the route reads them itself). */
  otherBodies?: Array<{ mediaType: string; schema: z.ZodType; description: string }>;
  /** Query parameters (documented; routes validate them). */
  query?: z.ZodObject;
  /** Path parameters named `{name}` in `url` (documented; routes validate them). */
  pathParams?: Record<string, { description: string; schema: z.ZodType }>;
  bodyLimit?: number;
  /**
   * The body as it is when the schema would give it back unchanged, else null (then zod parses
   * it): a route whose bodies are large and checked on every request (checks-body.ts).
   */
  plainBody?: (body: unknown) => unknown;
  /** The success response; errors are listed by status in `errors`. */
  success: {
    status: number;
    description: string;
    schema: z.ZodType;
    headers?: DocumentedHeader[];
    /** A response that is not JSON (a file): its media types and JSON Schemas; not checked by fastify. */
    media?: Record<string, { schema: object }>;
  };
  errors: number[];
}
