import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../platform/config.ts';
import type { CertificateKeys } from '../platform/keys/certificate-keys.ts';
import type { CursorSeal } from '../platform/keys/cursor-seal.ts';
import { errorFields, type Logger } from '../platform/logger.ts';
import type { PriceTable } from '../domain/pricing.ts';
import type { AccountStore } from '../platform/store/accounts-port.ts';
import type { ListStore } from '../platform/store/lists-port.ts';
import type { IdempotencyStore } from '../platform/store/idempotency-port.ts';
import { toListVersionRef, type ActiveListIndex } from '../registers/lists/active-index.ts';
import { createPrivateListIndexes, DEFAULT_PRIVATE_LIST_CACHE_ENTRIES, type PrivateListIndexes } from '../registers/lists/private-indexes.ts';
import { createIngest, DEFAULT_SPOOL_DIR, endUnfinishedJob } from '../ingest/index.ts';
import { listNotReadyResult } from '../domain/list-not-ready.ts';
import {
  buildListIndex, checkJobRow, checkPeople, checkPerson, findCompany, normalisePhone, testRowLookups, type ListIndex, type PhoneIndex, type RowLookups,
} from '../domain/index.ts';
import type { CheckOptions } from '../domain/types.ts';
import type { PipelineEvents } from '../pipeline/events.ts';
import type { ActiveRegister } from '../registers/companies/active-register.ts';
import type { CompanyIndex } from '../domain/index.ts';
import type { PhoneDirectory } from '../registers/phones/directory-port.ts';
import { checkCallbackUrl, type LookupAll } from '../platform/outbound-http/index.ts';
import type { MonitorStore } from '../platform/store/monitors-port.ts';
import type { MonitorsContext } from './routes/monitors.ts';
import type { JobStore } from '../platform/store/jobs-port.ts';
import { collectAllowedMethods } from './allowed-methods.ts';
import { createAuthenticator } from './auth.ts';
import { idleTimeoutSparesAnswering } from './idle-timeout.ts';
import { ApiError } from './errors.ts';
import { createClientErrorHandler } from './client-errors.ts';
import { createErrorHandler } from './error-handler.ts';
import { answerAsWritten, checkedAnswer } from './answer-check.ts';
import { createUsageWriter, type UsageWriter } from './billing/usage-writer.ts';
import { useStrictJsonBodies } from './json-body.ts';
import { createIdempotency } from './idempotency.ts';
import { DEFAULT_JOB_BODY_LIMIT } from './routes/check-jobs.ts';
import { MAX_UPLOAD_BYTES } from './jobs/read-upload.ts';
import { MAX_REQUEST_HEAD_BYTES } from './openapi.ts';
import { createRateLimiter, createRateSharing, type RateLimiter } from './rate-limiter.ts';
import type { RateUsageStore } from '../platform/store/rate-usage-port.ts';
import { createQuotas, quotaLimitsOf, withQuotaBuckets, type QuotaConfigName, type Quotas } from './quotas.ts';
import { zodSerializerCompiler, zodValidatorCompiler } from './zod-compilers.ts';
import type { RouteContext } from './routes/route-spec.ts';
import { registerRoutes } from './routes/index.ts';
import type { WebPage } from './web/assets.ts';
import { registerWebPage } from './web/routes.ts';
import type { PeopleService } from './people/people-service.ts';
import type { InboundStore } from '../platform/store/inbound-port.ts';
import type { ConnectorStore } from '../platform/store/connectors-port.ts';
import type { ChannelAdding } from './routes/channels.ts';
import type { SavedMappingStore } from '../platform/store/saved-mappings-port.ts';
import { SELF_AUDITED_PREFIXES } from './routes/people.ts';
import { registerDocsPage, type DocsPage } from './docs-page.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves once the usage events of every live check answered so far are on the event log. */
    usageWritten(): Promise<void>;
  }
}

