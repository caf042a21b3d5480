import type { MonitorChange, MonitorChangeCounts, MonitorVerdict } from '../../domain/monitor-change.ts';
import type { Locale, MatchPolicy } from '../../domain/types.ts';
import { PermanentError } from '../errors.ts';

/**
 * Monitors (docs/decisions.md §16, docs/monitors.md): an organisation's stored contact set, re-checked as
 * a `source: monitor` job whenever a new list version is activated, each re-check reporting what
 * changed since the last one.
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - A write is durable and visible to every later read (of any process) once its promise resolves.
 * - `getMonitor` finds a monitor only within its organisation and mode, and never a deleted one.
 * - Contacts are stored per generation in blocks (`putContactBlocks`): a replacement writes a new
 *   generation beside the old one and only then moves the record to it (`updateMonitor`), so a
 *   reader of either generation sees it whole. The adapter never looks inside `sealed`.
 * - Run rows (one per contact of a re-check job) are idempotent on (job, contact key): writing one
 *   again (a redelivered result chunk) changes nothing that `countRunChanges` or `readVerdicts`
 *   answer, as long as it carries the same values (a run's baseline never moves while it runs).
 * - A contact's last verdict is its run row of the monitor's last completed check: the history is
 *   never read, so a re-check costs in proportion to the contacts, not to the past checks.
 * - `deleteMonitor` removes every contact block and run row of the monitor and its data key before
 *   it resolves; the record stays, marked deleted, without personal data.
 *
 * - `updateMonitor` and `deleteMonitor` apply their change to the latest record atomically, also
 *   between processes: the API replacing contacts and the monitor service moving a run on at the
 *   same moment both land (a field both set holds the later one's value).
 *
 * One monitor process (the monitor service) moves runs on; the API only creates, replaces and deletes.
 */
export interface MonitorRecord {
  id: string;
  org_id: string;
  mode: 'live' | 'test';
  external_ref: string | null;
  callback_url: string | null;
  /**
   * Resolved at creation: the job options every re-check runs with. `use_private_list`: the
   * organisation's own list applies too (docs/decisions.md §16); a new version of it is a re-check as well.
   */
  options: { policy: MatchPolicy; stop_level: number; use_private_list?: boolean };
  /** Language of the result labels of its jobs. */
  locale: Locale;
  /** SHA-256 (hex) of the key that created the monitor: the callback secret of its jobs. */
  key_hash: string;
  /** Bumped by every replacement of the contacts. */
  generation: number;
  contact_count: number;
  /**
   * AES-256-GCM key (base64) of this monitor's contact blocks and of its contact keys (HMAC).
   * Internal, never rendered; null once deleted (what is left of the blocks is then unreadable).
   */
  data_key: string | null;
  retention_days: number;
  /** Contacts are deleted at this time unless replaced before (each replacement moves it on). */
  delete_after: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** The last completed check; its job's run rows are the contacts' last verdicts. */
  checked: MonitorCheck | null;
  /** The check in progress, if any. */
  run: MonitorRun | null;
}

export interface MonitorCheck {
  list_version_id: string;
  /** The private list version checked against (use_private_list); absent/null: none. */
  private_list_version_id?: string | null;
  /** The address register version the check was matched with; absent/null: none (text only). */
  address_register_version_id?: string | null;
  generation: number;
  job_id: string;
  checked_at: string;
}

export interface MonitorRun {
  job_id: string;
  list_version_id: string;
  private_list_version_id?: string | null;
  address_register_version_id?: string | null;
  generation: number;
  /** `publishing` until every row and RowsComplete are on the log (a crash in between: restart it). */
  state: 'publishing' | 'published';
  started_at: string;
}

export type MonitorPatch = Partial<Omit<MonitorRecord, 'id' | 'org_id' | 'mode' | 'created_at'>>;

/** Up to CONTACT_BLOCK_SIZE contacts: their keys in the clear (pseudonymous HMACs), people sealed. */
export interface ContactBlock {
  block: number;
  keys: string[];
  /** The block's PersonInput[] as JSON, sealed with the monitor's data key (base64). */
  sealed: string;
}

