import type { CheckResult, MatchPolicy } from './types.ts';

/**
 * The asynchronous check job's value types (docs/contract.md "CheckJob", "LevelCounts", "ColumnMapping",
 * "CheckJobOptions"; docs/decisions.md §7-§10). Pure types, shared by the API, projection and stores.
 */

/**
 * docs/contract.md "Limits", docs/decisions.md §14: at most this many people (rows, contacts) per job, file or
 * monitor. Every rule and every message that names the limit takes it from here.
 */
export const MAX_ROWS_PER_JOB = 1_000_000;

export type JobStatus = 'draft' | 'awaiting_payment' | 'queued' | 'running' | 'done' | 'failed' | 'deleted';
export type JobSource = 'upload' | 'email' | 'sftp' | 'api' | 'monitor' | 'connector';
export type FileFormat = 'xlsx' | 'xls' | 'csv';

/** Rows per final match level; every key is always present. `unread`: no level (null). */
export interface LevelCounts {
  '0': number;
  '1': number;
  '2': number;
  '3': number;
  '4': number;
  '5': number;
  unread: number;
}

export interface CheckJobOptions {
  check_people?: boolean;
  check_companies?: boolean;
  check_phones?: boolean;
  policy?: MatchPolicy;
  use_private_list?: boolean;
  stop_level?: number;
  /** docs/decisions.md §10: overrides the organisation's retention for this job (1..90). */
  retention_days?: number;
}

/** Service field → 0-based column index or header name; `header_row` says where headers are. */
export type ColumnMapping = { header_row?: number } & Partial<Record<MappedField, number | string>>;
export type MappedField =
  | 'name' | 'first_name' | 'last_name' | 'address' | 'street' | 'house_number' | 'floor' | 'door'
  | 'postal_code' | 'city' | 'phone' | 'cvr' | 'company_name' | 'external_id';

export interface JobPrice {
  product: 'list_small' | 'list_large' | 'custom';
  amount_cents: number;
  currency: string;
}

export interface PreviewRow {
  cells: Array<string | null>;
  result: CheckResult;
}

/** Outcome of the completion callback (docs/decisions.md §9), shown on the job as `callback`. */
export interface CallbackOutcome {
  /** Last HTTP status received; null when the last attempt got no answer. */
  last_status: number | null;
  attempts: number;
  /** `pending` while retries remain, then `delivered` or `failed`. */
  state: 'pending' | 'delivered' | 'failed';
  last_attempt_at: string | null;
  /** Service-Delivery id: the same on every retry of one event. */
  delivery_id: string;
}

export function emptyLevelCounts(): LevelCounts {
  return { '0': 0, '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, unread: 0 };
}

/** The LevelCounts key of a match level (null → unread). */
export function levelKey(level: number | null): keyof LevelCounts {
  return level === null ? 'unread' : (String(level) as keyof LevelCounts);
}
