import { setTimeout as sleep } from 'node:timers/promises';
// Before kafkajs loads: it takes its checksum function when it does.
import './kafkajs-crc32c.ts';
import {
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type KafkaMessage,
  type LogEntry,
  type Producer,
} from 'kafkajs';
import { errorFields, type Logger } from '../logger.ts';
import './kafkajs-negative-timeout.ts';
import './kafkajs-encoder-buffers.ts';
import { createBackoff, deliverBatch, type PublishOne } from './dead-letter.ts';
import {
  DEFAULT_MAX_BATCH_SIZE,
  UnknownTopicError,
  type EventLog,
  type LogMessage,
  type MessageHeaders,
  type OutgoingMessage,
  type SubscribeOptions,
  type Subscription,
  type TopicDefinition,
} from './port.ts';

/**
 * The event log on Apache Kafka through kafkajs 2.2.4 (the only file that imports kafkajs, so a
 * maintained client can replace it here alone; kafkajs-negative-timeout.ts mends one of its
 * timers). Proved against the broker pinned in
 * infra/local/kafka/pom.xml by test/integration/event-log.kafka.test.ts and
 * kafka-behaviour.test.ts.
 *
 * Commits are explicit: offsets are committed after `handleBatch` resolves, never on a timer, and
 * a batch whose handler throws is fetched again from its first message.
 */
export interface KafkaEventLogOptions {
  brokers: readonly string[];
  logger: Logger;
  clientId?: string;
  /** Replicas of created topics; 1 for a single broker (tests, docker-compose). */
  replicationFactor?: number;
  /** A member that sends no heartbeat for this long loses its partitions; default 30 s. */
  sessionTimeoutMs?: number;
  /** Default 3 s; a third of the session timeout or less. Also how fast members see a rebalance. */
  heartbeatIntervalMs?: number;
  /** How long the group waits for members to rejoin in a rebalance; default 60 s. */
  rebalanceTimeoutMs?: number;
  /** Longest a fetch waits for new messages (and so a close or rebalance waits); default 500 ms. */
  maxWaitTimeMs?: number;
  /** How long `subscribe` waits for the first group join; default 60 s. */
  joinTimeoutMs?: number;
  /**
   * Retries of a failed request (publish, metadata, a consumer's restart), 0.3 s doubling up to 10 s
   * between them; default 10 (≈ 60 s in all: a broker restart on a quiet machine takes seconds).
   */
  retries?: number;
  /** How long `createTopics` waits for the broker to serve every partition it created; default 60 s. */
  topicReadyTimeoutMs?: number;
}

/**
 * Errors of a metadata request while the broker is still applying a topic its controller just
 * created: the broker's metadata cache lags the controller's commit, by seconds when it is busy
 * creating other partitions (seen as 'This server does not host this topic-partition').
 */
const NOT_SERVED_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER']);

/** Produce requests the producer keeps unacknowledged per broker connection (Kafka's own default). */
const MAX_IN_FLIGHT_REQUESTS = 5;

/**
 * Per-key order with several requests in flight (port.ts: same key, publish order): a publish
 * waits until every earlier publish that holds one of its keys on the same topic has settled, so
 * two messages of one key are never in flight at once and a retried request cannot overtake a
 * later one of the same key. Publishes of disjoint keys go out side by side. Null keys promise no
 * order and are not tracked.
 */
export function createKeyOrder() {
  const last = new Map<string, Promise<void>>();
  return {
    take(topic: string, messages: readonly { key: string | null }[]): { ready: Promise<void>; done: () => void } {
      const ids = new Set<string>();
      for (const message of messages) if (message.key !== null) ids.add(`${topic}\u0000${message.key}`);
      const earlier = new Set<Promise<void>>();
      for (const id of ids) {
        const previous = last.get(id);
        if (previous) earlier.add(previous);
      }
      let done!: () => void;
      const settled = new Promise<void>((resolve) => { done = resolve; });
      for (const id of ids) last.set(id, settled);
      return {
        ready: earlier.size === 0 ? Promise.resolve() : Promise.all(earlier).then(() => undefined),
        done: () => {
          done();
          for (const id of ids) if (last.get(id) === settled) last.delete(id);
        },
      };
    },
    /** Keys with a publish in flight or waiting (for tests: nothing is kept once all settled). */
    get size() {
      return last.size;
    },
  };
}

