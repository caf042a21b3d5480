import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorFields, type Logger } from '../logger.ts';
import { createBackoff, deliverBatch, type PublishOne } from './dead-letter.ts';
import { createEmbeddedLogStorage, type EmbeddedLogStorage } from './embedded-storage.ts';
import {
  DEFAULT_MAX_BATCH_SIZE,
  type EventLog,
  type OutgoingMessage,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';

/**
 * The embedded event log (the one-process default): messages and committed offsets in the
 * node:sqlite database, so a restart loses nothing that `publish` acknowledged and consumer groups
 * resume after their last commit. Same semantics as Kafka within one process: partitions by key
 * hash, one owner per partition per group, at-least-once with commit after the handler.
 *
 * What a batch's handler publishes is appended in the transaction that commits the batch's offset
 * (docs/platform-event-log.md "Adapters"): a handler that throws publishes nothing, and a crash
 * keeps both or neither. Inside a handler `publish` resolves once the messages are taken; they are
 * durable when the handler's batch is.
 *
 * Groups are coordinated in memory: two processes opening the same file would each run their own
 * members of a group (the embedded default is one process). Retention and compaction run on
 * publish, at most once per `pruneIntervalMs`; no timers run by themselves.
 */
export interface EmbeddedEventLogOptions {
  /** An open database (openEmbeddedDatabase); the caller closes it after `close`. */
  db: DatabaseSync;
  logger: Logger;
  now?: () => number;
  /** Idle partitions look for messages written by another connection this often. */
  pollIntervalMs?: number;
  /**
   * A BroadcastChannel name shared by the logs of one file in this process (the API thread and
   * the matcher and projection workers of the embedded default): each append wakes the others'
   * idle partitions at once instead of at their next poll, a poll interval saved at every hop of a
   * job (docs/platform-event-log.md "Adapters"). Absent: polling only (another process's writes
   * are always seen by polling).
   */
  wakeChannel?: string;
  pruneIntervalMs?: number;
}

interface Member {
  id: number;
  options: SubscribeOptions;
  /** Batches this member's handler is processing now. */
  inFlight: Set<Promise<void>>;
  backoff: ReturnType<typeof createBackoff>;
  left?: Promise<void>;
}

/** What a batch's handler published, while the batch is in flight (`open`). */
interface BatchAppends {
  open: boolean;
  appends: Array<{ topic: string; messages: readonly OutgoingMessage[] }>;
}

interface Group {
  name: string;
  members: Member[];
  /** topic → partition → owning member (none: another thread's share), recomputed whenever membership changes. */
  owners: Map<string, Array<Member | undefined>>;
  /** Partition workers currently running, by `${topic}/${partition}`. */
  workers: Set<string>;
}

export function createEmbeddedEventLog(options: EmbeddedEventLogOptions): EventLog {
  const logger = options.logger.child({ module: 'event-log', adapter: 'embedded' });
  const now = options.now ?? Date.now;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const pruneIntervalMs = options.pruneIntervalMs ?? 60_000;
  const storage: EmbeddedLogStorage = createEmbeddedLogStorage(options.db);
  const groups = new Map<string, Group>();
  const wakers = new Set<() => void>();
  let nextMemberId = 1;
  /** The batch whose handler is running in this async context (per log: its own database). */
  const inBatch = new AsyncLocalStorage<BatchAppends>();
  let lastPrune = 0;
  let closed = false;
  const channel = options.wakeChannel === undefined ? null : new BroadcastChannel(options.wakeChannel);
  if (channel) {
    channel.onmessage = () => wakeAll();
    // A wake-up is no reason to keep a thread alive.
    (channel as unknown as { unref(): void }).unref();
  }

  /** Wakes every idle worker (a publish, a rebalance or close happened). */
  function wakeAll(): void {
    for (const wake of wakers) wake();
  }

  function idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });
  }

  function rebalance(group: Group): void {
    group.owners.clear();
    const topics = new Set(group.members.flatMap((m) => m.options.topics));
    for (const topic of topics) {
      const candidates = group.members.filter((m) => m.options.topics.includes(topic));
      const count = storage.partitionCount(topic);
      const owners: Array<Member | undefined> = [];
      for (let p = 0; p < count; p++) {
        // A share (SubscribeOptions.share) leaves the other partitions to another thread's log.
        const share = candidates[0]?.options.share;
        owners.push(share && p % share.of !== share.member ? undefined : candidates[p % candidates.length]);
      }
      group.owners.set(topic, owners);
      for (let p = 0; p < count; p++) if (owners[p]) startWorker(group, topic, p);
    }
    wakeAll();
  }

  function startWorker(group: Group, topic: string, partition: number): void {
    const id = `${topic}/${partition}`;
    if (group.workers.has(id)) return;
    group.workers.add(id);
    void runPartition(group, topic, partition)
      .catch((error: unknown) => logger.error({ ...errorFields(error), group: group.name, topic, partition }, 'event_log.partition_worker_failed'))
      .finally(() => group.workers.delete(id));
  }

  /** One loop per partition per group: at most one batch of a partition is in flight. */
  async function runPartition(group: Group, topic: string, partition: number): Promise<void> {
    for (;;) {
      const owner = group.owners.get(topic)?.[partition];
      if (closed || !owner) return;
      const from = startOffset(group.name, topic, partition, owner);
      const messages = storage.read(topic, partition, from, owner.options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE);
      if (messages.length === 0) {
        await idle(pollIntervalMs);
        continue;
      }
      // Handling and committing are one unit: `close` waits for both.
      const backoff = owner.backoff;
      const batch: BatchAppends = { open: true, appends: [] };
      const processing = Promise.resolve()
        .then(() => inBatch.run(batch, () => deliverBatch({ topic, partition, messages }, owner.options, publishOne)))
        .then(
          ({ deadLettered }) => {
            batch.open = false;
            if (deadLettered > 0) logger.warn({ group: group.name, topic, partition, dead_lettered: deadLettered }, 'event_log.dead_lettered');
            const nextOffset = Number(messages[messages.length - 1].offset) + 1;
            storage.appendAndCommit(batch.appends, { group: group.name, topic, partition, nextOffset }, now());
            if (batch.appends.length > 0) published();
            backoff.succeeded(topic, partition);
            return 0;
          },
        )
        // A failed append-and-commit is a failed batch: nothing of it was written, it comes again.
        .catch(
          (error: unknown) => {
            batch.open = false;
            const delay = backoff.failed(topic, partition);
            logger.warn(
              { ...errorFields(error), group: group.name, topic, partition, offset: messages[0].offset, retry_in_ms: delay },
              'event_log.batch_failed',
            );
            return delay;
          },
        );
      const tracked = processing.then(
        () => undefined,
        () => undefined,
      );
      owner.inFlight.add(tracked);
      const retryInMs = await processing;
      owner.inFlight.delete(tracked);
      if (retryInMs > 0) await sleep(retryInMs);
    }
  }

  function startOffset(group: string, topic: string, partition: number, owner: Member): number {
    const committed = storage.committed(group, topic, partition);
    if (committed !== undefined) return committed;
    const start = owner.options.startAt === 'latest' ? storage.endOffset(topic, partition) : 0;
    // Pin the start, so a later publish is not skipped by a second look at the end offset.
    storage.commit(group, topic, partition, start);
    return start;
  }

  function leave(group: Group, member: Member): Promise<void> {
    member.left ??= (async () => {
      group.members.splice(group.members.indexOf(member), 1);
      rebalance(group);
      await Promise.all(member.inFlight);
    })();
    return member.left;
  }

  async function publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (closed) throw new Error('event log is closed');
    if (messages.length === 0) return;
    const batch = inBatch.getStore();
    if (batch?.open) {
      storage.partitionCount(topic); // an unknown topic fails the publish, as outside a batch
      batch.appends.push({ topic, messages });
      return;
    }
    storage.append(topic, messages, now());
    published();
  }

  /** After messages were appended: prune now and then, wake idle consumers. */
  function published(): void {
    const at = now();
    if (at - lastPrune >= pruneIntervalMs) {
      lastPrune = at;
      storage.prune(at);
    }
    wakeAll();
    channel?.postMessage(0);
  }
  const publishOne: PublishOne = (topic, message) => publish(topic, [message]);

  return {
    async createTopics(definitions) {
      for (const definition of definitions) storage.createTopic(definition);
    },

    publish,

    async subscribe(subscribeOptions) {
      if (closed) throw new Error('event log is closed');
      for (const topic of subscribeOptions.topics) storage.partitionCount(topic); // unknown → throws
      let group = groups.get(subscribeOptions.group);
      if (!group) {
        group = { name: subscribeOptions.group, members: [], owners: new Map(), workers: new Set() };
        groups.set(group.name, group);
      }
      const member: Member = { id: nextMemberId++, options: subscribeOptions, inFlight: new Set(), backoff: createBackoff(subscribeOptions) };
      group.members.push(member);
      rebalance(group);
      const joined = group;
      const subscription: Subscription = { close: () => leave(joined, member) };
      return subscription;
    },

    async close() {
      closed = true;
      channel?.close();
      const leaving = [...groups.values()].flatMap((group) => [...group.members].map((member) => leave(group, member)));
      wakeAll();
      await Promise.all(leaving);
    },
  };
}