export interface ApiDeps {
  config: Pick<Config, 'RATE_LIMIT_PER_SECOND' | 'RATE_LIMIT_BURST'> & Partial<Pick<Config, ServerTimeoutName | QuotaConfigName>>;
  logger: Logger;
  accounts: AccountStore;
  lists: ListStore;
  /** The in-memory index of the active cpr list version; the API only reads `current()`. */
  activeIndex: Pick<ActiveListIndex, 'current'> & Partial<Pick<ActiveListIndex, 'addressRegister'>>;
  /** Organisations' private list indexes (use_private_list on POST /v2/checks); absent: built from `lists` with the default bound. */
  privateLists?: PrivateListIndexes;
  clock?: () => Date;
  /** Where Idempotency-Key responses are remembered: the platform's store, shared by every API process. */
  idempotency: IdempotencyStore;
  /**
   * The event log (pipeline events): live checks' usage events go there through the app's usage
   * writer (billing/usage-writer.ts; `app.usageWritten()` waits for them). Without it none are.
   */
  events?: Pick<PipelineEvents, 'publish'>;
  /** Where the usage events go instead of `events` (the embedded deployment: a thread of their own, platform/log/append-thread.ts). */
  usageEvents?: Pick<PipelineEvents, 'publish'>;
  /** The active company register; without it live company checks answer 503. */
  companyRegister?: Pick<ActiveRegister<CompanyIndex>, 'current'>;
  /** The phone directory (file or HTTP adapter); without it live phone checks answer 503. */
  phoneDirectory?: PhoneDirectory;
  /** The imported phone directory (Registers.phones): draft previews of phone checks read it. */
  phoneRegister?: Pick<ActiveRegister<PhoneIndex>, 'current'>;
  /** What a check job with phone checks pins (Registers.phoneDirectoryPin); absent: no directory. */
  phoneDirectoryPin?: () => { provider: true } | { provider: false; versionId: string | null };
  /** Asynchronous check jobs; without it the /v2/check-jobs routes are not registered. */
  checkJobs?: CheckJobsDeps;
  /** Job certificate keys; without them /v2/certificates and the JWKS are not registered. */
  certificates?: CertificateKeys;
  /** The portal's people (docs/people.md): sessions, users, keys, audit log; absent: API keys only. */
  people?: PeopleService;
  /** Inbound channels an admin sees and changes in the page (docs/inbound.md "In the page"); absent: no such routes. */
  inbound?: InboundStore;
  /** Connectors, shown in the same screen. */
  connectors?: ConnectorStore;
  /** Saved column mappings (docs/web.md "Saved column mappings"); absent or without checkJobs: no such routes. */
  savedMappings?: SavedMappingStore;
  /** Adding drop folders and connectors in the page; absent (no INBOUND_SECRET_KEY): only the admin tool adds them. */
  channelAdding?: ChannelAdding;
  /** The web page (services/api/web, docs/web.md) served at `/`; absent: `/` is the API's 404. */
  webPage?: WebPage;
  /** The API docs page at `/docs` (Swagger UI on /v2/openapi.json, docs/api-decisions.md); absent: 404. */
  docsPage?: DocsPage;
  /**
   * Rate-limit consumption shared with the other API processes (the distributed deployment);
   * without it the limit holds per process. `process` names this one, `intervalMs` the exchange period.
   */
  rateSharing?: { store: RateUsageStore; process: string; intervalMs: number };
  /**
   * Tests: check every synchronous check's own written answer against its schema (answer-check.ts
   * `checkedAnswer`); off, the answer is sent as the check wrote it (docs/architecture.md
   * "Synchronous checks").
   */
  checkResponses?: boolean;
}

export interface CheckJobsDeps {
  jobs: JobStore;
  /** Where the job's events go (JobCreated, row chunks, RowsComplete, JobStateChanged). */
  events: Pick<PipelineEvents, 'publish'>;
  /** Where validated people wait while a body is read; default the system temp directory. */
  spoolDir?: string;
  /** Where drafts keep their uploaded file (UPLOAD_DIR); default `<spoolDir>/../uploads`-like temp dir. */
  draftDir?: string;
  /** Largest body accepted (413 beyond); default 512 MB. */
  maxBodyBytes?: number;
  /** Largest uploaded file (413 beyond); default 100 MB (docs/decisions.md §14). */
  maxUploadBytes?: number;
  /** Publish JSON/NDJSON rows while the body is still read; default true. */
  overlapIntake?: boolean;
  /** CALLBACK_ALLOW_HOSTS: hosts exempt from the private-address check (tests). */
  callbackAllowHosts?: readonly string[];
  /** DNS for the callback URL check; default the system resolver. */
  callbackLookup?: LookupAll;
  /** Rows per checks.rows message; default 2,000. */
  chunkRows?: number;
  /** Row JSON per append of a job's rows; the embedded log takes EMBEDDED_APPEND_BYTES (services/ingest/jobs/chunk-publisher.ts). */
  maxAppendBytes?: number;
  /** Seals results cursors with the platform's key ring, so every API process opens the others' cursors. */
  cursors: CursorSeal;
  /** Pay-per-list prices (docs/decisions.md §8); absent: no job waits for payment. */
  prices?: PriceTable;
  /** PAYMENT_WEBHOOK_SECRET; absent: POST /v2/payments/webhook answers 404. */
  paymentWebhookSecret?: string;
  /** Monitors (docs/monitors.md); absent: the /v2/monitors routes are not registered. */
  monitors?: MonitorStore;
}