/** Largest record batch a topic accepts (topic config max.message.bytes). */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;

export function createKafkaEventLog(options: KafkaEventLogOptions): EventLog {
  const logger = options.logger.child({ module: 'event-log', adapter: 'kafka' });
  const retryOptions = { initialRetryTime: 300, maxRetryTime: 10_000, retries: options.retries ?? 10 };
  const kafka = new Kafka({
    clientId: options.clientId ?? 'robinson',
    brokers: [...options.brokers],
    connectionTimeout: 3000,
    // Generous retries: a broker restart (seconds) must not fail a publish or crash a consumer.
    retry: retryOptions,
    logLevel: logLevel.INFO,
    logCreator: () => (entry) => forward(logger, entry),
  });
  const subscriptions = new Set<Subscription>();
  let producer: Promise<Producer> | undefined;
  let admin: Promise<Admin> | undefined;

  function connected<T extends Producer | Admin>(create: () => T): Promise<T> {
    const client = create();
    return client.connect().then(() => client);
  }

  function producerClient(): Promise<Producer> {
    producer ??= connected(() =>
      kafka.producer({
        allowAutoTopicCreation: false,
        // Several requests in flight per broker, so publishes of different keys (a job's row
        // appends) do not wait for each other's acknowledgement. Per-key order is kept by
        // `publish` instead (no two publishes of one key are in flight at once), not by the
        // idempotent producer, which kafkajs marks experimental and whose concurrent sends fail
        // with OUT_OF_ORDER_SEQUENCE_NUMBER.
        maxInFlightRequests: MAX_IN_FLIGHT_REQUESTS,
        createPartitioner: Partitioners.DefaultPartitioner,
      }),
    ).catch((error: unknown) => {
      producer = undefined;
      throw error;
    });
    return producer;
  }

  function adminClient(): Promise<Admin> {
    admin ??= connected(() => kafka.admin()).catch((error: unknown) => {
      admin = undefined;
      throw error;
    });
    return admin;
  }

  const keyOrder = createKeyOrder();

  async function publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // Taken before the first await, so the order of calls is the order of the keys' turns.
    const turn = keyOrder.take(topic, messages);
    try {
      await turn.ready;
      const client = await producerClient();
      await client.send({ topic, acks: -1, messages: messages.map(toKafkaMessage) });
    } catch (error) {
      if (errorType(error) === 'UNKNOWN_TOPIC_OR_PARTITION') throw new UnknownTopicError(topic);
      throw error;
    } finally {
      turn.done();
    }
  }
  const publishOne: PublishOne = (topic, message) => publish(topic, [message]);

  return {
    async createTopics(definitions) {
      if (definitions.length === 0) return;
      const client = await adminClient();
      // Existing topics come back as TOPIC_ALREADY_EXISTS, which kafkajs turns into `false`.
      // kafkajs's own waitForLeaders gives up on the first UNKNOWN_TOPIC_OR_PARTITION, which a busy
      // broker answers for a topic its controller has created but it has not applied yet; so the
      // wait is ours, on the broker's own metadata.
      await client.createTopics({
        waitForLeaders: false,
        topics: definitions.map((definition) => ({
          topic: definition.name,
          numPartitions: definition.partitions,
          replicationFactor: options.replicationFactor ?? 1,
          configEntries: topicConfig(definition),
        })),
      });
      await untilServed(client, definitions.map((d) => d.name), options.topicReadyTimeoutMs ?? 60_000);
    },

    publish,

    async subscribe(subscribeOptions) {
      const group = subscribeOptions.group;
      const backoff = createBackoff(subscribeOptions);
      const joinTimeoutMs = options.joinTimeoutMs ?? 60_000;
      const firstJoin = settleOnce(joinTimeoutMs, `consumer did not join its group within ${joinTimeoutMs} ms`);
      let consumer: Consumer | undefined;
      let closing: Promise<void> | undefined;
      let restartTimer: NodeJS.Timeout | undefined;
      let restartDelayMs = 300; // back to 300 at every join

      /**
       * kafkajs restarts a crashed consumer itself only after errors it deems retriable, and a
       * consumer it gave up on stays stopped while the process runs (a broker restarted under
       * load in CI left a group without a member for minutes). So kafkajs never restarts one here
       * (`restartOnFailure` below): after every crash this subscription starts a fresh consumer,
       * 0.3 s doubling up to 30 s, until it closes. Only a crash before the first join that is
       * not worth retrying (a configuration error) fails `subscribe` instead.
       */
      const startConsumer = async (): Promise<void> => {
        const next = kafka.consumer({
          groupId: group,
          allowAutoTopicCreation: false,
          sessionTimeout: options.sessionTimeoutMs ?? 30_000,
          heartbeatInterval: options.heartbeatIntervalMs ?? 3000,
          rebalanceTimeout: options.rebalanceTimeoutMs ?? 60_000,
          maxWaitTimeInMs: options.maxWaitTimeMs ?? 500,
          retry: { ...retryOptions, restartOnFailure: async () => false },
          ...(subscribeOptions.maxBytesPerPartition ? {
            maxBytesPerPartition: subscribeOptions.maxBytesPerPartition,
            maxBytes: Math.max(10 * 1024 * 1024, subscribeOptions.maxBytesPerPartition),
          } : {}),
        });
        consumer = next;
        next.on(next.events.GROUP_JOIN, ({ payload }) => {
          const partitions = Object.values(payload.memberAssignment).reduce((sum, list) => sum + list.length, 0);
          logger.info({ group, member: payload.memberId, leader: payload.isLeader, partitions }, 'event_log.group_joined');
          restartDelayMs = 300;
          firstJoin.resolve();
        });
        next.on(next.events.CRASH, ({ payload }) => {
          if (!firstJoin.settled && !isRetriable(payload.error)) return firstJoin.reject(payload.error);
          restartLater(payload.error);
        });
        try {
          await next.connect();
          await next.subscribe({ topics: [...subscribeOptions.topics], fromBeginning: (subscribeOptions.startAt ?? 'earliest') === 'earliest' });
          await next.run({
            autoCommit: false,
            eachBatchAutoResolve: false,
            eachBatch: (payload) => handleBatch(payload, subscribeOptions, { logger, heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3000, backoff, publishOne }),
          });
          if (closing) await next.disconnect(); // closed while this restart was connecting
        } catch (error) {
          await next.disconnect().catch(() => undefined);
          if (!firstJoin.settled) return firstJoin.reject(error);
          restartLater(error);
        }
      };
      const restartLater = (error: unknown) => {
        if (closing || restartTimer) return;
        logger.warn({ group, ...errorFields(error), restart_in_ms: restartDelayMs }, 'event_log.consumer_restarting');
        restartTimer = setTimeout(() => {
          restartTimer = undefined;
          if (!closing) void startConsumer();
        }, restartDelayMs);
        restartDelayMs = Math.min(restartDelayMs * 2, 30_000);
      };

      try {
        if (subscribeOptions.startAt === 'latest') await commitStartAtEnd(await adminClient(), group, subscribeOptions.topics);
        await startConsumer();
        await firstJoin.promise;
      } catch (error) {
        closing = Promise.resolve();
        clearTimeout(restartTimer);
        await consumer?.disconnect().catch(() => undefined);
        throw error;
      }
      const subscription: Subscription = {
        close: () => {
          subscriptions.delete(subscription);
          clearTimeout(restartTimer);
          closing ??= consumer ? consumer.disconnect() : Promise.resolve();
          return closing;
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    async close() {
      await Promise.all([...subscriptions].map((subscription) => subscription.close()));
      const clients = [producer, admin].filter((client) => client !== undefined);
      producer = undefined;
      admin = undefined;
      await Promise.all(clients.map((client) => client.then((c) => c.disconnect()).catch(() => undefined)));
    },
  };
}

/**
 * Hands the fetched batch to the handler in slices of `maxBatchSize`, committing after each slice.
 * A throwing handler leaves its slice unresolved, so the next fetch of the partition starts there.
 */
async function handleBatch(
  payload: EachBatchPayload,
  options: SubscribeOptions,
  context: { logger: Logger; heartbeatIntervalMs: number; backoff: ReturnType<typeof createBackoff>; publishOne: PublishOne },
): Promise<void> {
  const { logger, heartbeatIntervalMs, backoff } = context;
  const { batch } = payload;
  const max = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
  for (let start = 0; start < batch.messages.length; start += max) {
    if (!payload.isRunning() || payload.isStale()) return;
    const slice = batch.messages.slice(start, start + max);
    const messages = slice.map((message) => toLogMessage(batch.topic, batch.partition, message));
    // kafkajs heartbeats only between fetches: keep the membership alive through a slow handler.
    const heartbeats = setInterval(() => void payload.heartbeat().catch(() => undefined), heartbeatIntervalMs);
    try {
      const { deadLettered } = await deliverBatch({ topic: batch.topic, partition: batch.partition, messages }, options, context.publishOne);
      if (deadLettered > 0) {
        logger.warn({ group: options.group, topic: batch.topic, partition: batch.partition, dead_lettered: deadLettered }, 'event_log.dead_lettered');
      }
      backoff.succeeded(batch.topic, batch.partition);
    } catch (error) {
      const delay = backoff.failed(batch.topic, batch.partition);
      logger.warn(
        { ...errorFields(error), group: options.group, topic: batch.topic, partition: batch.partition, offset: slice[0].offset, retry_in_ms: delay },
        'event_log.batch_failed',
      );
      await sleep(delay);
      return;
    } finally {
      clearInterval(heartbeats);
    }
    // The last slice resolves the batch's last offset, which also covers trailing control records.
    const last = start + max >= batch.messages.length ? batch.lastOffset() : slice[slice.length - 1].offset;
    payload.resolveOffset(last);
    await payload.commitOffsetsIfNecessary({
      topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(last) + 1n).toString() }] }],
    });
    await payload.heartbeat();
  }
}

