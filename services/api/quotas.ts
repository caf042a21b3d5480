/**
 * Per-organisation quotas of the work the check-job and monitor endpoints do (docs/api-decisions.md
 * "Quotas"): open drafts, rows waiting to be checked, uploads and draft file reads at once,
 * previews per minute, monitor contact uploads per hour. Each refusal is 429 `rate_limited` with Retry-After and `details.reason` naming the
 * quota, before anything is created: a refused request changes nothing.
 *
 * Drafts and waiting rows are counted from the job store, so they hold across API processes; the
 * preview rate is a token bucket of the shared rate limiter (kept in step across processes like
 * the key's rate); uploads at once are counted by each process, which is what they cost (memory
 * and a parse slot of that process).
 */
import type { Config } from '../platform/config.ts';
import { loadConfig } from '../platform/config.ts';
import type { JobRecord, JobStore } from '../platform/store/jobs-port.ts';
import { ApiError } from './errors.ts';
import type { RateLimiter } from './rate-limiter.ts';

export type QuotaConfigName =
  | 'QUOTA_OPEN_DRAFTS' | 'QUOTA_QUEUED_ROWS_LIVE' | 'QUOTA_QUEUED_ROWS_TEST' | 'QUOTA_PARALLEL_UPLOADS'
  | 'QUOTA_PREVIEWS_PER_MINUTE' | 'QUOTA_PREVIEW_BURST' | 'QUOTA_MONITOR_UPLOADS_PER_HOUR' | 'QUOTA_MONITOR_UPLOAD_BURST';

export interface QuotaLimits {
  openDrafts: number;
  queuedRows: { live: number; test: number };
  parallelUploads: number;
  previewsPerMinute: number;
  previewBurst: number;
  monitorUploadsPerHour: number;
  monitorUploadBurst: number;
}

/** The configuration's quotas, else the configuration's defaults. */
export function quotaLimitsOf(config: Partial<Pick<Config, QuotaConfigName>>): QuotaLimits {
  const defaults = loadConfig({});
  return {
    openDrafts: config.QUOTA_OPEN_DRAFTS ?? defaults.QUOTA_OPEN_DRAFTS,
    queuedRows: { live: config.QUOTA_QUEUED_ROWS_LIVE ?? defaults.QUOTA_QUEUED_ROWS_LIVE, test: config.QUOTA_QUEUED_ROWS_TEST ?? defaults.QUOTA_QUEUED_ROWS_TEST },
    parallelUploads: config.QUOTA_PARALLEL_UPLOADS ?? defaults.QUOTA_PARALLEL_UPLOADS,
    previewsPerMinute: config.QUOTA_PREVIEWS_PER_MINUTE ?? defaults.QUOTA_PREVIEWS_PER_MINUTE,
    previewBurst: config.QUOTA_PREVIEW_BURST ?? defaults.QUOTA_PREVIEW_BURST,
    monitorUploadsPerHour: config.QUOTA_MONITOR_UPLOADS_PER_HOUR ?? defaults.QUOTA_MONITOR_UPLOADS_PER_HOUR,
    monitorUploadBurst: config.QUOTA_MONITOR_UPLOAD_BURST ?? defaults.QUOTA_MONITOR_UPLOAD_BURST,
  };
}

export type QuotaReason = 'open_drafts' | 'queued_rows' | 'parallel_uploads' | 'previews' | 'monitor_uploads';

/**
 * How long a refused caller is asked to wait. Drafts and rows leave when the customer starts or
 * deletes drafts, or when the matcher gets through the rows: a minute is a fair first look. An
 * upload at once is over within seconds in the usual case.
 */
const RETRY_AFTER_SECONDS: Record<Exclude<QuotaReason, 'previews' | 'monitor_uploads'>, number> = { open_drafts: 60, queued_rows: 60, parallel_uploads: 5 };

