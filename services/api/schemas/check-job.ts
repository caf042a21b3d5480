import { z } from 'zod';
import { MAX_ROWS_PER_JOB } from '../../domain/check-job.ts';
import { boundedString, named } from './registry.ts';
import { MatchPolicySchema } from './enums.ts';
import { CheckResultSchema } from './check-result.ts';
import { ListVersionRefSchema } from './list-version-ref.ts';
import { JobPersonInputSchema } from './person-input.ts';

/** docs/contract.md "Limits": people per JSON POST /v2/check-jobs. */
export const MAX_PEOPLE_PER_JOB = MAX_ROWS_PER_JOB;
/** docs/decisions.md §10. */
export const MAX_RETENTION_DAYS = 90;

const timestamp = () => z.iso.datetime({ offset: true });

export const LevelCountsSchema = named(
  'LevelCounts',
  z.strictObject({
    '0': z.int().min(0),
    '1': z.int().min(0),
    '2': z.int().min(0),
    '3': z.int().min(0),
    '4': z.int().min(0),
    '5': z.int().min(0),
    unread: z.int().min(0).describe('Rows with no level: an unreadable address or no name'),
  }),
  'Rows per final match level; every key is always present.',
);

const column = z.union([z.int().min(0), boundedString()]);

export const ColumnMappingSchema = named(
  'ColumnMapping',
  z.strictObject({
    header_row: z.int().min(-1).optional()
      .describe('0-based row of the headers among the non-blank rows (default 0); -1: the file has no header row'),
    name: column.optional(),
    first_name: column.optional(),
    last_name: column.optional(),
    address: column.optional(),
    street: column.optional(),
    house_number: column.optional(),
    floor: column.optional(),
    door: column.optional(),
    postal_code: column.optional(),
    city: column.optional(),
    phone: column.optional(),
    cvr: column.optional(),
    company_name: column.optional(),
    external_id: column.optional(),
  }),
  'Service field → 0-based column index or header name.',
);

export const CheckJobOptionsSchema = named(
  'CheckJobOptions',
  z.strictObject({
    check_people: z.boolean().optional().describe('Default true'),
    check_companies: z.boolean().optional().describe('Default false'),
    check_phones: z.boolean().optional().describe('Default false'),
    policy: MatchPolicySchema.optional(),
    use_private_list: z.boolean().optional().describe('Default false'),
    stop_level: z.int().min(1).max(5).optional().describe("Default the organisation's stop line"),
    retention_days: z.int().min(1).max(MAX_RETENTION_DAYS).optional()
      .describe("Days names and addresses are kept (docs/decisions.md §10); default the organisation's"),
  }),
);

export const JobPriceSchema = named(
  'JobPrice',
  z.strictObject({
    product: z.enum(['list_small', 'list_large', 'custom']),
    amount_cents: z.int().min(0),
    currency: z.string(),
  }),
);

export const CallbackStateSchema = named(
  'CallbackState',
  z.strictObject({
    delivery_id: z.string().describe('Service-Delivery header: the same on every retry'),
    event: z.enum(['check_job.completed', 'check_job.failed']).optional(),
    state: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.int().min(0),
    last_status: z.int().nullable().describe('Last HTTP status received; null when the last attempt got no answer'),
    last_error: z.string().nullable().optional(),
    last_attempt_at: timestamp().nullable(),
    next_attempt_at: timestamp().nullable().optional(),
    delivered_at: timestamp().nullable().optional(),
  }),
  'Delivery of the completion callback (docs/decisions.md §9).',
);

export const MonitorChangesSchema = named(
  'MonitorChanges',
  z.strictObject({
    newly_blocked: z.int().min(0).describe('Contacts blocked now that were not blocked at the last check (or were never checked)'),
    released: z.int().min(0).describe('Contacts blocked at the last check that are not blocked now'),
    changed_level: z.int().min(0).describe('Contacts on the same side of blocked whose match level changed'),
  }),
  "Contacts per change since the monitor's last check; each result of the job carries its own `change`.",
);

export const MonitorJobSchema = named(
  'MonitorJob',
  z.strictObject({
    id: z.uuid().describe('The monitor re-checked'),
    previous_job_id: z.uuid().nullable().describe("The monitor's last completed check this one compares against; null: the first"),
    changes: MonitorChangesSchema.nullable().describe('Set when the job is done'),
  }),
);

