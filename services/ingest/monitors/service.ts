/**
 * The monitor service (`npm run service -- monitor`, and inside `npm start`; docs/monitors.md):
 * watches the active list version and every monitor, and keeps each monitor checked against it.
 * Every `intervalMs` it walks the monitors not deleted and moves each one step:
 *
 * 1. past its delete_after → left alone: `sweepExpired`, run on the process's retention timer
 *    (services/platform/retention.ts), deletes it (contacts, verdicts, key) and ends a check in flight;
 * 2. a check in flight (`run`):
 *    - still `publishing` but not by this process → the process that published it died half-way:
 *      its job is ended (purged: no results, no callback) and the check starts again;
 *    - its job done → promoted: the monitor's `checked` names it (its run rows become the contacts'
 *      last verdicts), older runs and contact generations go;
 *    - its job failed or gone → forgotten; the next step starts the check again;
 *    - otherwise it waits;
 * 3. not checked against the active version and its current contacts → a check starts: a
 *    `source: monitor` job of its contacts, through the same intake as every job (services/ingest).
 *
 * Exactly once: a check is recorded on the monitor (`run`, state `publishing`) before its job is
 * created and marked `published` once every row and RowsComplete are on the log, so a process
 * killed at any point leaves either nothing, a job it ends, or a job that completes once (one
 * callback). Run ONE monitor process per deployment (like the projection): two would start two
 * checks of one monitor.
 *
 * Activating the same version again changes nothing: a monitor is up to date when its `checked`
 * names the active version and its current generation, so no job is made.
 */
import { randomUUID } from 'node:crypto';
import { TEST_LIST_VERSION } from '../../domain/index.ts';
import type { ListVersionRef, PersonInput } from '../../domain/types.ts';
import { createPeopleIngest, endUnfinishedJob } from '../index.ts';
import { toListVersionRef } from '../../registers/lists/active-index.ts';
import { errorFields, type Logger } from '../../platform/logger.ts';
import type { AccountStore } from '../../platform/store/accounts-port.ts';
import type { JobStore } from '../../platform/store/jobs-port.ts';
import type { AddressStore } from '../../platform/store/addresses-port.ts';
import type { ListStore } from '../../platform/store/lists-port.ts';
import { CONTACT_BLOCK_SIZE, type MonitorRecord, type MonitorStore } from '../../platform/store/monitors-port.ts';
import type { PipelineEvents } from '../../pipeline/events.ts';
import { blockPlace, openContacts } from './contact-seal.ts';

export interface MonitorServiceDeps {
  monitors: MonitorStore;
  jobs: JobStore;
  lists: ListStore;
  /** The active address register version a check pins with its list version (docs/addresses.md "One check, every channel"). */
  addresses: Pick<AddressStore, 'getActiveAddressVersion'>;
  accounts: AccountStore;
  events: Pick<PipelineEvents, 'publish'>;
  logger: Logger;
  /** The callback guard of every job (services/platform/outbound-http checkCallbackUrl). */
  checkCallbackUrl: (url: string) => Promise<unknown>;
  spoolDir: string;
  /** How often the monitors are walked (MONITOR_INTERVAL_SECONDS). */
  intervalMs: number;
  chunkRows?: number;
  clock?: () => Date;
}

export interface MonitorService {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** One walk over every monitor (tests and the timer). */
  tick(): Promise<void>;
  /** Deletes every monitor past its delete_after (the retention sweep `monitor-expired`); returns how many. */
  sweepExpired(): Promise<number>;
}

const PAGE = 200;
/** Blocks read from the store at a time while publishing a check (4 × 2,000 contacts). */
const READ_BLOCKS = 4;

