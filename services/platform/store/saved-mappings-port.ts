import type { ColumnMapping } from '../../domain/check-job.ts';
import type { MappingChannel } from '../../domain/saved-mapping.ts';

/**
 * An organisation's saved column mappings (docs/web.md "Saved column mappings"): the mapping a
 * person confirmed for a file, kept under a name, applied to a later upload whose header row
 * matches (services/domain/saved-mapping.ts).
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - A write is durable and visible to every later read (of any process) once its promise resolves.
 * - One mapping per organisation and header row: `save` replaces the organisation's mapping with
 *   the same `header_key` (it keeps the old id, takes the new name and mapping).
 * - `list` is the organisation's mappings, oldest first; a removed one is gone from it.
 * Does not promise: atomic read-modify-write between processes (two people saving the same
 * header row at once: one of the two is kept, both are valid).
 * The header cells are a file's column names, not a contact's data; nothing else is stored.
 */
export interface SavedMapping {
  id: string;
  org_id: string;
  name: string;
  /** The header cells as the file had them (shown in the page). */
  columns: string[];
  /** headerKey(columns): what a later file's header row is compared by. */
  header_key: string;
  column_mapping: ColumnMapping;
  /**
   * The channels it applies to (docs/inbound.md "Saved column mappings on every channel"): absent
   * or null, every channel of the organisation (upload, SFTP, email, connectors).
   */
  channels?: MappingChannel[] | null;
  created_at: string;
}

export interface SavedMappingStore {
  /** Stores the mapping, replacing the organisation's one with the same header_key; returns the stored one. */
  saveMapping(mapping: SavedMapping): Promise<SavedMapping>;
  listMappings(orgId: string): Promise<SavedMapping[]>;
  /** False when the organisation has no such mapping. */
  removeMapping(orgId: string, id: string): Promise<boolean>;
}