type ServerTimeoutName = 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_IDLE_TIMEOUT_MS' | 'HTTP_KEEP_ALIVE_TIMEOUT_MS';

/** The server's timeouts: the configuration's, else the configuration's defaults. */
function serverTimeoutsOf(config: Partial<Pick<Config, ServerTimeoutName>>) {
  const defaults = loadConfig({});
  const request = config.HTTP_REQUEST_TIMEOUT_MS ?? defaults.HTTP_REQUEST_TIMEOUT_MS;
  return {
    request,
    // Node requires the head's limit below the whole request's.
    headers: Math.min(config.HTTP_HEADERS_TIMEOUT_MS ?? defaults.HTTP_HEADERS_TIMEOUT_MS, request),
    idle: config.HTTP_IDLE_TIMEOUT_MS ?? defaults.HTTP_IDLE_TIMEOUT_MS,
    keepAlive: config.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? defaults.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  };
}

/** The default request body limit; POST /v2/checks raises its own to 5 MB (docs/decisions.md §11). */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * The HTTP edge (docs/contract.md): builds the fastify app with every route, the one error handler and the
 * OpenAPI document. Never listens by itself; `startApi` (services/processes.ts) does.
 */
export function buildApp(deps: ApiDeps): FastifyInstance {
  const logger = deps.logger.child({ module: 'api' });
  const clock = deps.clock ?? (() => new Date());
  // fastify's own logger stays off: we log one line per response ourselves, ids only.
  // return503OnClosing is off because fastify's 503 body is not the contract's error shape; a
  // request that still arrives while closing is answered normally (graceful drain).
  const handleError = createErrorHandler(logger);
  const timeouts = serverTimeoutsOf(deps.config);
  const app = fastify({
    logger: false,
    genReqId: () => randomUUID(),
    bodyLimit: DEFAULT_BODY_LIMIT,
    return503OnClosing: false,
    // A certificate token travels in the path (GET /v2/certificates/{token}); fastify's default
    // of 100 characters would make every real token a 404. The router takes any parameter that
    // fits in the request head (beyond MAX_REQUEST_HEAD_BYTES Node answers 431), so a too long
    // one reaches its route and gets the route's documented 422, not a bare 400 of the router.
    routerOptions: { maxParamLength: MAX_REQUEST_HEAD_BYTES },
    // Timeouts set on purpose (the defaults left a body trickling in open for ever): see
    // docs/api-decisions.md "Server timeouts and errors before routing".
    requestTimeout: timeouts.request,
    connectionTimeout: timeouts.idle,
    keepAliveTimeout: timeouts.keepAlive,
    http: { maxHeaderSize: MAX_REQUEST_HEAD_BYTES },
    clientErrorHandler: createClientErrorHandler(logger),
    // Errors found before routing (a malformed URL) get the contract's body too.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
  });

  app.server.headersTimeout = timeouts.headers;
  idleTimeoutSparesAnswering(app.server);
  // Node looks for expired requests this often (read when it starts listening); its 30 s default
  // would let a request outlive a short timeout by that much.
  (app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.min(1000, timeouts.headers);

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(zodSerializerCompiler);
  app.setErrorHandler(handleError);
  const allowedMethods = collectAllowedMethods(app);
  app.setNotFoundHandler(() => {
    throw new ApiError({ code: 'not_found', messageKey: 'not_found' });
  });
  // A known path with a method it does not answer: 405 + Allow, decided in onRequest (before
  // fastify looks at the body: a QUERY without Content-Type would otherwise be its 400).
  app.addHook('onRequest', async (request) => {
    if (!request.is404) return;
    const allowed = allowedMethods.of(request.url.split('?')[0]);
    if (allowed.length === 0) return;
    throw new ApiError({
      code: 'invalid_request',
      messageKey: 'method_not_allowed',
      status: 405,
      details: { reason: 'method_not_allowed' },
      headers: { Allow: allowed.join(', ') },
    });
  });
  app.decorateRequest('auth', null);
  // Bodies are JSON only (docs/contract.md); fastify's text/plain parser would let text reach validation.
  app.removeContentTypeParser('text/plain');
  useStrictJsonBodies(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    logger.info(
      {
        request_id: request.id,
        method: request.method,
        route: request.routeOptions.url ?? 'unknown',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        org_id: request.auth?.org.id,
        mode: request.auth?.mode,
      },
      'api.request',
    );
  });

  const quotaLimits = quotaLimitsOf(deps.config);
  // The keys' rate and the organisations' preview allowance in one limiter, shared across processes as one.
  const rateLimiter = sharedAcrossProcesses(app, withQuotaBuckets(
    createRateLimiter({ ratePerSecond: deps.config.RATE_LIMIT_PER_SECOND, burst: deps.config.RATE_LIMIT_BURST, now: () => clock().getTime() }),
    {
      previews: createRateLimiter({ ratePerSecond: quotaLimits.previewsPerMinute / 60, burst: quotaLimits.previewBurst, now: () => clock().getTime() }),
      monitorUploads: createRateLimiter({ ratePerSecond: quotaLimits.monitorUploadsPerHour / 3600, burst: quotaLimits.monitorUploadBurst, now: () => clock().getTime() }),
    },
  ), deps, logger);
  const usageEvents = deps.usageEvents ?? deps.events;
  const usage = usageEvents ? usageWriterOf(app, usageEvents, logger) : undefined;
  app.decorate('usageWritten', () => usage?.written() ?? Promise.resolve());
  const context: RouteContext = {
    authenticate: createAuthenticator(deps.accounts, deps.people),
    rateLimiter,
    rateLimitPolicy: { ratePerSecond: deps.config.RATE_LIMIT_PER_SECOND, burst: deps.config.RATE_LIMIT_BURST },
    idempotency: createIdempotency({
      store: deps.idempotency,
      now: clock,
      logger,
    }),
    activeIndex: deps.activeIndex,
    checkAnswer: deps.checkResponses ? checkedAnswer : answerAsWritten,
    privateLists: deps.privateLists ?? createPrivateListIndexes({ listStore: deps.lists, logger, maxEntries: DEFAULT_PRIVATE_LIST_CACHE_ENTRIES }),
    logger,
    clock,
    ...(usage ? { usage } : {}),
    ...(deps.companyRegister ? { companyRegister: deps.companyRegister } : {}),
    ...(deps.phoneDirectory ? { phoneDirectory: deps.phoneDirectory } : {}),
  };
  const jobs = deps.checkJobs;
  // One set of quotas for the check-job and monitor routes: an upload slot is the organisation's, whichever route reads the file.
  const quotas = jobs ? createQuotas({ limits: quotaLimits, jobs: jobs.jobs, limiter: rateLimiter }) : undefined;
  registerRoutes(
    app, context, jobs && quotas ? checkJobsContext(deps, jobs, clock, quotas) : undefined, deps.certificates,
    jobs ? { jobs: jobs.jobs, events: jobs.events, secret: jobs.paymentWebhookSecret ?? null } : undefined,
    jobs?.monitors && quotas ? monitorsContext(deps, jobs, jobs.monitors, clock, quotas) : undefined,
    deps.people ? { service: deps.people } : undefined,
    deps.people && deps.inbound ? {
      inbound: deps.inbound, now: clock, ...(deps.connectors ? { connectors: deps.connectors } : {}), ...(deps.channelAdding ? { adding: deps.channelAdding } : {}),
    } : undefined,
    jobs && deps.savedMappings ? { store: deps.savedMappings, jobs: jobs.jobs, now: clock } : undefined,
  );
  if (deps.people) auditChanges(app, deps.people, logger);
  if (deps.webPage) registerWebPage(app, deps.webPage);
  if (deps.docsPage) registerDocsPage(app, deps.docsPage);
  return app;
}