export function createMonitorService(deps: MonitorServiceDeps): MonitorService {
  const logger = deps.logger.child({ module: 'monitors' });
  const clock = deps.clock ?? (() => new Date());
  /** Monitors whose check this process is publishing right now. */
  const publishing = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let walks = 0;

  async function* contactsOf(m: MonitorRecord, generation: number): AsyncGenerator<PersonInput[]> {
    const blocks = Math.ceil(m.contact_count / CONTACT_BLOCK_SIZE);
    for (let from = 0; from < blocks; from += READ_BLOCKS) {
      for (const block of await deps.monitors.readContactBlocks(m.id, generation, { from, to: from + READ_BLOCKS })) {
        yield openContacts(m.data_key as string, blockPlace(m.id, generation, block.block), block.sealed);
      }
    }
  }

  async function startCheck(m: MonitorRecord, version: ListVersionRef, privateList: string | null, addresses: string | null): Promise<void> {
    const org = await deps.accounts.getOrganisation(m.org_id);
    if (!org) return;
    // A suspended organisation's monitors stand still (no job, no usage) until it is restored;
    // the next walk after that checks them against the version then active (docs/monitors.md).
    if (org.suspended) {
      logger.info({ monitor_id: m.id, org_id: org.id }, 'monitor.skipped_suspended');
      return;
    }
    const jobId = randomUUID();
    const at = clock().toISOString();
    const generation = m.generation;
    const contacts = m.contact_count;
    const withRun = await deps.monitors.updateMonitor(m.id, {
      run: {
        job_id: jobId, list_version_id: version.id, private_list_version_id: privateList, address_register_version_id: addresses, generation,
        state: 'publishing', started_at: at,
      },
    });
    if (!withRun || withRun.deleted_at !== null || withRun.generation !== generation) return;
    publishing.add(m.id);
    try {
      const ingest = createPeopleIngest({
        jobs: deps.jobs, events: deps.events, currentListVersion: () => version, checkCallbackUrl: deps.checkCallbackUrl,
        currentAddressRegisterVersion: () => addresses,
        // A monitor with use_private_list pins the private list version this check is for (docs/decisions.md §16).
        logger: deps.logger, spoolDir: deps.spoolDir, newId: () => jobId, clock,
        privateListVersion: async () => privateList,
        ...(deps.chunkRows ? { chunkRows: deps.chunkRows } : {}),
      });
      const job = await ingest.createJobFromPeople({
        source: 'monitor',
        // Monitor checks never wait for payment: their rows are billed as usage at completion.
        org: { id: org.id, stop_level: org.stop_level, retention_days: org.retention_days, plan: 'annual', addons: org.addons },
        mode: m.mode,
        keyHash: m.key_hash,
        options: {
          policy: m.options.policy, stop_level: m.options.stop_level,
          ...(m.options.use_private_list === true ? { use_private_list: true } : {}),
        },
        callback_url: m.callback_url,
        external_ref: m.external_ref,
        locale: m.locale,
        monitor: { id: m.id, generation, previous_job_id: m.checked?.job_id ?? null, changes: null },
        people: contactsOf(withRun, generation),
      });
      if (job.row_count !== contacts) logger.warn({ monitor_id: m.id, job_id: jobId }, 'monitor.contact_count_differs');
      await deps.monitors.updateMonitor(m.id, { run: { ...(withRun.run as NonNullable<MonitorRecord['run']>), state: 'published' } });
      logger.info({ monitor_id: m.id, job_id: jobId, list_version_id: version.id, rows: job.row_count }, 'monitor.check_started');
    } catch (error) {
      // Nothing half-made stays: the job (if any) is ended, the run forgotten; the next walk retries.
      logger.error({ monitor_id: m.id, job_id: jobId, ...errorFields(error) }, 'monitor.check_not_started');
      await endUnfinishedJob(deps, jobId, clock().toISOString()).catch(() => undefined);
      await deps.monitors.updateMonitor(m.id, { run: null });
    } finally {
      publishing.delete(m.id);
    }
  }

  /** Whether the intake of a job is still open (its publisher has not put RowsComplete on the log). */
  async function intakeOpen(jobId: string): Promise<boolean> {
    return (await deps.jobs.getIntake(jobId))?.closed === false;
  }

  async function promote(m: MonitorRecord, run: NonNullable<MonitorRecord['run']>, finishedAt: string): Promise<void> {
    await deps.monitors.updateMonitor(m.id, {
      checked: {
        list_version_id: run.list_version_id, private_list_version_id: run.private_list_version_id ?? null,
        address_register_version_id: run.address_register_version_id ?? null,
        generation: run.generation, job_id: run.job_id, checked_at: finishedAt,
      },
      run: null,
    });
    // Only the last check's verdicts are ever read again; older contact generations neither.
    await deps.monitors.dropRuns(m.id, [run.job_id]);
    await deps.monitors.dropContactGenerations(m.id, [...new Set([m.generation, run.generation])]);
    logger.info({ monitor_id: m.id, job_id: run.job_id }, 'monitor.checked');
  }

  /**
   * One step of one monitor; `active` is the live cpr version now (null: none), `activeAddresses`
   * the active address register version (null: none).
   */
  async function step(m: MonitorRecord, active: ListVersionRef | null, activeAddresses: string | null): Promise<void> {
    const now = clock();
    // Its retention is over: no check starts; the next retention pass deletes it (expire).
    if (expired(m, now)) return;
    const run = m.run;
    if (run) {
      if (publishing.has(m.id)) return;
      const job = await deps.jobs.getJobById(run.job_id);
      if (job?.status === 'done') return promote(m, run, job.finished_at ?? now.toISOString());
      const open = job !== null && job.status !== 'failed' && job.status !== 'deleted';
      if (open && run.state === 'publishing' && await intakeOpen(run.job_id)) {
        // The process that published it died half-way: the rows on the log are incomplete.
        logger.warn({ monitor_id: m.id, job_id: run.job_id }, 'monitor.check_interrupted');
        await endUnfinishedJob(deps, run.job_id, now.toISOString());
        m = (await deps.monitors.updateMonitor(m.id, { run: null })) ?? m;
      } else if (open) {
        // Every row is on the log (died after RowsComplete, before saying so): it completes.
        if (run.state === 'publishing') await deps.monitors.updateMonitor(m.id, { run: { ...run, state: 'published' } });
        return;
      } else {
        if (job) logger.warn({ monitor_id: m.id, job_id: run.job_id, status: job.status }, 'monitor.check_lost');
        m = (await deps.monitors.updateMonitor(m.id, { run: null })) ?? m;
      }
    }
    const target = m.mode === 'test' ? { ...TEST_LIST_VERSION } : active;
    if (!target) return;
    // With use_private_list the organisation's own list is a second version to be checked against.
    const privateList = m.options.use_private_list === true && m.mode === 'live'
      ? (await deps.lists.getActiveListVersion('customer', m.org_id))?.id ?? null
      : null;
    if (m.options.use_private_list === true && m.mode === 'live' && privateList === null) return;
    // Live checks are matched with the register active now, as a synchronous check would be; a
    // newly activated register is a re-check like a new list version, since it can change who
    // is found (docs/addresses.md "One check, every channel"). Test checks read no register.
    const addresses = m.mode === 'live' ? activeAddresses : null;
    if (m.checked && m.checked.list_version_id === target.id && m.checked.generation === m.generation
      && (m.checked.private_list_version_id ?? null) === privateList
      && (m.checked.address_register_version_id ?? null) === addresses) return;
    await startCheck(m, target, privateList, addresses);
  }

  function expired(m: MonitorRecord, now: Date): boolean {
    return Date.parse(m.delete_after) <= now.getTime();
  }

  /** Past its delete_after: deleted (contacts, verdicts, key), a check in flight ended. */
  async function expire(m: MonitorRecord, now: Date): Promise<void> {
    await deps.monitors.deleteMonitor(m.id, now.toISOString());
    if (m.run) await endUnfinishedJob(deps, m.run.job_id, now.toISOString());
    logger.info({ monitor_id: m.id }, 'monitor.retention_deleted');
  }

  async function expireDue(): Promise<number> {
    let deleted = 0;
    let after: string | null = null;
    for (;;) {
      const page: MonitorRecord[] = await deps.monitors.listActiveMonitors({ after, limit: PAGE });
      for (const m of page) {
        const now = clock();
        if (!expired(m, now)) continue;
        // One monitor's failure must not keep the others' people past their retention.
        try {
          await expire(m, now);
          deleted += 1;
        } catch (error) {
          logger.error({ monitor_id: m.id, ...errorFields(error) }, 'monitor.retention_failed');
        }
      }
      if (page.length < PAGE) return deleted;
      after = page[page.length - 1].id;
    }
  }

  /**
   * Walks and retention passes never overlap (a check must not be started twice, nor for a
   * monitor being deleted): each waits for the one before.
   */
  let chain: Promise<unknown> = Promise.resolve();
  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = chain.then(work);
    chain = next.catch(() => undefined);
    return next;
  }
  const tick = (): Promise<void> => exclusive(walk);

  async function walk(): Promise<void> {
    await walkMonitors();
    // The service's own signal that one whole walk is behind it (tests wait on it, never on time).
    logger.debug({ walks: ++walks }, 'monitor.walk_done');
  }

  async function walkMonitors(): Promise<void> {
    const version = await deps.lists.getActiveListVersion('cpr', null);
    const active = version ? toListVersionRef(version) : null;
    const activeAddresses = (await deps.addresses.getActiveAddressVersion())?.id ?? null;
    let after: string | null = null;
    for (;;) {
      const page: MonitorRecord[] = await deps.monitors.listActiveMonitors({ after, limit: PAGE });
      for (const m of page) {
        if (stopped) return;
        try {
          await step(m, active, activeAddresses);
        } catch (error) {
          logger.error({ monitor_id: m.id, ...errorFields(error) }, 'monitor.step_failed');
        }
      }
      if (page.length < PAGE) return;
      after = page[page.length - 1].id;
    }
  }

  function schedule(delayMs = deps.intervalMs): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .catch((error: unknown) => logger.error(errorFields(error), 'monitor.walk_failed'))
        .finally(() => {
          running = null;
          schedule();
        });
    }, delayMs);
  }

  return {
    tick,
    sweepExpired: () => exclusive(expireDue),
    async start() {
      stopped = false;
      // The first walk at once, but not awaited: a large check must not hold up the start.
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
