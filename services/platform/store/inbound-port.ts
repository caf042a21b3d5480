import type { CheckJobOptions, ColumnMapping } from '../../domain/check-job.ts';
import type { RemovableRecords } from './removable-records.ts';

/**
 * Inbound channels (docs/decisions.md §15): organisations' SFTP drop folders, the email sender allow-list,
 * and the claims that make each dropped file or emailed attachment exactly one job.
 *
 * Promises, whatever the adapter (embedded node:sqlite or ClickHouse):
 * - A write is durable and visible to every later read (of any process) once its promise resolves.
 * - `claim` stores a claim only when no claim with its id exists and returns the stored one, so a
 *   restarted process that claims the same item again gets the first claim (and its job id) back.
 * - A removed drop folder stays readable by id (its files still have to be deleted at their
 *   `delete_after`) but is no longer listed as active.
 * - Sender addresses are compared lower-cased.
 * Does not promise: atomic read-modify-write between processes. One inbound process per channel
 * owns its claims (the SFTP rename and the IMAP move are the atomic steps, not this store).
 * Nothing here holds personal data except file names (as `JobRecord.filename` does); secrets are
 * stored only sealed (services/ingest/inbound/secrets.ts).
 */
export interface DropFolder {
  id: string;
  org_id: string;
  host: string;
  port: number;
  username: string;
  /** Pinned host key: `SHA256:<base64>` as `ssh-keygen -l` prints it. */
  host_key_sha256: string;
  auth: 'key' | 'password';
  /** The private key (PEM/OpenSSH text) or the password, sealed with AES-256-GCM. */
  secret_sealed: string;
  /** The directory that holds inbox/ outbox/ archive/ failed/ ('/' for a chrooted account). */
  path: string;
  /** The saved mapping; null: guessed from each file's headers. */
  column_mapping: ColumnMapping | null;
  options: CheckJobOptions;
  /** Language of error files' first half and of result headers. */
  locale: 'da' | 'en';
  /**
   * Set: the folder feeds this live monitor of the organisation: each file replaces its contacts
   * (a receipt in outbox/) instead of becoming a job. Absent in folders stored before monitors.
   */
  monitor_id?: string | null;
  created_at: string;
  removed_at: string | null;
}

/** The poller's last outcome for a folder (shown by the admin tool). */
export interface DropFolderStatus {
  folder_id: string;
  last_ok_at: string | null;
  /** Error class and message of the last failure; never a credential or file content. */
  last_error: string | null;
  last_error_at: string | null;
  /** Failures in a row (backoff grows with it); 0 after a success. */
  failures: number;
}

export interface AllowedSender {
  org_id: string;
  /** Lower-cased email address. */
  address: string;
  /** Language of replies to this sender; null: the message's language, else Danish. */
  locale: 'da' | 'en' | null;
  created_at: string;
}

export type ClaimState = 'claimed' | 'job_created' | 'delivered' | 'deleted';

/** One dropped file or one emailed attachment. Its id is the id of the job it becomes. */
export interface InboundClaim {
  id: string;
  channel: 'sftp' | 'email';
  org_id: string;
  /** The drop folder id, or the mailbox name. */
  source_ref: string;
  /** What was claimed: the processing name (sftp) or `<message key>#<attachment index>` (email). */
  item: string;
  state: ClaimState;
  /** Remote paths (sftp) or message keys (email) to delete at `delete_after`. */
  outputs: string[];
  /** Set when the job exists (the job's delete_after). */
  delete_after: string | null;
  created_at: string;
  updated_at: string;
}

export type ClaimPatch = Partial<Pick<InboundClaim, 'state' | 'outputs' | 'delete_after' | 'updated_at'>>;

export interface InboundStore {
  createDropFolder(folder: DropFolder): Promise<void>;
  getDropFolder(id: string): Promise<DropFolder | null>;
  /** Active (not removed) folders, of one organisation or all, oldest first. */
  listDropFolders(orgId?: string): Promise<DropFolder[]>;
  /** Marks the folder removed; false when unknown. */
  removeDropFolder(id: string, at: string): Promise<boolean>;
  recordFolderStatus(status: DropFolderStatus): Promise<void>;
  getFolderStatus(folderId: string): Promise<DropFolderStatus | null>;

  addSender(sender: AllowedSender): Promise<void>;
  /** False when the organisation had no such sender. */
  removeSender(orgId: string, address: string): Promise<boolean>;
  /** The organisation that allowed this address (first added wins), or null. */
  findSender(address: string): Promise<AllowedSender | null>;
  listSenders(orgId?: string): Promise<AllowedSender[]>;

  /** Stores the claim unless one with its id exists; returns the stored claim either way. */
  claim(claim: InboundClaim): Promise<InboundClaim>;
  getClaim(id: string): Promise<InboundClaim | null>;
  updateClaim(id: string, patch: ClaimPatch): Promise<InboundClaim | null>;
  /** Claims of one source not yet delivered (a restart resumes them), oldest first. */
  listOpenClaims(channel: InboundClaim['channel'], sourceRef: string): Promise<InboundClaim[]>;
  /** Claims (not yet deleted) whose delete_after is at or before `now`, oldest first. */
  listClaimsDue(now: string, limit: number): Promise<InboundClaim[]>;
}

/** What `updateClaim` stores, in every adapter: an absent field keeps its value; `delete_after` may be set to null. */
export function patchedClaim(claim: InboundClaim, patch: ClaimPatch): InboundClaim {
  return {
    ...claim,
    state: patch.state ?? claim.state,
    outputs: patch.outputs ?? claim.outputs,
    delete_after: patch.delete_after !== undefined ? patch.delete_after : claim.delete_after,
    updated_at: patch.updated_at ?? claim.updated_at,
  };
}

/** The drop-folder part of an InboundStore, made of an adapter's removable records (removable-records.ts). */
export function dropFolderOperationsOf(folders: RemovableRecords<DropFolder, DropFolderStatus>): Pick<InboundStore,
  'createDropFolder' | 'getDropFolder' | 'listDropFolders' | 'removeDropFolder' | 'recordFolderStatus' | 'getFolderStatus'> {
  return {
    createDropFolder: (folder) => folders.create(folder),
    getDropFolder: (id) => folders.get(id),
    listDropFolders: (orgId) => folders.list(orgId),
    removeDropFolder: (id, at) => folders.remove(id, at),
    recordFolderStatus: (status) => folders.recordStatus(status.folder_id, status),
    getFolderStatus: (folderId) => folders.getStatus(folderId),
  };
}