export const MappingWarningSchema = named(
  'MappingWarning',
  z.strictObject({
    code: z.enum(['no_name_column', 'no_address_column', 'mostly_unreadable', 'no_phone_column', 'no_company_column'])
      .describe('no_name_column / no_address_column: no column read as the name / address; mostly_unreadable: more than half of ' +
        'the first rows have no readable address or no name; no_phone_column / no_company_column: phone / company checks ' +
        'chosen without such a column'),
    rows: z.strictObject({ unreadable: z.int().min(0), of: z.int().min(0) }).optional()
      .describe('mostly_unreadable: unreadable rows among the first rows looked at'),
    messages: z.strictObject({ da: z.string(), en: z.string() }).describe('The warning in words, Danish and English'),
  }),
  "What the draft's mapping would get wrong. A draft with warnings starts only with `confirm_warnings: true`.",
);

export const CheckJobStatusSchema = z.enum(['draft', 'awaiting_payment', 'queued', 'running', 'done', 'failed', 'deleted']);

export const CheckJobSchema = named(
  'CheckJob',
  z.strictObject({
    id: z.uuid(),
    source: z.enum(['upload', 'email', 'sftp', 'api', 'monitor', 'connector']),
    status: CheckJobStatusSchema,
    filename: z.string().nullable(),
    file_format: z.enum(['xlsx', 'xls', 'csv']).nullable(),
    row_count: z.int().min(0),
    processed_count: z.int().min(0),
    allowed_count: z.int().min(0),
    blocked_count: z.int().min(0),
    manual_count: z.int().min(0),
    level_counts: LevelCountsSchema,
    columns: z.array(z.string()).describe('Detected headers (draft only)'),
    column_mapping: ColumnMappingSchema.nullable(),
    options: CheckJobOptionsSchema,
    preview: z.array(z.strictObject({ cells: z.array(z.string().nullable()), result: CheckResultSchema }))
      .describe('First 20 rows with their results (draft and done)'),
    price: JobPriceSchema.nullable(),
    list_version: ListVersionRefSchema.nullable().describe('The list version pinned when the job was queued'),
    certificate_token: z.string().nullable(),
    error: z.string().nullable(),
    delete_after: timestamp().nullable(),
    created_at: timestamp(),
    finished_at: timestamp().nullable(),
    external_ref: z.string().nullable().describe('As given at creation'),
    callback_url: z.string().nullable(),
    callback: CallbackStateSchema.nullable(),
    monitor: MonitorJobSchema.optional().describe('Only on jobs with source monitor'),
    warnings: z.array(MappingWarningSchema)
      .describe('Drafts only (else empty): what the mapping would get wrong; starting needs `confirm_warnings: true`'),
  }),
  'An asynchronous check job. The completion callback body is this object, as GET answers it.',
);
export type CheckJob = z.infer<typeof CheckJobSchema>;

/** The fields of a JSON check-job body besides `people` (also the NDJSON query string). */
export const CheckJobFieldsSchema = z.strictObject({
  callback_url: boundedString().optional().describe('https only; private and loopback addresses are refused'),
  external_ref: boundedString().optional(),
  policy: MatchPolicySchema.optional(),
  options: CheckJobOptionsSchema.optional(),
});
export type CheckJobFields = z.infer<typeof CheckJobFieldsSchema>;

export const CreateCheckJobRequestSchema = named(
  'CreateCheckJobRequest',
  CheckJobFieldsSchema.extend({
    people: z.array(JobPersonInputSchema).min(1).max(MAX_PEOPLE_PER_JOB),
  }),
  'Read as a stream: the body is never held in memory whole. `application/x-ndjson` (one JobPersonInput per line, ' +
    'the other fields in the query string) is accepted too.',
);

export const CheckJobResultsPageSchema = named(
  'CheckJobResultsPage',
  z.strictObject({
    list_version: ListVersionRefSchema.describe('The list version every result was checked against'),
    results: z.array(CheckResultSchema).describe('In input order'),
    next_cursor: z.string().nullable().describe('Null when no further page'),
  }),
);
export type CheckJobResultsPage = z.infer<typeof CheckJobResultsPageSchema>;
