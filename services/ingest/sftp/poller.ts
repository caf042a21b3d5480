import { errorFields, type Logger } from '../../platform/logger.ts';
import type { AccountStore } from '../../platform/store/accounts-port.ts';
import type { DropFolder, DropFolderStatus, InboundClaim, InboundStore } from '../../platform/store/inbound-port.ts';
import type { FileJobs } from '../inbound/file-jobs.ts';
import type { MonitorContactsFeed } from '../inbound/monitor-contacts.ts';
import type { SecretBox } from '../inbound/secrets.ts';
import { visitDropFolder } from './claims.ts';
import { connectRemoteFolder, type RemoteFolder } from './remote-folder.ts';
import { createStabilityTracker } from './stability.ts';
import { ClassifiedError } from '../../platform/errors.ts';

/**
 * Many organisations, one poller: every `pollMs` each active drop folder is visited for new
 * files, and on every retention pass (`sweepDue`, on the process's retention timer:
 * services/platform/retention.ts) each folder with files past their delete_after, removed folders
 * included, is visited to delete them; at most `concurrency` visits at once. A visit has
 * a time limit (`visitTimeoutMs`, connection included), so a slow or unreachable server holds one
 * slot for a bounded time and never the others; a folder that fails waits before its next visit
 * (5 s doubling to 10 min) and its last error is recorded for the admin tool's list.
 * Errors are recorded as their class and message: never a credential or a file's content.
 */
export interface SftpPollerDeps {
  inbound: InboundStore;
  accounts: AccountStore;
  fileJobs: FileJobs;
  monitorFeed: MonitorContactsFeed;
  secrets: SecretBox;
  logger: Logger;
  workDir: string;
  pollMs: number;
  stableMs: number;
  concurrency: number;
  visitTimeoutMs: number;
  now?: () => Date;
  /** The SFTP connection (tests may wrap it to slow it down). */
  connect?: (folder: DropFolder, secret: string) => Promise<RemoteFolder>;
}

export interface SftpPoller {
  start(): void;
  /** One round over every folder, awaited (tests and the bench drive the poller with it). */
  pollOnce(): Promise<void>;
  /** Visits every folder with claims past their delete_after and deletes their files, awaited. */
  sweepDue(): Promise<void>;
  /** Stops scheduling and waits for visits in flight. */
  stop(): Promise<void>;
}

const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 10 * 60_000;
/** A success is written to the store at most this often per folder (not on every poll). */
const OK_RECORD_INTERVAL_MS = 60_000;

export class VisitTimeoutError extends ClassifiedError {
  constructor(ms: number) {
    super(`drop folder visit took longer than ${ms} ms`);
    this.name = 'VisitTimeoutError';
  }
}

