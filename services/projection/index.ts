import type { EventLog, Subscription } from '../platform/log/port.ts';
import type { Logger } from '../platform/logger.ts';
import type { SchemaRegistry } from '../platform/schema-registry/port.ts';
import type { JobRecord, JobStore } from '../platform/store/jobs-port.ts';
import type { UsageStore } from '../platform/store/usage-port.ts';
import type { MonitorRunResults } from '../monitors/run-results.ts';
import { deadLetterTopicOf } from '../../infra/topics.ts';
import { createPipelineEvents, topicNames, type PipelineDataKeys, type PipelineEvent } from '../pipeline/events.ts';
import { decodeAt, poisonSafe, UNREADABLE_MESSAGE } from '../pipeline/poison.ts';
import { createCallbackSender, type CallbackSenderDeps } from './callbacks/index.ts';
import { createProjection, type Projection } from './projection.ts';

/**
 * The projection process's service: the consumer group `<prefix>projection` on checks.results and
 * jobs.events, feeding decoded batches to the projection (projection.ts), plus its timers
 * (count refresh, retention) and callback deliveries. Run one per deployment: a job's events are
 * on one partition of each topic, and one process must own both.
 */
export interface ProjectionService {
  start(): Promise<void>;
  /** Leaves the group after the batch in flight; pending callbacks stay pending for the next start. */
  stop(): Promise<void>;
  projection: Projection;
}

export interface ProjectionServiceDeps {
  log: EventLog;
  registry: SchemaRegistry;
  jobs: JobStore;
  /** The CheckJob JSON text of a record (api/check-job-json.ts renderCheckJob). */
  renderJob: (job: JobRecord) => string;
  logger: Logger;
  topicPrefix?: string;
  /** The job data keys results are sealed with (the platform's). */
  dataKeys?: PipelineDataKeys;
  callbacks?: Pick<CallbackSenderDeps, 'timeoutMs' | 'retryDelaysMs' | 'allowHosts' | 'ca' | 'lookup' | 'clock'>;
  countIntervalMs?: number;
  retentionIntervalMs?: number;
  /** Silence after which a job's intake counts as dead and the job is failed (projection.ts). */
  intakeStaleMs?: number;
  /** Messages per batch; results chunks of a batch go to the store in one write per job. */
  maxBatchSize?: number;
  clock?: () => Date;
  /** Signs done jobs' certificates; absent: done jobs get none. */
  signCertificate?: (claims: object) => Promise<string>;
  /** Billable usage; with it the service also consumes usage.events. */
  usage?: UsageStore;
  /** Monitor re-checks' changes (services/monitors/run-results.ts); absent: monitor jobs are plain jobs. */
  monitorRuns?: MonitorRunResults;
}

export const DEFAULT_PROJECTION_BATCH = 16;

export function createProjectionService(deps: ProjectionServiceDeps): ProjectionService {
  const prefix = deps.topicPrefix ?? '';
  const topics = topicNames(prefix);
  const events = createPipelineEvents({ log: deps.log, registry: deps.registry, topicPrefix: prefix, ...(deps.dataKeys ? { dataKeys: deps.dataKeys } : {}) });
  const projection = createProjection({
    jobs: deps.jobs,
    events,
    callbacks: createCallbackSender({ logger: deps.logger, ...deps.callbacks }),
    renderJob: deps.renderJob,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.countIntervalMs !== undefined ? { countIntervalMs: deps.countIntervalMs } : {}),
    ...(deps.retentionIntervalMs !== undefined ? { retentionIntervalMs: deps.retentionIntervalMs } : {}),
    ...(deps.intakeStaleMs !== undefined ? { intakeStaleMs: deps.intakeStaleMs } : {}),
    ...(deps.signCertificate ? { signCertificate: deps.signCertificate } : {}),
    ...(deps.usage ? { usage: deps.usage } : {}),
    ...(deps.monitorRuns ? { monitorRuns: deps.monitorRuns } : {}),
  });
  let subscription: Subscription | null = null;

  async function handleBatch(values: Buffer[]): Promise<void> {
    const decoded: PipelineEvent[] = [];
    for (const [index, value] of values.entries()) decoded.push(await decodeAt((v) => events.decode(v), value, index));
    await projection.handle(decoded);
  }

  return {
    projection,
    async start() {
      if (subscription) return;
      await projection.start();
      subscription = await deps.log.subscribe({
        group: `${prefix}projection`,
        topics: deps.usage ? [topics.checksResults, topics.jobsEvents, topics.usageEvents] : [topics.checksResults, topics.jobsEvents],
        maxBatchSize: deps.maxBatchSize ?? DEFAULT_PROJECTION_BATCH,
        handleBatch: poisonSafe(handleBatch, (jobId) => projection.fail(jobId, UNREADABLE_MESSAGE)),
        deadLetterTopicOf,
      });
      deps.logger.child({ module: 'projection' }).info({ group: `${prefix}projection` }, 'projection.started');
    },
    async stop() {
      const current = subscription;
      subscription = null;
      await current?.close();
      await projection.stop();
    },
  };
}
