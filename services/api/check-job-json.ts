import { draftWarnings, mappingWarningText } from '../ingest/index.ts';
import type { JobRecord } from '../platform/store/jobs-port.ts';
import { CheckJobSchema, type CheckJob } from './schemas/check-job.ts';

/**
 * The CheckJob of a stored job record: the one place that decides what a job looks like from
 * outside. GET /v2/check-jobs/{id}, POST's 202 and the completion callback body (docs/contract.md Events
 * rule 1: "identical to the response of GET") all come from here. Internal fields (org, mode,
 * key hash, input hash) never leave.
 */
export function toCheckJobJson(record: JobRecord): CheckJob {
  const callback = record.callback as (JobRecord['callback'] & Record<string, unknown>) | null;
  return {
    id: record.id,
    source: record.source,
    status: record.status,
    filename: record.filename,
    file_format: record.file_format,
    row_count: record.row_count,
    processed_count: record.processed_count,
    allowed_count: record.allowed_count,
    blocked_count: record.blocked_count,
    manual_count: record.manual_count,
    level_counts: { ...record.level_counts },
    columns: [...record.columns],
    column_mapping: record.column_mapping,
    options: { ...record.options },
    preview: record.preview,
    price: record.price,
    list_version: record.list_version,
    certificate_token: record.certificate_token,
    error: record.error,
    delete_after: record.delete_after,
    created_at: record.created_at,
    finished_at: record.finished_at,
    external_ref: record.external_ref,
    callback_url: record.callback_url,
    callback: callback === null ? null : pickCallback(callback),
    ...(record.monitor
      ? { monitor: { id: record.monitor.id, previous_job_id: record.monitor.previous_job_id, changes: record.monitor.changes ? { ...record.monitor.changes } : null } }
      : {}),
    warnings: draftWarnings(record).map((w) => ({
      code: w.code, ...(w.rows ? { rows: { ...w.rows } } : {}), messages: { da: mappingWarningText(w, 'da'), en: mappingWarningText(w, 'en') },
    })),
  };
}

/** The stored delivery state may carry more than the contract shows; only known fields go out. */
function pickCallback(state: Record<string, unknown>): CheckJob['callback'] {
  const known = [
    'delivery_id', 'event', 'state', 'attempts', 'last_status', 'last_error', 'last_attempt_at', 'next_attempt_at', 'delivered_at',
  ];
  return Object.fromEntries(known.filter((k) => state[k] !== undefined).map((k) => [k, state[k]])) as CheckJob['callback'];
}

/** The CheckJob JSON text of a record, checked against the schema: the exact bytes GET sends. */
export function renderCheckJob(record: JobRecord): string {
  return JSON.stringify(CheckJobSchema.parse(toCheckJobJson(record)));
}