export const CONTACT_BLOCK_SIZE = 2000;

/** One contact's outcome in a re-check job (row = the contact's position in the generation). */
export interface RunRow extends MonitorVerdict {
  row: number;
  key: string;
  change: MonitorChange | null;
}

export interface MonitorStore {
  /** Throws when a monitor with this id exists. */
  createMonitor(monitor: MonitorRecord): Promise<void>;
  /** Scoped read for the API: null unless the monitor belongs to the scope and is not deleted. */
  getMonitor(scope: { org_id: string; mode: 'live' | 'test' }, id: string): Promise<MonitorRecord | null>;
  /** Unscoped read (deleted ones too) for the monitor service and the projection. */
  getMonitorById(id: string): Promise<MonitorRecord | null>;
  /** The scope's monitors that are not deleted, by created_at then id, after the id `after`; limit 1..1,000. */
  listMonitors(scope: { org_id: string; mode: 'live' | 'test' }, page: { after?: string | null; limit: number }): Promise<MonitorRecord[]>;
  /** Every monitor not deleted, by id after `after` (the monitor service walks them all); limit 1..1,000. */
  listActiveMonitors(page: { after?: string | null; limit: number }): Promise<MonitorRecord[]>;
  /** Applies `patch` (and `updated_at`) to the latest record; null when no such monitor. A deleted one stays deleted. */
  updateMonitor(id: string, patch: MonitorPatch): Promise<MonitorRecord | null>;
  /** Marks it deleted at `at` and removes its contacts, run rows and data key; null when no such monitor. */
  deleteMonitor(id: string, at: string): Promise<MonitorRecord | null>;

  putContactBlocks(monitorId: string, generation: number, blocks: ContactBlock[]): Promise<void>;
  /** Blocks of one generation in block order, `from` (inclusive) to `to` (exclusive). */
  readContactBlocks(monitorId: string, generation: number, range: { from: number; to: number }): Promise<ContactBlock[]>;
  /** The contact keys of blocks `from` (inclusive) to `to` (exclusive), in block order (no sealed people). */
  readContactKeys(monitorId: string, generation: number, range: { from: number; to: number }): Promise<Array<{ block: number; keys: string[] }>>;
  /** Every generation's blocks except those in `keep` go (old generations after a replacement). */
  dropContactGenerations(monitorId: string, keep: number[]): Promise<void>;
  /** One generation's blocks go (a replacement whose input was refused half-way). */
  dropContactGeneration(monitorId: string, generation: number): Promise<void>;

  /** Idempotent on (job, key). */
  putRunRows(monitorId: string, jobId: string, rows: RunRow[]): Promise<void>;
  /**
   * The run's rows `from` (inclusive) to `to` (exclusive) by row, each with its contact key and
   * verdict (absent rows: not in that run). A re-check of the same contacts finds a chunk's
   * previous verdicts here at the same rows, in one cheap range read.
   */
  readRunRows(monitorId: string, jobId: string, range: { from: number; to: number }): Promise<Map<number, MonitorVerdict & { key: string }>>;
  /** The verdicts of these contact keys (any number) in the run of `jobId` (absent keys: not in that run). */
  readVerdicts(monitorId: string, jobId: string, keys: string[]): Promise<Map<string, MonitorVerdict>>;
  /** Distinct contacts of the run per change. */
  countRunChanges(monitorId: string, jobId: string): Promise<MonitorChangeCounts>;
  /** Run rows of every job of the monitor except `keep` go (older checks' verdicts). */
  dropRuns(monitorId: string, keep: string[]): Promise<void>;
}

export class MonitorExistsError extends PermanentError {
  constructor(id: string) {
    super(`monitor ${id} already exists`);
    this.name = 'MonitorExistsError';
  }
}

export function applyMonitorPatch(current: MonitorRecord, patch: MonitorPatch, now: string): MonitorRecord {
  if (current.deleted_at !== null) return current;
  return { ...current, ...patch, updated_at: now };
}