/**
 * Resolves once the broker's metadata lists every partition of `topics` with a leader (what a
 * producer and a consumer group's assignment read); retries while the broker answers that it does
 * not serve them yet, fails on any other error or after `timeoutMs`.
 */
async function untilServed(admin: Admin, topics: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let waitingFor = 'metadata';
  for (let pause = 50; ; pause = Math.min(pause * 2, 500)) {
    try {
      const { topics: described } = await admin.fetchTopicMetadata({ topics });
      const unready = described.filter((t) => t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0 || p.partitionErrorCode !== 0));
      if (unready.length === 0 && described.length === topics.length) return;
      waitingFor = `leaders of ${unready.map((t) => t.name).join(', ')}`;
    } catch (error) {
      const type = errorType(error);
      if (!type || !NOT_SERVED_YET.has(type)) throw error;
      waitingFor = type;
    }
    if (Date.now() + pause > deadline) throw new Error(`the broker did not serve the new topics within ${timeoutMs} ms (still ${waitingFor})`);
    await sleep(pause);
  }
}

/** A promise settled once, by the first of resolve, reject or its timeout. */
function settleOnce(timeoutMs: number, timeoutMessage: string) {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const state = {
    settled: false,
    promise,
    resolve: () => settle(resolve),
    reject: (error: unknown) => settle(() => reject(error)),
  };
  const timer = setTimeout(() => state.reject(new Error(timeoutMessage)), timeoutMs);
  timer.unref(); // a failed subscribe must not keep the process alive
  function settle(action: () => void) {
    if (state.settled) return;
    state.settled = true;
    clearTimeout(timer);
    action();
  }
  return state;
}

