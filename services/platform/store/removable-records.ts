/**
 * Drop folders and connectors are the same kind of record (docs/architecture.md "Duplicates left
 * on purpose", D13/D41): an organisation's channel, listed until removed (a removal keeps the
 * record, marked with `removed_at`, so a job can still name where it came from), with one status
 * record beside it that its channel process overwrites. Each store adapter keeps them in one
 * place of its own (embedded/removable-records.ts, clickhouse/removable-records.ts); the ports
 * (connectors-port.ts, inbound-port.ts) name the operations for their own record.
 */
export interface RemovableRecord {
  id: string;
  org_id: string;
  created_at: string;
  removed_at: string | null;
}

export interface RemovableRecords<T extends RemovableRecord, S> {
  create(record: T): Promise<void>;
  get(id: string): Promise<T | null>;
  /** Not removed ones, oldest first; every organisation's when `orgId` is undefined. */
  list(orgId?: string): Promise<T[]>;
  /** Marks it removed at `at` (a second removal keeps the first time); false when there is none. */
  remove(id: string, at: string): Promise<boolean>;
  recordStatus(id: string, status: S): Promise<void>;
  getStatus(id: string): Promise<S | null>;
}