/**
 * The live checks' usage writer (docs/privacy-and-proof.md "Billing"): its events are written once
 * the API has stopped taking requests, as the app closes (fastify's onClose comes after every
 * request in flight has been answered), before the caller closes the event log.
 */
function usageWriterOf(app: FastifyInstance, events: Pick<PipelineEvents, 'publish'>, logger: Logger): UsageWriter {
  const usage = createUsageWriter({ events, logger });
  app.addHook('onClose', () => usage.close());
  return usage;
}

/** Routes whose successful changes go into the audit log by this hook: jobs, monitors and the inbound channels. */
const AUDITED_PREFIXES = ['/v2/check-jobs', '/v2/monitors', '/v2/email-senders', '/v2/drop-folders', '/v2/connectors', '/v2/column-mappings'];

/**
 * docs/people.md "Audit log": every change to jobs and monitors that succeeded, by whom (user or
 * key id), what (method and route pattern, never the URL with its query) and on which id. The
 * people routes write their own entries (SELF_AUDITED_PREFIXES). A failed write is logged, not
 * answered: the change itself is done and the caller has its answer.
 */
function auditChanges(app: FastifyInstance, people: PeopleService, logger: Logger): void {
  app.addHook('onResponse', async (request, reply) => {
    const auth = request.auth;
    const route = request.routeOptions.url;
    if (!auth || !route || ['GET', 'HEAD', 'OPTIONS'].includes(request.method) || reply.statusCode >= 400) return;
    if (!AUDITED_PREFIXES.some((p) => route.startsWith(p)) || SELF_AUDITED_PREFIXES.some((p) => route.startsWith(p))) return;
    const id = (request.params as { id?: unknown } | undefined)?.id;
    try {
      await people.audit(
        auth.user ? { org_id: auth.org.id, kind: 'user', id: auth.user.id } : { org_id: auth.org.id, kind: 'key', id: auth.key.id },
        `${request.method} ${route}`, typeof id === 'string' ? id : null,
      );
    } catch (error) {
      logger.warn({ ...errorFields(error), request_id: request.id }, 'audit.write_failed');
    }
  });
}