/** What kafkajs itself would restart after: its retries ran out, or the root cause is retriable. */
function isRetriable(error: unknown): boolean {
  if (error instanceof Error && error.name === 'KafkaJSNumberOfRetriesExceeded') return true;
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause) cause = cause.cause;
  return (cause as { retriable?: unknown } | undefined)?.retriable === true;
}

/**
 * Starts a group that has no committed offset at the topics' current ends by committing those
 * ends for it, before its consumer joins (port.ts "startAt"). Left to the consumer, 'latest' was
 * taken at its first fetch after the join, and taken again by a member that lost its session
 * before its first commit: under load a bench's results watcher (session 6 s) was removed from
 * its group during a job's intake, rejoined 20-30 s later at the new end and waited for the
 * chunks published meanwhile for good (docs/performance.md "Measurements"). A committed start
 * holds for every later member of the group; a group with commits keeps them. kafkajs commits it
 * with a consumer of its own that joins and leaves the empty group (one join more, for 'latest'
 * only: the bench's watchers; the services start at 'earliest').
 */
async function commitStartAtEnd(admin: Admin, groupId: string, topics: readonly string[]): Promise<void> {
  const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
  if (committed.some(({ partitions }) => partitions.some((p) => Number(p.offset) >= 0))) return;
  for (const topic of topics) {
    const ends = await admin.fetchTopicOffsets(topic);
    await admin.setOffsets({ groupId, topic, partitions: ends.map((p) => ({ partition: p.partition, offset: p.high })) });
  }
}

