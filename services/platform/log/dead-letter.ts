import {
  DEAD_LETTER_HEADERS,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_RETRY_DELAY_MS,
  UnrecoverableMessageError,
  type LogMessage,
  type MessageBatch,
  type OutgoingMessage,
  type SubscribeOptions,
} from './port.ts';

/**
 * What both event-log adapters do around a subscriber's `handleBatch` (port.ts): dead letters for
 * unrecoverable messages and the backoff of failing partitions. Kept here so the two adapters
 * cannot drift apart; test/contract/event-log.contract.ts holds them to it.
 */

/** Publishes one message to a topic (the adapter's own publish). */
export type PublishOne = (topic: string, message: OutgoingMessage) => Promise<void>;

/**
 * Hands `batch` to the handler. When it throws an UnrecoverableMessageError for one of the
 * batch's messages and the subscription has dead-lettering, the messages before that one are
 * handled (again: handlers are idempotent), the message is dead-lettered, and the ones after it
 * are handled; each part may dead-letter further messages. Any other error passes on (the
 * adapter redelivers the batch).
 */
export async function deliverBatch(
  batch: MessageBatch,
  options: Pick<SubscribeOptions, 'handleBatch' | 'deadLetterTopicOf'>,
  publish: PublishOne,
  now: () => Date = () => new Date(),
): Promise<{ deadLettered: number }> {
  try {
    await options.handleBatch(batch);
    return { deadLettered: 0 };
  } catch (error) {
    const deadLetterTopicOf = options.deadLetterTopicOf;
    if (!(error instanceof UnrecoverableMessageError) || !deadLetterTopicOf) throw error;
    const index = batch.messages.findIndex((m) => m.offset === error.offending.offset);
    if (index === -1) throw error; // names a message of no batch of ours: treat as transient
    let deadLettered = 1;
    const before = batch.messages.slice(0, index);
    if (before.length > 0) deadLettered += (await deliverBatch({ ...batch, messages: before }, options, publish, now)).deadLettered;
    const poison = batch.messages[index];
    await publish(deadLetterTopicOf(poison.topic), deadLetterOf(poison, error, now()));
    const after = batch.messages.slice(index + 1);
    if (after.length > 0) deadLettered += (await deliverBatch({ ...batch, messages: after }, options, publish, now)).deadLettered;
    return { deadLettered };
  }
}

/** The message as it arrived, plus where it came from and why it could not be handled. */
export function deadLetterOf(message: LogMessage, error: UnrecoverableMessageError, at: Date): OutgoingMessage {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      [DEAD_LETTER_HEADERS.topic]: message.topic,
      [DEAD_LETTER_HEADERS.partition]: String(message.partition),
      [DEAD_LETTER_HEADERS.offset]: message.offset,
      [DEAD_LETTER_HEADERS.key]: message.key ?? '-',
      [DEAD_LETTER_HEADERS.error]: error.cause instanceof Error ? error.cause.name : error.name,
      [DEAD_LETTER_HEADERS.reason]: error.reason,
      [DEAD_LETTER_HEADERS.failedAt]: at.toISOString(),
    },
  };
}

/**
 * Exponential backoff of one subscription's partitions: the pause before the next redelivery of
 * a partition doubles with each consecutive failure, from `retryDelayMs` up to `maxRetryDelayMs`;
 * a success resets it.
 */
export function createBackoff(options: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>) {
  const base = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const max = Math.max(base, options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS);
  const failures = new Map<string, number>();
  const id = (topic: string, partition: number) => `${topic}/${partition}`;
  return {
    /** Records a failure and returns how long to wait before the redelivery. */
    failed(topic: string, partition: number): number {
      const count = (failures.get(id(topic, partition)) ?? 0) + 1;
      failures.set(id(topic, partition), count);
      return Math.min(max, base * 2 ** Math.min(count - 1, 20));
    },
    succeeded(topic: string, partition: number): void {
      failures.delete(id(topic, partition));
    },
  };
}
