import { ClassifiedError, PermanentError } from '../errors.ts';

/**
 * The event log: the one interface every producer and consumer of the pipeline's topics uses.
 * Adapters: `kafka.ts` (Apache Kafka through kafkajs) and `embedded.ts` (node:sqlite, the
 * one-process default). test/contract/event-log.contract.ts holds both to the same promises.
 *
 * What it promises:
 * - `publish` appends keyed messages to a topic; when its promise resolves they are durable
 *   (Kafka: acknowledged by all in-sync replicas; embedded: committed to the database file).
 *   A publish that failed or that the client retried may have appended some of its messages
 *   already (Kafka: a broker that appended to some partitions of a request and answered others
 *   with a retriable error, e.g. one it does not serve yet, or that restarted mid-request): the
 *   log may then hold a message twice, at two offsets. Consumers see both (handlers are
 *   idempotent anyway).
 * - Messages with the same key land in the same partition and are delivered in publish order:
 *   the order of the `publish` calls, also of calls made before the previous one resolved (the
 *   Kafka adapter keeps several publishes of different keys in flight, never two of one key).
 *   There is no order between different keys, nor between topics.
 * - Consumer groups: each partition of a subscribed topic is owned by one member of a group at a
 *   time; every group gets every message. Delivery is at-least-once: a batch's offsets are
 *   committed only after its handler resolves. A handler that throws gets the same messages
 *   again (after `retryDelayMs`), and so does the next owner of a partition whose previous owner
 *   died or lost it mid-batch. Handlers must therefore be idempotent.
 * - Batches of different partitions may be handled concurrently; do not rely on either order.
 * - A group with no committed offset starts at the earliest retained message (`startAt`
 *   changes that); afterwards it resumes after its last commit, also across restarts.
 * - `createTopics` creates the topics that do not exist yet and leaves existing ones unchanged.
 * - `close` stops every subscription (waiting for batches in flight) and releases connections.
 *
 * - Errors are classified by type (docs/architecture.md "Conventions"). Any error a handler throws is transient: the
 *   batch is delivered again, after a delay that doubles with each consecutive failure of the
 *   partition (`retryDelayMs` up to `maxRetryDelayMs`). An `UnrecoverableMessageError` names one
 *   message that can never be handled (it cannot be decoded, its schema is unknown, it breaks an
 *   invariant): with `deadLetterTopicOf` set, that message goes to its dead-letter topic as it
 *   arrived (key, value bytes and headers) plus `dlq.*` headers naming its origin and the error
 *   (see DEAD_LETTER_HEADERS), the other messages of the batch are handled without it, and the
 *   partition moves on. Without `deadLetterTopicOf` it is retried like any other error.
 *   Dead-lettering is at least once too: a batch retried after it may dead-letter again.
 *
 * What it does not promise: exactly-once, transactions across topics, or order across
 * partitions. Retention deletes messages by age whether or not a group has read them.
 */

/** One topic of the pipeline (infra/topics.ts lists them). */
export interface TopicDefinition {
  name: string;
  /** Upper bound of consumer parallelism for the topic. */
  partitions: number;
  /** Messages older than this are deleted; null keeps them (subject to compaction). */
  retentionMs: number | null;
  /** Keep only the latest message per key (a table as a log: list versions). */
  compacted: boolean;
}

/** Header values are strings; binary metadata belongs in the value. */
export type MessageHeaders = Record<string, string>;

export interface OutgoingMessage {
  /** Partitioning key: same key, same partition, same order. null spreads messages round-robin. */
  key: string | null;
  /** The payload; null is a tombstone (deletes the key on a compacted topic). */
  value: Uint8Array | string | null;
  headers?: MessageHeaders;
}

export interface LogMessage {
  topic: string;
  partition: number;
  /** Position in the partition, a decimal string (Kafka offsets exceed 2^53 in principle). */
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: MessageHeaders;
  /** Milliseconds since the epoch when the log accepted the message. */
  timestamp: number;
}

/** Consecutive messages of one partition, in offset order. */
export interface MessageBatch {
  topic: string;
  partition: number;
  messages: LogMessage[];
}

