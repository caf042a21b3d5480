import type { LevelCounts } from './check-job.ts';
import type { ListVersionRef } from './types.ts';

/**
 * The claims a job certificate signs (docs/decisions.md §10): what was checked, against which list, with
 * which outcome; no personal data. `iat` (seconds) makes the payload a valid JWT claims set too, so
 * JOSE tooling shows the issue time.
 */
export interface CertificateClaims {
  job_id: string;
  org_id: string;
  list_version: ListVersionRef;
  row_count: number;
  counts: { allowed: number; blocked: number; manual: number; level_counts: LevelCounts };
  /** SHA-256 (hex) of the input as submitted: the customer can hash their own file and compare. */
  input_sha256: string;
  finished_at: string;
  iat: number;
}

export interface CertifiableJob {
  id: string;
  org_id: string;
  list_version: ListVersionRef | null;
  row_count: number;
  allowed_count: number;
  blocked_count: number;
  manual_count: number;
  level_counts: LevelCounts;
  input_sha256: string | null;
}

/** The claims of a job finished at `finishedAt`; null when it lacks what a certificate must name. */
export function certificateClaims(job: CertifiableJob, finishedAt: string): CertificateClaims | null {
  if (!job.list_version || !job.input_sha256) return null;
  return {
    job_id: job.id,
    org_id: job.org_id,
    list_version: { ...job.list_version },
    row_count: job.row_count,
    counts: {
      allowed: job.allowed_count,
      blocked: job.blocked_count,
      manual: job.manual_count,
      level_counts: { ...job.level_counts },
    },
    input_sha256: job.input_sha256,
    finished_at: finishedAt,
    iat: Math.floor(Date.parse(finishedAt) / 1000),
  };
}
