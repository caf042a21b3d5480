import type { ColumnMapping } from '../../domain/check-job.ts';
import { savedMappingFor, type MappingChannel } from '../../domain/saved-mapping.ts';
import type { SavedMappingStore } from '../../platform/store/saved-mappings-port.ts';
import type { Cells } from '../uploads/table-summary.ts';

/** What summariseTable asks, before guessing, for a file's first rows: the saved mapping of that header row, or null. */
export type SavedMappingChoice = (firstRows: Cells[]) => ColumnMapping | null;

/**
 * The saved-mapping step of the order every inbound channel follows (docs/inbound.md "Saved column
 * mappings on every channel"): the channel's own mapping (a folder's or connector's) first, else
 * the organisation's saved mapping whose header row is the file's and which applies to `channel`,
 * else the guess. So the store is read only when the channel has no mapping of its own; without a
 * store (a deployment that has none) the file is guessed. Check jobs (`ingest-file-jobs.ts`) and
 * monitor feeds (`monitor-contacts.ts`, `connector/monitor-feed.ts`) share it.
 */
export async function savedMappingChoice(
  store: Pick<SavedMappingStore, 'listMappings'> | undefined, orgId: string, channel: MappingChannel, own: ColumnMapping | null,
): Promise<SavedMappingChoice | undefined> {
  if (own !== null || !store) return undefined;
  const saved = await store.listMappings(orgId);
  return (firstRows) => savedMappingFor(saved, firstRows, channel)?.column_mapping ?? null;
}
