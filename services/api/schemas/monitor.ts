import { z } from 'zod';
import { MAX_MONITOR_CONTACTS, MAX_MONITOR_RETENTION_DAYS } from '../../ingest/monitors/contacts.ts';
import { boundedString, named } from './registry.ts';
import { MatchPolicySchema } from './enums.ts';
import { PersonInputSchema } from './person-input.ts';

const timestamp = () => z.iso.datetime({ offset: true });

/** The fields of a monitor besides its contacts (JSON body, or the query string of NDJSON). */
export const MonitorFieldsSchema = z.strictObject({
  callback_url: boundedString().optional().describe('https only; private and loopback addresses are refused. Each re-check job is POSTed here'),
  external_ref: boundedString().optional().describe('Your reference, echoed on the monitor and its jobs'),
  policy: MatchPolicySchema.optional().describe('Match policy of every re-check (default standard)'),
  stop_level: z.int().min(1).max(5).optional().describe("Stop line of every re-check (default the organisation's)"),
  use_private_list: z.boolean().optional().describe(
    "Default false. Every re-check also applies the organisation's own active private list (a person on it is blocked); " +
      '422 when the organisation has no active private list. A new version of the private list is a re-check too.',
  ),
  retention_days: z.int().min(1).max(MAX_MONITOR_RETENTION_DAYS).optional()
    .describe('Days the contacts are kept after their last replacement (default: the organisation retention, 30 unless set; at most 90)'),
});
export type MonitorFields = z.infer<typeof MonitorFieldsSchema>;

export const MonitorQuerySchema = z.strictObject({
  callback_url: boundedString().optional(),
  external_ref: boundedString().optional(),
  policy: MatchPolicySchema.optional(),
  stop_level: z.coerce.number().int().min(1).max(5).optional(),
  retention_days: z.coerce.number().int().min(1).max(MAX_MONITOR_RETENTION_DAYS).optional(),
  use_private_list: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
});

export const CreateMonitorRequestSchema = named(
  'CreateMonitorRequest',
  MonitorFieldsSchema.extend({
    people: z.array(PersonInputSchema).min(1).max(MAX_MONITOR_CONTACTS).describe('The contacts to monitor'),
  }),
  'Read as a stream. `application/x-ndjson` (one PersonInput per line, the other fields in the query string) and ' +
    '`multipart/form-data` (a spreadsheet or CSV in `file`, as for check jobs) are accepted too.',
);

export const ReplaceMonitorContactsRequestSchema = named(
  'ReplaceMonitorContactsRequest',
  z.strictObject({ people: z.array(PersonInputSchema).min(1).max(MAX_MONITOR_CONTACTS).describe('The new contacts, replacing all') }),
);

export const MonitorCheckSchema = named(
  'MonitorCheck',
  z.strictObject({
    job_id: z.uuid().describe('The re-check job (source monitor): its results carry each contact\'s change'),
    list_version_id: z.uuid(),
    checked_at: timestamp().nullable().describe('When the job was done; null while it runs'),
  }),
);

export const MonitorSchema = named(
  'Monitor',
  z.strictObject({
    id: z.uuid(),
    status: z.enum(['active', 'deleted']),
    contact_count: z.int().min(0),
    external_ref: z.string().nullable(),
    callback_url: z.string().nullable(),
    policy: MatchPolicySchema,
    stop_level: z.int().min(1).max(5),
    use_private_list: z.boolean(),
    retention_days: z.int().min(1),
    delete_after: timestamp().describe('Contacts are deleted then unless replaced before'),
    last_check: MonitorCheckSchema.nullable().describe('The last completed check'),
    pending_check: MonitorCheckSchema.nullable().describe('The check running now'),
    created_at: timestamp(),
    updated_at: timestamp(),
  }),
  'A stored contact list, re-checked as a job with source `monitor` whenever a new list version is activated ' +
    '(docs/decisions.md §16); each re-check reports what changed since the last one.',
);
export type Monitor = z.infer<typeof MonitorSchema>;

export const MonitorListSchema = named(
  'MonitorList',
  z.strictObject({
    monitors: z.array(MonitorSchema),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null when none'),
  }),
);

export const MonitorListQuerySchema = z.strictObject({
  cursor: z.string().max(200).optional().describe('next_cursor of the page before'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('Monitors per page, at most 1,000 (default 100)'),
});