export interface SubscribeOptions {
  /** Consumer group: members share partitions, other groups get their own copy of everything. */
  group: string;
  topics: readonly string[];
  /**
   * Processes one batch. Resolving commits every message of the batch; throwing commits nothing
   * and the batch (or a batch starting at the same offset) is delivered again.
   */
  handleBatch(batch: MessageBatch): Promise<void>;
  /**
   * Where a group without a committed offset starts; default 'earliest'. With 'latest', `subscribe`
   * resolves once the start is fixed: every message published after it resolves is delivered, also
   * to a later member of the group (one that rejoined after losing its session before any commit).
   */
  startAt?: 'earliest' | 'latest';
  /** Most messages handed to one `handleBatch` call; default 500. */
  maxBatchSize?: number;
  /**
   * Most bytes fetched from one partition at a time (Kafka; the embedded log reads by count only).
   * Default 1 MiB: a batch of large messages (sealed results chunks) is then a few messages,
   * whatever `maxBatchSize` says.
   */
  maxBytesPerPartition?: number;
  /** Pause before redelivering a batch whose handler threw; default 1000 ms, doubled per consecutive failure. */
  retryDelayMs?: number;
  /** Longest pause between redeliveries of a failing partition; default 5,000 ms. */
  maxRetryDelayMs?: number;
  /**
   * The dead-letter topic of a source topic (it must exist, like any topic). Without it an
   * UnrecoverableMessageError is retried like a transient error.
   */
  deadLetterTopicOf?: (topic: string) => string;
  /**
   * Embedded log only: this member takes partitions `p` with `p % of === member` and no others.
   * The embedded log coordinates a group within one log instance, so members of one group in
   * several threads of a process (the embedded default's matcher threads, each with its own log
   * on the file) split the partitions by this fixed share instead. Kafka's coordinator shares
   * partitions itself; the Kafka adapter ignores it.
   */
  share?: { member: number; of: number };
}

export interface Subscription {
  /** Leaves the group (its partitions move to the other members) after batches in flight end. */
  close(): Promise<void>;
}

export interface EventLog {
  /** Creates the missing topics; idempotent. */
  createTopics(definitions: readonly TopicDefinition[]): Promise<void>;
  /** Appends messages to one topic; resolves when they are durable. Unknown topics are an error. */
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /** Joins a consumer group; resolves once the member has joined and deliveries can begin. */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Closes every subscription and the connections. The log is unusable afterwards. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BATCH_SIZE = 500;
export const DEFAULT_RETRY_DELAY_MS = 1000;
export const DEFAULT_MAX_RETRY_DELAY_MS = 5_000;

/** Headers a dead-lettered message carries besides its own (all strings, no message content). */
export const DEAD_LETTER_HEADERS = {
  topic: 'dlq.origin.topic',
  partition: 'dlq.origin.partition',
  offset: 'dlq.origin.offset',
  /** The original key, also kept as the message key; `-` for a null key. */
  key: 'dlq.origin.key',
  error: 'dlq.error',
  reason: 'dlq.reason',
  failedAt: 'dlq.failed_at',
} as const;

/**
 * A message that can never be handled (not retriable): thrown by a `handleBatch` for the message
 * `offending` of its batch. `reason` is a short machine-readable text without message content
 * (no personal data: it goes into the dead letter's headers and the logs).
 */
export class UnrecoverableMessageError extends PermanentError {
  override readonly name = 'UnrecoverableMessageError';
  readonly offending: LogMessage;
  readonly reason: string;
  constructor(offending: LogMessage, reason: string, options?: { cause?: unknown }) {
    super(`unrecoverable message at ${offending.topic}/${offending.partition}@${offending.offset}: ${reason}`, options);
    this.offending = offending;
    this.reason = reason;
  }
}

/** Publishing to a topic that was never created (topics are created from definitions only). */
export class UnknownTopicError extends ClassifiedError {
  override readonly name = 'UnknownTopicError';
  readonly topic: string;
  constructor(topic: string) {
    super(`topic ${topic} does not exist; create it from its definition first`);
    this.topic = topic;
  }
}
