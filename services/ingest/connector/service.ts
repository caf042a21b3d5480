import type { ConnectorStatus, ConnectorStore } from '../../platform/store/connectors-port.ts';
import { pullSlot, type PullDeps } from './pull.ts';
import { slotOf } from './schedule.ts';
import { errorFields } from '../../platform/logger.ts';

/**
 * The connector service (`npm run service -- connectors`, and inside `npm start`): every
 * `tickMs` it lists the active connectors and pulls each one whose current schedule slot has no
 * outcome yet, at most `concurrency` at once and never one connector twice at once. A slot is
 * pulled once to an outcome (success or error, recorded as the connector's status); a failed pull
 * is retried in the next slot, not sooner, so a broken server is not hammered. Slots missed while
 * the service was down are not made up: after a restart the current slot is pulled (one job, not
 * a backlog of them). Run one per deployment (the status is kept by one owner; job ids derived
 * from the slot keep a slot to one job regardless).
 */
export interface ConnectorServiceDeps extends PullDeps {
  connectors: ConnectorStore;
  tickMs: number;
  concurrency: number;
}

export interface ConnectorService {
  start(): void;
  /** One pass now (tests and the first tick); resolves when every pull it started has an outcome. */
  runDue(): Promise<void>;
  stop(): Promise<void>;
}

export function createConnectorService(deps: ConnectorServiceDeps): ConnectorService {
  const logger = deps.logger.child({ module: 'ingest.connector' });
  /** Status per connector as last recorded by this process (this process owns the schedule). */
  const known = new Map<string, ConnectorStatus | null>();
  const running = new Map<string, Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let passing: Promise<Promise<void>[]> | null = null;

  async function pullOne(connectorId: string, run: () => Promise<ConnectorStatus>): Promise<void> {
    try {
      const status = await run();
      await deps.connectors.recordStatus(status);
      known.set(connectorId, status);
      if (status.failures === 0) logger.info({ connector_id: connectorId, slot: status.last_slot, job_id: status.last_job_id }, 'connector.pulled');
      else logger.warn({ connector_id: connectorId, slot: status.last_slot, error: status.last_error, failures: status.failures }, 'connector.pull_failed');
    } catch (error) {
      // A store or the disk did not answer: no outcome recorded, the slot is tried again next tick.
      logger.error({ connector_id: connectorId, ...errorFields(error) }, 'connector.pull_interrupted');
      known.delete(connectorId);
    }
  }

  /** Starts the pulls that are due; returns them without waiting (a slow pull holds up no one). */
  async function pass(): Promise<Promise<void>[]> {
    const connectors = await deps.connectors.listConnectors();
    const started: Promise<void>[] = [];
    for (const connector of connectors) {
      if (stopped || running.size >= deps.concurrency) break;
      if (running.has(connector.id)) continue;
      if (!known.has(connector.id)) known.set(connector.id, await deps.connectors.getStatus(connector.id));
      const previous = known.get(connector.id) ?? null;
      const slot = slotOf(deps.now().getTime(), connector.interval_seconds);
      if (previous?.last_slot != null && previous.last_slot >= slot) continue;
      const work = pullOne(connector.id, () => pullSlot(deps, connector, slot, previous)).finally(() => running.delete(connector.id));
      running.set(connector.id, work);
      started.push(work);
    }
    return started;
  }

  async function runDue(): Promise<void> {
    passing ??= pass()
      .catch((error: unknown) => {
        logger.error(errorFields(error), 'connector.pass_failed');
        return [];
      })
      .finally(() => {
        passing = null;
      });
    await Promise.all(await passing);
  }

  function schedule(): void {
    timer = setTimeout(() => {
      // A pass does not wait for slow pulls of others: those run on, each in its own slot.
      void runDue();
      if (!stopped) schedule();
    }, deps.tickMs);
  }

  return {
    start() {
      void runDue();
      schedule();
    },
    runDue,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.all(running.values());
    },
  };
}
