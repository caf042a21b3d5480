import { errorFields, type Logger } from './logger.ts';

/**
 * One retention rule for every store that holds (or could hold) a checked person, in the order of
 * docs/privacy-and-proof.md "Every store: what personal data, how long, what deletes it". The
 * table is the code's copy of that section: test/unit/platform/retention.test.ts fails when a row
 * is added to one and not the other, so a new store cannot arrive without its rule and its sweep.
 */
export type RetentionSweepName =
  | 'job-purge' | 'idempotency-expired' | 'spool-stale' | 'draft-files' | 'monitor-expired' | 'inbound-delete-after';

export interface RetentionStore {
  /** The first words of its row in docs/privacy-and-proof.md "Every store". */
  store: string;
  holdsPeople: boolean;
  rule: string;
  /** The sweep that ends what it holds; null only for stores without checked people. */
  sweep: RetentionSweepName | null;
}

export const RETENTION_STORES: readonly RetentionStore[] = [
  { store: 'job store', holdsPeople: true, rule: "until the job's delete_after or its DELETE", sweep: 'job-purge' },
  { store: 'event log', holdsPeople: true, rule: 'sealed; unreadable once the job is purged, bytes expire with the topic', sweep: 'job-purge' },
  { store: 'data keys', holdsPeople: false, rule: 'until the job is purged', sweep: 'job-purge' },
  { store: 'idempotency store', holdsPeople: true, rule: '24 h, never beyond the job the answer shows', sweep: 'idempotency-expired' },
  { store: 'spool', holdsPeople: true, rule: 'the request; files of killed processes at the next start', sweep: 'spool-stale' },
  { store: 'uploads', holdsPeople: true, rule: 'while the job is a draft', sweep: 'draft-files' },
  { store: 'monitors', holdsPeople: true, rule: "until the monitor's delete_after or its DELETE", sweep: 'monitor-expired' },
  { store: 'inbound folders', holdsPeople: true, rule: "until the job's delete_after", sweep: 'inbound-delete-after' },
  { store: 'connectors', holdsPeople: true, rule: 'the pull (the spool rule)', sweep: 'spool-stale' },
  { store: 'private lists, the national list', holdsPeople: false, rule: 'while the version is kept', sweep: null },
  { store: 'logs', holdsPeople: false, rule: 'never a value from a body', sweep: null },
  { store: 'portal people', holdsPeople: false, rule: "the organisation's own staff, as long as the organisation; removing a person forgets their TOTP key", sweep: null },
  { store: 'usage, accounts, rate usage, certificates', holdsPeople: false, rule: 'kept; none of the checked people', sweep: null },
  { store: 'the database file itself', holdsPeople: true, rule: 'as its rows; 0600 in a 0700 directory', sweep: 'job-purge' },
];

/** A sweep pass; it logs what it removed under its own event (platform/log-events.ts). */
export type RetentionSweep = () => Promise<void>;

export interface RetentionSchedule {
  /** Adds a sweep this process can run; a process registers only the stores it owns. */
  register(name: RetentionSweepName, sweep: RetentionSweep): void;
  /** The sweeps registered, in order (what this process keeps in retention). */
  names(): RetentionSweepName[];
  /** One pass of every registered sweep, in registration order; a failing sweep does not stop the others. */
  runOnce(): Promise<void>;
  /** Starts the one timer (no timer when intervalMs is 0: retention then runs only through runOnce). */
  start(): void;
  /** Stops the timer and waits for a pass in flight, so the stores it sweeps can be closed after. */
  stop(): Promise<void>;
}

/**
 * The one timer a process runs its retention sweeps on. A pass never overlaps the previous one
 * (a slow store would otherwise stack passes on a loaded machine); the timer is unref'd so it
 * never keeps a stopping process alive.
 */
export function createRetentionSchedule(deps: { intervalMs: number; logger: Logger }): RetentionSchedule {
  const sweeps: Array<{ name: RetentionSweepName; sweep: RetentionSweep }> = [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function runOnce(): Promise<void> {
    for (const { name, sweep } of sweeps) {
      try {
        await sweep();
      } catch (error) {
        deps.logger.error({ sweep: name, ...errorFields(error) }, 'retention.failed');
      }
    }
  }

  return {
    register(name, sweep) {
      sweeps.push({ name, sweep });
    },
    names: () => sweeps.map((entry) => entry.name),
    runOnce,
    start() {
      if (deps.intervalMs <= 0 || timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = runOnce().finally(() => { running = null; });
      }, deps.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
