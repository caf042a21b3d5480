import type { EventLog, MessageBatch, Subscription } from '../platform/log/port.ts';
import { isPermanent } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import type { SchemaRegistry } from '../platform/schema-registry/port.ts';
import type { JobRecord, JobStore } from '../platform/store/jobs-port.ts';
import type { UsageStore } from '../platform/store/usage-port.ts';
import type { MonitorRunResults } from '../ingest/monitors/run-results.ts';
import { deadLetterTopicOf } from '../../infra/topics.ts';
import {
  createPipelineEvents, topicNames, type PipelineDataKeys, type PipelineEvent, type PipelineEvents, type ResultsChunkEvent,
} from '../pipeline/events.ts';
import { decodeAt, poisonSafe, PoisonMessageError, UNPROCESSABLE_MESSAGE } from '../pipeline/poison.ts';
import { createCallbackSender, DEFAULT_TIMEOUT_MS, type CallbackSenderDeps } from './callbacks/index.ts';
import { createProjection, type Projection } from './projection.ts';

/**
 * The projection process's service: the consumer group `<prefix>projection` on checks.results and
 * jobs.events, feeding decoded batches to the projection (projection.ts), plus its timers
 * (count refresh, stalled intakes) and callback deliveries; its retention pass runs on the
 * process's retention timer (services/processes.ts). Run one per deployment: a job's events are
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
  /** Silence after which a job's intake counts as dead and the job is failed (projection.ts). */
  intakeStaleMs?: number;
  /** Messages per batch; results chunks of a batch go to the store in one write per job. */
  maxBatchSize?: number;
  clock?: () => Date;
  /** Signs done jobs' certificates; absent: done jobs get none. */
  signCertificate?: (claims: object) => Promise<string>;
  /** Billable usage; with it the service also consumes usage.events. */
  usage?: UsageStore;
  /** Monitor re-checks' changes (services/ingest/monitors/run-results.ts); absent: monitor jobs are plain jobs. */
  monitorRuns?: MonitorRunResults;
}

export const DEFAULT_PROJECTION_BATCH = 16;
/**
 * Bytes fetched from one partition at a time. All of a job's results are on one partition, and a
 * sealed chunk of 2,000 results is ~370 KB: at Kafka's default 1 MiB a batch held two or three
 * chunks, so a 1,000,000-row job cost ~200 store writes (each with its reads). 8 MiB lets a batch
 * reach DEFAULT_PROJECTION_BATCH chunks (docs/architecture.md "Round trips").
 */
const PROJECTION_FETCH_BYTES = 8 * 1024 * 1024;
/** What a callback lease adds to the attempt timeout: room for the outcome's write to the store. */
const CALLBACK_LEASE_MARGIN_MS = 10_000;

/** The projection of these deps, publishing JobStateChanged through `events`. */
function projectionOf(deps: ResultsWriterDeps, events: PipelineEvents, resultsOnly: boolean): Projection {
  return createProjection({
    jobs: deps.jobs,
    events,
    callbacks: createCallbackSender({ logger: deps.logger, ...deps.callbacks }),
    renderJob: deps.renderJob,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.countIntervalMs !== undefined ? { countIntervalMs: deps.countIntervalMs } : {}),
    ...(deps.intakeStaleMs !== undefined ? { intakeStaleMs: deps.intakeStaleMs } : {}),
    ...(deps.signCertificate ? { signCertificate: deps.signCertificate } : {}),
    ...(deps.usage ? { usage: deps.usage } : {}),
    ...(deps.monitorRuns ? { monitorRuns: deps.monitorRuns } : {}),
    // A lease outlasts one attempt (the callback timeout) and the write of its outcome.
    callbackLeaseMs: (deps.callbacks?.timeoutMs ?? DEFAULT_TIMEOUT_MS) + CALLBACK_LEASE_MARGIN_MS,
    resultsOnly,
    ...(deps.rowWriters ? { rowWriters: deps.rowWriters } : {}),
  });
}