function topicConfig(definition: TopicDefinition): Array<{ name: string; value: string }> {
  const entries = [
    { name: 'cleanup.policy', value: definition.compacted ? 'compact' : 'delete' },
    { name: 'retention.ms', value: String(definition.retentionMs ?? -1) },
    // One publish goes to a partition as one record batch; Kafka's 1 MB default refuses the job
    // intake's appends (up to 8 row chunks of 256 KiB).
    { name: 'max.message.bytes', value: String(MAX_BATCH_BYTES) },
  ];
  // Retention removes whole segments only: roll them often enough that short retention holds.
  if (definition.retentionMs !== null) {
    entries.push({ name: 'segment.ms', value: String(Math.max(60_000, Math.min(definition.retentionMs / 6, 7 * 86_400_000))) });
  }
  return entries;
}

function toKafkaMessage(message: OutgoingMessage): { key: string | null; value: Buffer | string | null; headers?: IHeaders } {
  const value = message.value;
  return {
    key: message.key,
    value: value === null || typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
    headers: message.headers,
  };
}

function toLogMessage(topic: string, partition: number, message: KafkaMessage): LogMessage {
  const headers: MessageHeaders = {};
  for (const [name, raw] of Object.entries(message.headers ?? {})) {
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value !== undefined) headers[name] = value.toString();
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key === null ? null : message.key.toString('utf8'),
    value: message.value,
    headers,
    timestamp: Number(message.timestamp),
  };
}

function errorType(error: unknown): string | undefined {
  const candidate = error as { type?: string; originalError?: { type?: string } } | undefined;
  return candidate?.type ?? candidate?.originalError?.type;
}

/** kafkajs logs through our Logger: its INFO chatter (joins, connects) becomes debug. */
function forward(logger: Logger, entry: LogEntry): void {
  const { message, timestamp: _timestamp, logger: _name, ...fields } = entry.log;
  const context = { ...fields, kafkajs: entry.namespace, detail: message };
  if (entry.level === logLevel.ERROR) logger.error(context, 'event_log.kafka_client');
  else if (entry.level === logLevel.WARN) logger.warn(context, 'event_log.kafka_client');
  else logger.debug(context, 'event_log.kafka_client');
}