function monitorsContext(deps: ApiDeps, jobsDeps: CheckJobsDeps, monitors: MonitorStore, clock: () => Date, quotas: Quotas): MonitorsContext {
  const spoolDir = jobsDeps.spoolDir ?? DEFAULT_SPOOL_DIR;
  return {
    monitors,
    checkCallbackUrl: (url) => checkCallbackUrl(url, {
      allowHosts: jobsDeps.callbackAllowHosts ?? [],
      ...(jobsDeps.callbackLookup ? { lookup: jobsDeps.callbackLookup } : {}),
    }),
    endRun: (jobId) => endUnfinishedJob({ jobs: jobsDeps.jobs, events: jobsDeps.events }, jobId, clock().toISOString()),
    privateListVersion: async (orgId) => (await deps.lists.getActiveListVersion('customer', orgId))?.id ?? null,
    spoolDir,
    maxBodyBytes: jobsDeps.maxBodyBytes ?? DEFAULT_JOB_BODY_LIMIT,
    maxUploadBytes: jobsDeps.maxUploadBytes ?? MAX_UPLOAD_BYTES,
    quotas,
    clock,
  };
}

function checkJobsContext(deps: ApiDeps, jobsDeps: CheckJobsDeps, clock: () => Date, quotas: Quotas) {
  const spoolDir = jobsDeps.spoolDir ?? DEFAULT_SPOOL_DIR;
  const ingest = createIngest({
    jobs: jobsDeps.jobs,
    events: jobsDeps.events,
    currentListVersion: () => {
      const active = deps.activeIndex.current();
      return active ? toListVersionRef(active.version) : null;
    },
    // The register the active index was built with: a job is checked as the synchronous call is now.
    currentAddressRegisterVersion: () => deps.activeIndex.current()?.addressVersion?.id ?? null,
    currentCompanyRegisterVersion: () => deps.companyRegister?.current()?.version.id ?? null,
    ...(deps.phoneDirectoryPin ? { currentPhoneDirectory: deps.phoneDirectoryPin } : {}),
    privateListVersion: async (orgId) => (await deps.lists.getActiveListVersion('customer', orgId))?.id ?? null,
    checkCallbackUrl: (url) =>
      checkCallbackUrl(url, {
        allowHosts: jobsDeps.callbackAllowHosts ?? [],
        ...(jobsDeps.callbackLookup ? { lookup: jobsDeps.callbackLookup } : {}),
      }),
    logger: deps.logger,
    clock,
    spoolDir,
    draftDir: jobsDeps.draftDir ?? join(spoolDir, '..', 'robinson-uploads'),
    // The draft's preview is checked as the job will be: test keys the fixed answers (docs/decisions.md §3),
    // live keys the version active now (the job pins the one active at start).
    checkPreview: (people, mode, options, checks) => {
      if (mode === 'test') return people.map((row) => checkJobRow(row, checks, testRowLookups(options), options));
      const active = deps.activeIndex.current();
      // No list yet: the draft still shows how its rows are read (docs/uploads.md "Drafts before a list is active").
      if (!active) return checkPeople(EMPTY_LIST, people, options).map((result) => listNotReadyResult(result, options.locale));
      // Person checks only: the rows as one batch (docs/matching.md "Speed of the check path": checkPeople).
      if (!checks.companies && !checks.phones) return checkPeople(active.index, people, options);
      return people.map((row) => checkJobRow(row, checks, previewLookups(deps, active.index, options), options));
    },
    ...(jobsDeps.chunkRows ? { chunkRows: jobsDeps.chunkRows } : {}),
    ...(jobsDeps.maxAppendBytes ? { maxAppendBytes: jobsDeps.maxAppendBytes } : {}),
    ...(jobsDeps.prices ? { prices: jobsDeps.prices } : {}),
  });
  return {
    jobs: jobsDeps.jobs,
    ingest,
    spoolDir,
    events: jobsDeps.events,
    maxBodyBytes: jobsDeps.maxBodyBytes ?? DEFAULT_JOB_BODY_LIMIT,
    maxUploadBytes: jobsDeps.maxUploadBytes ?? MAX_UPLOAD_BYTES,
    overlapIntake: jobsDeps.overlapIntake ?? true,
    clock,
    quotas,
    cursors: jobsDeps.cursors,
  };
}

