/**
 * The pipeline's topics (docs/architecture.md "Pipeline events"), created at boot through
 * EventLog.createTopics by every process that produces or consumes them, on Kafka and in the
 * embedded log alike.
 *
 * Retention follows the data: checks.rows and checks.results carry names and addresses, so they
 * keep hours, not days (docs/architecture.md: personal data at rest lives in ClickHouse until delete_after).
 * Six hours is long enough for a matcher or projection outage to be fixed without losing a job,
 * and short enough that the log is never the place personal data outlives its job. The other
 * topics hold ids, counts and list metadata only.
 */
import type { TopicDefinition } from '../services/platform/log/port.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** Topic names without a deployment prefix (services/pipeline/events.ts routes events to them). */
export const TOPIC_NAMES = {
  jobsEvents: 'jobs.events',
  checksRows: 'checks.rows',
  checksResults: 'checks.results',
  listsVersions: 'lists.versions',
  usageEvents: 'usage.events',
} as const;

const definitions: readonly TopicDefinition[] = [
  // Job lifecycle, keyed by job id: the projection owns a job through its partition.
  { name: TOPIC_NAMES.jobsEvents, partitions: 6, retentionMs: 7 * DAY, compacted: false },
  // Input rows in chunks, keyed by job and chunk: partitions bound how many matchers work at once.
  { name: TOPIC_NAMES.checksRows, partitions: 12, retentionMs: 6 * HOUR, compacted: false },
  // Match results, keyed by job id.
  { name: TOPIC_NAMES.checksResults, partitions: 12, retentionMs: 6 * HOUR, compacted: false },
  // List versions, keyed by list id: the latest state per list is all a matcher needs.
  { name: TOPIC_NAMES.listsVersions, partitions: 1, retentionMs: null, compacted: true },
  // Billing and receipts, keyed by organisation; ClickHouse keeps the history.
  { name: TOPIC_NAMES.usageEvents, partitions: 6, retentionMs: 14 * DAY, compacted: false },
];

/** The consumed topics whose unrecoverable messages are dead-lettered (matcher, projection). */
const DEAD_LETTERED: readonly string[] = [TOPIC_NAMES.jobsEvents, TOPIC_NAMES.checksRows, TOPIC_NAMES.checksResults];

/** The dead-letter topic of a (prefixed) topic: `<topic>.dlq`. */
export function deadLetterTopicOf(topic: string): string {
  return `${topic}.dlq`;
}

/**
 * Dead-letter topics hold messages as they arrived (checks.* ones: names and addresses), so each
 * keeps exactly its source's retention; one partition, since only a poison message lands there.
 */
const deadLetterDefinitions: readonly TopicDefinition[] = definitions
  .filter((definition) => DEAD_LETTERED.includes(definition.name))
  .map((definition) => ({ ...definition, name: deadLetterTopicOf(definition.name), partitions: 1 }));

/**
 * Every pipeline topic, names prefixed by `prefix` (config KAFKA_TOPIC_PREFIX) so deployments and
 * test runs can share one broker.
 */
export function pipelineTopics(prefix = ''): TopicDefinition[] {
  return [...definitions, ...deadLetterDefinitions].map((definition) => ({ ...definition, name: prefix + definition.name }));
}