export function createProjectionService(deps: ProjectionServiceDeps): ProjectionService {
  const prefix = deps.topicPrefix ?? '';
  const topics = topicNames(prefix);
  const events = createPipelineEvents({ log: deps.log, registry: deps.registry, topicPrefix: prefix, ...(deps.dataKeys ? { dataKeys: deps.dataKeys } : {}) });
  const projection = projectionOf(deps, events, false);
  let subscription: Subscription | null = null;

  return {
    projection,
    async start() {
      if (subscription) return;
      await projection.start();
      subscription = await deps.log.subscribe({
        group: `${prefix}projection`,
        topics: deps.usage ? [topics.checksResults, topics.jobsEvents, topics.usageEvents] : [topics.checksResults, topics.jobsEvents],
        maxBatchSize: deps.maxBatchSize ?? DEFAULT_PROJECTION_BATCH,
        maxBytesPerPartition: PROJECTION_FETCH_BYTES,
        handleBatch: projectionBatchHandler(events, projection),
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

/**
 * The projection's results side without a consumer of its own: the embedded matcher stores the
 * results it makes through it (docs/architecture.md "Projection"), the same job tracker as the
 * projection service's (counts, completion, certificate, usage, monitor runs, callback dispatch),
 * beside a projection service that keeps everything else. `start` runs its count refresh; `stop`
 * waits for work in flight (a callback it was sending stays pending for the projection service).
 */
export interface ResultsWriter {
  /**
   * Stores the chunks' results; resolves when they are durable. A chunk whose handling fails for
   * good is named by its place in `chunks` (PoisonMessageError); anything else is thrown as it is.
   */
  store(chunks: ResultsChunkEvent[]): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type ResultsWriterDeps = Omit<ProjectionServiceDeps, 'log' | 'registry' | 'topicPrefix' | 'dataKeys' | 'maxBatchSize'> & {
  /** How many results writers store one job's rows side by side (the embedded matcher threads; job-tracker.ts). */
  rowWriters?: number;
};

/** `events` publishes the JobStateChanged of the jobs it moves (running, done) on jobs.events. */
export function createResultsWriter(deps: ResultsWriterDeps, events: PipelineEvents): ResultsWriter {
  const projection = projectionOf(deps, events, true);
  return {
    async store(chunks) {
      const decoded = chunks.map((value): PipelineEvent => ({ type: 'ResultsChunk', value }));
      try {
        await projection.handle(decoded);
      } catch (error) {
        if (!isPermanent(error)) throw error;
        throw await pinPermanentFailure(projection, decoded, error);
      }
    },
    start: () => projection.start(),
    stop: () => projection.stop(),
  };
}

/**
 * The projection's consumer handler: decodes a batch and hands it to the projection. Whether a
 * failure is for good is isPermanent's to say (services/platform/errors.ts): a message that
 * cannot be read, or one whose handling fails permanently (a store refusing it for good), fails
 * its job and is dead-lettered (poison.ts); anything else is thrown and the batch redelivered.
 */
export function projectionBatchHandler(
  events: Pick<PipelineEvents, 'decode'>,
  projection: Pick<Projection, 'handle' | 'fail'>,
): (batch: MessageBatch) => Promise<void> {
  async function handleBatch(values: Buffer[]): Promise<void> {
    const decoded: PipelineEvent[] = [];
    for (const [index, value] of values.entries()) decoded.push(await decodeAt((v) => events.decode(v), value, index));
    try {
      await projection.handle(decoded);
    } catch (error) {
      if (!isPermanent(error)) throw error;
      throw await pinPermanentFailure(projection, decoded, error);
    }
  }
  return poisonSafe(handleBatch, (jobId, jobError) => projection.fail(jobId, jobError));
}

/**
 * Which message of the batch failed for good: each is handled again on its own (every step is
 * idempotent, projection.ts), and the first whose handling fails permanently is the one. A
 * transient failure on the way is thrown as it is (the batch is redelivered); when none fails
 * now, the original error is, and the batch is redelivered too.
 */
async function pinPermanentFailure(projection: Pick<Projection, 'handle'>, decoded: PipelineEvent[], original: unknown): Promise<unknown> {
  for (const [index, event] of decoded.entries()) {
    try {
      await projection.handle([event]);
    } catch (error) {
      return isPermanent(error) ? new PoisonMessageError(index, UNPROCESSABLE_MESSAGE, error) : error;
    }
  }
  return original;
}
