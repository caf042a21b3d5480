import type { PrivateListIndexes } from '../registers/lists/private-indexes.ts';
import type { ActiveListIndex } from '../registers/lists/active-index.ts';
import type { EventLog, SubscribeOptions, Subscription } from '../platform/log/port.ts';
import type { Logger } from '../platform/logger.ts';
import type { SchemaRegistry } from '../platform/schema-registry/port.ts';
import { deadLetterTopicOf } from '../../infra/topics.ts';
import { createPipelineEvents, topicNames, type PipelineDataKeys } from '../pipeline/events.ts';
import { poisonSafe } from '../pipeline/poison.ts';
import { createMatcherCore, type MatcherCoreDeps, type MatcherRegisters } from './matcher.ts';

/**
 * The matcher process's service: one member of the consumer group `<prefix>matcher` on
 * checks.rows. Any number run side by side (the partitions of checks.rows bound how many work at
 * once); each may be killed at any moment, its uncommitted chunks then go to another member.
 * `start` joins the group, `stop` leaves it after the batch in flight.
 */
export interface Matcher {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface MatcherDeps {
  log: EventLog;
  registry: SchemaRegistry;
  /** Builds (and caches) the index of a pinned version from the list store. */
  activeIndex: Pick<ActiveListIndex, 'forVersion'>;
  /** Company register and phone directory for jobs with company or phone checks. */
  registers?: MatcherRegisters;
  /** Organisations' private list indexes (jobs with use_private_list); absent: such jobs fail (`private_list_unavailable`). */
  privateLists?: Pick<PrivateListIndexes, 'forVersion' | 'versionRef'>;
  logger: Logger;
  topicPrefix?: string;
  /** The job data keys rows and results are sealed with (the platform's). */
  dataKeys?: PipelineDataKeys;
  /** Row chunks per batch (each up to 2,000 rows); small, so a batch's results go out soon. */
  maxBatchChunks?: number;
  /** Stores results instead of publishing them (the embedded deployment, MatcherCoreDeps.results). */
  results?: MatcherCoreDeps['results'];
  /** This thread's share of checks.rows' partitions (SubscribeOptions.share; the embedded matcher threads). */
  share?: SubscribeOptions['share'];
}

const DEFAULT_MATCHER_BATCH_CHUNKS = 4;

export function createMatcher(deps: MatcherDeps): Matcher {
  const prefix = deps.topicPrefix ?? '';
  const events = createPipelineEvents({ log: deps.log, registry: deps.registry, topicPrefix: prefix, ...(deps.dataKeys ? { dataKeys: deps.dataKeys } : {}) });
  const core = createMatcherCore({
    events, activeIndex: deps.activeIndex, logger: deps.logger, ...(deps.privateLists ? { privateLists: deps.privateLists } : {}),
    ...(deps.registers ? { registers: deps.registers } : {}), ...(deps.results ? { results: deps.results } : {}),
  });
  let subscription: Subscription | null = null;
  return {
    async start() {
      if (subscription) return;
      subscription = await deps.log.subscribe({
        group: `${prefix}matcher`,
        topics: [topicNames(prefix).checksRows],
        maxBatchSize: deps.maxBatchChunks ?? DEFAULT_MATCHER_BATCH_CHUNKS,
        handleBatch: poisonSafe((values) => core.handleBatch(values), (jobId, error) => core.failJob(jobId, error)),
        deadLetterTopicOf,
        ...(deps.share ? { share: deps.share } : {}),
      });
      deps.logger.child({ module: 'matcher' }).info({ group: `${prefix}matcher` }, 'matcher.started');
    },
    async stop() {
      const current = subscription;
      subscription = null;
      await current?.close();
    },
  };
}