export function quotaReached(reason: QuotaReason, limit: number, retryAfterSeconds: number): ApiError {
  return new ApiError({
    code: 'rate_limited', messageKey: `quota_${reason}`, details: { reason, limit },
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/** Statuses whose rows still wait for the matcher (or for a payment that lets them in). */
const WAITING_STATUSES = ['awaiting_payment', 'queued', 'running'] as const satisfies readonly JobRecord['status'][];

/** The store lists at most this many jobs per look; more open jobs than this are beyond every quota anyway. */
const LIST_LIMIT = 10_000;

/** The preview buckets live in the shared limiter under this prefix, apart from the keys' own. */
const PREVIEW_KEY_PREFIX = 'preview:';
/** The monitor upload buckets likewise, under theirs. */
const MONITOR_UPLOAD_KEY_PREFIX = 'monitor-upload:';

export interface Scope {
  org_id: string;
  mode: 'live' | 'test';
}

export interface Quotas {
  readonly limits: QuotaLimits;
  /**
   * Runs `work` as one of the organisation's uploads or draft file reads in progress in this
   * process; 429 `parallel_uploads` at once when that many are running.
   */
  withFileSlot<T>(orgId: string, work: () => Promise<T>): Promise<T>;
  /** Takes one preview from the organisation's allowance; 429 `previews` when it is spent. */
  takePreview(orgId: string): void;
  /**
   * Takes one monitor upload (a monitor created, or its contacts replaced) from the organisation's
   * allowance; 429 `monitor_uploads` when it is spent.
   */
  takeMonitorUpload(orgId: string): void;
  /** 429 `open_drafts` when the organisation has as many drafts (in this mode) as allowed. */
  requireDraftRoom(scope: Scope): Promise<void>;
  /**
   * 429 `queued_rows` when `rows` more would take the organisation's rows waiting to be checked
   * (in this mode) over its quota. `rows` = 1 asks whether there is room at all (before a body
   * whose size is not known yet is read).
   */
  requireRowRoom(scope: Scope, rows: number): Promise<void>;
}

export interface QuotaDeps {
  limits: QuotaLimits;
  jobs: Pick<JobStore, 'listRecentJobs'>;
  /** The shared limiter (withQuotaBuckets): preview and monitor upload buckets are its keys with their prefixes. */
  limiter: RateLimiter;
}

export function createQuotas(deps: QuotaDeps): Quotas {
  const { limits, jobs, limiter } = deps;
  const filesInProgress = new Map<string, number>();

  async function waitingRows(scope: Scope): Promise<number> {
    let rows = 0;
    for (const status of WAITING_STATUSES) {
      for (const job of await jobs.listRecentJobs(scope, LIST_LIMIT, { status })) rows += Math.max(0, job.row_count - job.processed_count);
    }
    return rows;
  }

  return {
    limits,
    async withFileSlot(orgId, work) {
      const running = filesInProgress.get(orgId) ?? 0;
      if (running >= limits.parallelUploads) throw quotaReached('parallel_uploads', limits.parallelUploads, RETRY_AFTER_SECONDS.parallel_uploads);
      filesInProgress.set(orgId, running + 1);
      try {
        return await work();
      } finally {
        const left = (filesInProgress.get(orgId) ?? 1) - 1;
        if (left > 0) filesInProgress.set(orgId, left);
        else filesInProgress.delete(orgId);
      }
    },
    takePreview(orgId) {
      const decision = limiter.take(`${PREVIEW_KEY_PREFIX}${orgId}`);
      if (!decision.allowed) throw quotaReached('previews', limits.previewsPerMinute, decision.retryAfterSeconds);
    },
    takeMonitorUpload(orgId) {
      const decision = limiter.take(`${MONITOR_UPLOAD_KEY_PREFIX}${orgId}`);
      if (!decision.allowed) throw quotaReached('monitor_uploads', limits.monitorUploadsPerHour, decision.retryAfterSeconds);
    },
    async requireDraftRoom(scope) {
      const drafts = await jobs.listRecentJobs(scope, Math.min(LIST_LIMIT, limits.openDrafts), { status: 'draft' });
      if (drafts.length >= limits.openDrafts) throw quotaReached('open_drafts', limits.openDrafts, RETRY_AFTER_SECONDS.open_drafts);
    },
    async requireRowRoom(scope, rows) {
      const limit = limits.queuedRows[scope.mode];
      if ((await waitingRows(scope)) + rows > limit) throw quotaReached('queued_rows', limit, RETRY_AFTER_SECONDS.queued_rows);
    },
  };
}

/**
 * One limiter for the keys' rate and the organisations' preview and monitor upload allowances:
 * keys with the preview prefix go to `previews`, with the monitor upload prefix to
 * `monitorUploads`, all others to `keys`. One limiter, so the sharing across API processes
 * (rate-limiter.ts createRateSharing) carries them all without a second exchange.
 */
export function withQuotaBuckets(keys: RateLimiter, quotas: { previews: RateLimiter; monitorUploads: RateLimiter }): RateLimiter {
  const of = (key: string) => (key.startsWith(PREVIEW_KEY_PREFIX) ? quotas.previews : key.startsWith(MONITOR_UPLOAD_KEY_PREFIX) ? quotas.monitorUploads : keys);
  return {
    take: (key) => of(key).take(key),
    consumedElsewhere: (key, tokens) => of(key).consumedElsewhere(key, tokens),
  };
}
