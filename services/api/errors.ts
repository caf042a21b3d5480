import type { ErrorCode } from './schemas/error.ts';
import type { MessageKey } from './messages.ts';

/** A validation problem, already in the contract's shape (messages localised later). */
export interface IssueRef {
  path: string;
  /** Produces the message in a locale; never includes the offending value. */
  describe: (locale: 'da' | 'en') => string;
}

/** docs/decisions.md §5: the one table of status codes per error code. */
const STATUS_OF: Record<ErrorCode, number> = {
  invalid_request: 422,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  rate_limited: 429,
  list_not_ready: 503,
  service_unavailable: 503,
  internal_error: 500,
};

/**
 * An error the API answers on purpose: a code of the contract, a message key (localised by the
 * error handler), optional details and headers. Anything else thrown becomes 500 internal_error.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly messageKey: MessageKey;
  readonly details: Record<string, unknown> | undefined;
  readonly issues: IssueRef[] | undefined;
  readonly headers: Record<string, string>;
  /** A message more precise than the catalogue's (a file refusal's own text); never a value. */
  readonly describe: ((locale: 'da' | 'en') => string) | undefined;

  constructor(options: {
    code: ErrorCode;
    messageKey: MessageKey;
    /** Defaults to the table; 400 and 413 are `invalid_request` too. */
    status?: number;
    details?: Record<string, unknown>;
    issues?: IssueRef[];
    headers?: Record<string, string>;
    describe?: (locale: 'da' | 'en') => string;
  }) {
    super(options.messageKey);
    this.name = 'ApiError';
    this.status = options.status ?? STATUS_OF[options.code];
    this.code = options.code;
    this.messageKey = options.messageKey;
    this.details = options.details;
    this.issues = options.issues;
    this.headers = options.headers ?? {};
    this.describe = options.describe;
  }
}

/** 404: no such resource for this organisation (also when it belongs to another). */
export const notFound = () => new ApiError({ code: 'not_found', messageKey: 'not_found' });

export const unauthorized = () =>
  new ApiError({ code: 'unauthorized', messageKey: 'unauthorized', headers: { 'WWW-Authenticate': 'Bearer' } });

export const paymentRequired = (reason: 'suspended' | 'no_api_agreement') =>
  new ApiError({ code: 'payment_required', messageKey: reason, details: { reason } });

export const rateLimited = (retryAfterSeconds: number, rateLimitHeaders: Record<string, string> = {}) =>
  new ApiError({ code: 'rate_limited', messageKey: 'rate_limited', headers: { ...rateLimitHeaders, 'Retry-After': String(retryAfterSeconds) } });

/** How long a client is asked to wait when no list version is active yet. */
const LIST_NOT_READY_RETRY_SECONDS = 30;

export const listNotReady = () =>
  new ApiError({ code: 'list_not_ready', messageKey: 'list_not_ready', headers: { 'Retry-After': String(LIST_NOT_READY_RETRY_SECONDS) } });

/** How long a client is asked to wait when the spool is full (an operator has to make room). */
const SPOOL_FULL_RETRY_SECONDS = 300;

/** No room to spool the job's rows (a full disk or quota): nothing was created; try again later. */
export const spoolFull = () =>
  new ApiError({
    code: 'service_unavailable', messageKey: 'spool_full', details: { reason: 'spool_full' },
    headers: { 'Retry-After': String(SPOOL_FULL_RETRY_SECONDS) },
  });

export const validationFailed = (issues: IssueRef[]) =>
  new ApiError({ code: 'invalid_request', messageKey: 'validation', issues });

/** docs/decisions.md §5: the organisation lacks the add-on (company or phone checks). */
export const forbidden = (addon: 'company' | 'phone') =>
  new ApiError({ code: 'forbidden', messageKey: addon === 'company' ? 'addon_company' : 'addon_phone', details: { reason: 'addon_required', addon } });

/**
 * Adding a drop folder or a connector needs the key that seals their credentials
 * (INBOUND_SECRET_KEY); an installation without it answers 403 on those routes, which stay in the
 * OpenAPI document (docs/inbound.md "In the page").
 */
export const channelAddingOff = () =>
  new ApiError({ code: 'forbidden', messageKey: 'channel_adding_off', details: { reason: 'channel_adding_off' } });

/**
 * A register a live company or phone check needs is not there: no company register or phone
 * directory imported yet, or the directory provider does not answer. 503 like a missing list
 * (the contract's `list_not_ready`), `details.reason` says which.
 */
export const registerNotReady = (reason: 'company_register_not_ready' | 'phone_directory_not_ready' | 'phone_directory_unavailable') =>
  new ApiError({
    code: 'list_not_ready', messageKey: reason, details: { reason },
    headers: { 'Retry-After': String(LIST_NOT_READY_RETRY_SECONDS) },
  });
