/**
 * Billable usage per organisation and month (docs/decisions.md §8: usage counts live jobs and live
 * checks, never test keys), kept by the projection from `usage.events` so that the admin tool can
 * read it from the stores alone.
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - `record` is idempotent on (kind, ref): the same usage event delivered twice (at-least-once
 *   delivery) counts once; durable once it resolves.
 * - `monthly` sums every recorded entry of a month (YYYY-MM, UTC) per organisation and kind, with
 *   how many entries (requests or jobs) made it; ordered by org_id, then kind.
 * Records no personal data: ids and counts only.
 */
export type UsageKind = 'person_check' | 'job_row' | 'company_check' | 'phone_check';

export interface UsageEntry {
  org_id: string;
  /** YYYY-MM (UTC) of the usage. */
  month: string;
  kind: UsageKind;
  count: number;
  /** What made it, unique per kind: the request id of a check, the job id of a job's rows. */
  ref: string;
}

export interface UsageTotal {
  org_id: string;
  kind: UsageKind;
  /** Rows or people checked. */
  count: number;
  /** Requests or jobs. */
  entries: number;
}

export interface UsageStore {
  record(entry: UsageEntry): Promise<void>;
  monthly(month: string): Promise<UsageTotal[]>;
}