/**
 * A live draft's preview rows with company or phone checks: the active company register, and the
 * imported phone directory when that is the directory in use. The preview never calls the phone
 * provider's API (a draft is not billed and may never start): its numbers show as not found
 * until the job runs (docs/companies.md "Jobs").
 */
function previewLookups(deps: ApiDeps, index: ListIndex, options: CheckOptions): RowLookups {
  const register = deps.companyRegister?.current() ?? null;
  const pin = deps.phoneDirectoryPin?.();
  const phones = pin && !pin.provider ? deps.phoneRegister?.current()?.index ?? null : null;
  return {
    checkPerson: (person) => checkPerson(index, person, options),
    findCompany: (input) => (register ? findCompany(register.index, input) : null),
    companySyncedAt: register?.version.created_at ?? null,
    phoneEntry: (phone) => {
      const number = normalisePhone(phone);
      return number === null || phones === null ? null : phones.get(number) ?? null;
    },
  };
}

/** The list a preview reads rows against while no list version is active: how they are read, nothing more. */
const EMPTY_LIST = buildListIndex([]);

/**
 * The limiter, kept in step with the other API processes when `deps.rateSharing` is set: every
 * request let through is counted for them, their counts are taken from this process's buckets
 * (rate-limiter.ts createRateSharing). Stopped with the app.
 */
function sharedAcrossProcesses(app: FastifyInstance, limiter: RateLimiter, deps: ApiDeps, logger: Logger): RateLimiter {
  if (!deps.rateSharing) return limiter;
  const sharing = createRateSharing({
    limiter, store: deps.rateSharing.store, process: deps.rateSharing.process, intervalMs: deps.rateSharing.intervalMs,
    burst: deps.config.RATE_LIMIT_BURST,
    now: () => Date.now(),
    onError: (error) => logger.warn(errorFields(error), 'rate_limit.sync_failed'),
  });
  app.addHook('onClose', async () => sharing.stop());
  return {
    take(key) {
      const decision = limiter.take(key);
      if (decision.allowed) sharing.allowed(key);
      return decision;
    },
    consumedElsewhere: (key, tokens) => limiter.consumedElsewhere(key, tokens),
  };
}
