import { z } from 'zod';
import { ColumnMappingSchema } from './check-job.ts';
import { MAPPING_CHANNELS } from '../../domain/saved-mapping.ts';
import { named } from './registry.ts';

const ChannelsSchema = z.array(z.enum(MAPPING_CHANNELS)).min(1).max(MAPPING_CHANNELS.length)
  .describe('Only files of these channels get it (upload: the page and the API; sftp; email; connector); absent or null: every channel of the organisation');

/**
 * An organisation's saved column mappings (docs/web.md "Saved column mappings"): the mapping a
 * person confirmed for a file, applied to a later upload with the same header row.
 */
export const SavedColumnMappingSchema = named('SavedColumnMapping', z.strictObject({
  id: z.uuid(),
  name: z.string(),
  columns: z.array(z.string()).describe('The header row it was saved for; a file matches when its cells are the same after case and white-space folding'),
  column_mapping: ColumnMappingSchema,
  channels: ChannelsSchema.nullable(),
  created_at: z.string(),
}), 'A column mapping saved for the organisation.');

export const SavedColumnMappingListSchema = named('SavedColumnMappingList', z.strictObject({ data: z.array(SavedColumnMappingSchema) }));

export const SaveColumnMappingRequestSchema = named('SaveColumnMappingRequest', z.strictObject({
  name: z.string().trim().min(1).max(80).describe('What the person calls it, e.g. "CRM export"'),
  job_id: z.uuid().describe('The draft (or job) whose header row the mapping is for'),
  column_mapping: ColumnMappingSchema,
  channels: ChannelsSchema.nullable().optional(),
}));

export const ListColumnMappingsQuerySchema = z.strictObject({
  job_id: z.uuid().optional().describe('Only the mapping whose header row matches this job\'s file and that applies to its channel (none or one)'),
});