export function createSftpPoller(deps: SftpPollerDeps): SftpPoller {
  const logger = deps.logger.child({ module: 'ingest.sftp' });
  const now = deps.now ?? (() => new Date());
  const connect = deps.connect ?? ((folder, secret) => connectRemoteFolder(folder, secret));
  const tracker = createStabilityTracker(deps.stableMs);
  /** Folders queued or being visited (never twice at once). */
  const busy = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  const waitUntil = new Map<string, number>();
  const lastOkRecorded = new Map<string, number>();
  let queue: Array<{ run: () => Promise<void>; drop: () => void }> = [];
  let running = 0;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  function pump(): void {
    while (running < deps.concurrency && queue.length > 0) {
      const task = queue.shift() as { run: () => Promise<void> };
      running++;
      const visiting = task.run().finally(() => {
        running--;
        inFlight.delete(visiting);
        pump();
      });
      inFlight.add(visiting);
    }
  }

  async function visit(folder: DropFolder, due: InboundClaim[]): Promise<void> {
    let remote: RemoteFolder | null = null;
    let timeout: NodeJS.Timeout | undefined;
    const work = (async () => {
      const org = await deps.accounts.getOrganisation(folder.org_id);
      remote = await connect(folder, deps.secrets.open(folder.secret_sealed, folder.id));
      return visitDropFolder({
        folder, org, remote, inbound: deps.inbound, fileJobs: deps.fileJobs, monitorFeed: deps.monitorFeed, tracker, workDir: deps.workDir, logger, now,
      }, due);
    })();
    try {
      const outcome = await Promise.race([
        work,
        new Promise<never>((_, reject) => {
          timeout = setTimeout(() => reject(new VisitTimeoutError(deps.visitTimeoutMs)), deps.visitTimeoutMs);
        }),
      ]);
      await recordOk(folder.id);
      if (outcome.claimed + outcome.delivered + outcome.deleted > 0) logger.info({ folder_id: folder.id, ...outcome }, 'sftp.visited');
    } catch (error) {
      await recordFailure(folder.id, error as Error);
    } finally {
      clearTimeout(timeout);
      // On a timeout the visit may still run: closing the connection makes its next step fail.
      await (remote as RemoteFolder | null)?.close();
      work.catch(() => undefined);
    }
  }

  async function recordOk(folderId: string): Promise<void> {
    waitUntil.delete(folderId);
    const previous = await deps.inbound.getFolderStatus(folderId);
    const at = now();
    if (previous && previous.failures === 0 && at.getTime() - (lastOkRecorded.get(folderId) ?? 0) < OK_RECORD_INTERVAL_MS) return;
    lastOkRecorded.set(folderId, at.getTime());
    await deps.inbound.recordFolderStatus({
      folder_id: folderId, last_ok_at: at.toISOString(), last_error: previous?.last_error ?? null,
      last_error_at: previous?.last_error_at ?? null, failures: 0,
    });
  }

  async function recordFailure(folderId: string, error: Error): Promise<void> {
    const previous = await deps.inbound.getFolderStatus(folderId).catch(() => null);
    const failures = (previous?.failures ?? 0) + 1;
    const delay = Math.min(BACKOFF_BASE_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
    waitUntil.set(folderId, now().getTime() + delay);
    const status: DropFolderStatus = {
      folder_id: folderId, last_ok_at: previous?.last_ok_at ?? null,
      last_error: describeError(error), last_error_at: now().toISOString(), failures,
    };
    logger.warn({ folder_id: folderId, ...errorFields(error), failures, retry_in_ms: delay }, 'sftp.visit_failed');
    await deps.inbound.recordFolderStatus(status).catch(() => undefined);
  }

  /** A poll visits every active folder for new files; a retention round only the folders with files due, to delete them. */
  async function round(kind: 'poll' | 'retention'): Promise<Array<Promise<void>>> {
    const byFolder = new Map<string, InboundClaim[]>();
    const toVisit = new Map<string, DropFolder>();
    if (kind === 'poll') {
      for (const folder of await deps.inbound.listDropFolders()) toVisit.set(folder.id, folder);
    } else {
      const due = (await deps.inbound.listClaimsDue(now().toISOString(), 1000)).filter((c) => c.channel === 'sftp');
      for (const claim of due) byFolder.set(claim.source_ref, [...(byFolder.get(claim.source_ref) ?? []), claim]);
      for (const folderId of byFolder.keys()) {
        const folder = await deps.inbound.getDropFolder(folderId);
        if (folder) toVisit.set(folderId, folder);
      }
    }
    const started: Array<Promise<void>> = [];
    for (const folder of toVisit.values()) {
      if (busy.has(folder.id) || (waitUntil.get(folder.id) ?? 0) > now().getTime()) continue;
      busy.add(folder.id);
      started.push(new Promise<void>((resolve) => {
        const release = () => {
          busy.delete(folder.id);
          resolve();
        };
        queue.push({ run: () => visit(folder, byFolder.get(folder.id) ?? []).finally(release), drop: release });
      }));
    }
    pump();
    return started;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      round('poll').catch((error: unknown) => logger.error(errorFields(error), 'sftp.round_failed')).finally(schedule);
    }, deps.pollMs);
  }

  return {
    start() {
      stopped = false;
      schedule();
    },
    async pollOnce() {
      await Promise.all(await round('poll'));
    },
    async sweepDue() {
      await Promise.all(await round('retention'));
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      for (const task of queue.splice(0)) task.drop();
      await Promise.all(inFlight);
    },
  };
}

const OWN_ERRORS = new Set(['HostKeyMismatchError', 'SftpConnectError', 'VisitTimeoutError', 'SecretKeyError']);

/**
 * What the admin list shows: the class, and the message only for errors known to hold neither
 * secrets nor personal data (connection and SSH errors, ours); others may quote a file name or a
 * query, so they show only their class. One line, at most 300 characters.
 */
export function describeError(error: Error): string {
  const { code, level } = error as Error & { code?: unknown; level?: unknown };
  const network = typeof code === 'string' && /^E[A-Z]+$/.test(code);
  const ssh = typeof level === 'string' && level.startsWith('client-');
  if (!network && !ssh && !OWN_ERRORS.has(error.name)) return error.name;
  return `${error.name}: ${error.message}`.replace(/\s+/g, ' ').slice(0, 300);
}
