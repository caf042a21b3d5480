import { UnrecoverableMessageError, type MessageBatch } from '../platform/log/port.ts';
import { isUnreadableEvent, jobIdOfKey } from './events.ts';
import { PermanentError } from '../platform/errors.ts';

/** The job error of a job one of whose messages could not be read (JobRecord.error). */
export const UNREADABLE_MESSAGE = 'unreadable_message';
/**
 * The job error of a job one of whose messages was read but can never be handled: handling it
 * failed permanently (isPermanent, services/platform/errors.ts), e.g. a store refusing it for good.
 */
export const UNPROCESSABLE_MESSAGE = 'unprocessable_message';

/**
 * A permanent failure pinned to one message of a batch: `index` is its place among the values
 * handed to the consumer, `jobError` what its job fails with. No text of the cause in the
 * message: it may quote the bytes (personal data).
 */
export class PoisonMessageError extends PermanentError {
  readonly index: number;
  readonly jobError: string;
  constructor(index: number, jobError: string, cause: unknown) {
    super(`message ${index} of the batch: ${jobError} (${(cause as Error)?.name ?? 'error'})`, { cause });
    this.name = 'PoisonMessageError';
    this.index = index;
    this.jobError = jobError;
  }
}

/** A message of a batch that could not be decoded, for good (isUnreadableEvent). Thrown by decodeAt. */
export class UnreadableEventError extends PoisonMessageError {
  constructor(index: number, cause: unknown) {
    super(index, UNREADABLE_MESSAGE, cause);
    this.name = 'UnreadableEventError';
  }
}

/** Decodes one value of a batch; an unreadable one becomes UnreadableEventError naming `index`. */
export async function decodeAt<T>(decode: (value: Buffer) => Promise<T>, value: Buffer, index: number): Promise<T> {
  try {
    return await decode(value);
  } catch (error) {
    throw isUnreadableEvent(error) ? new UnreadableEventError(index, error) : error;
  }
}

/**
 * A consumer's batch handler (the matcher's, the projection's) made safe from poison messages:
 * when `handle` pins a permanent failure on one message (PoisonMessageError: one it can never
 * read, or never handle), the job the message belongs to (from its key) is failed through
 * `failJob` with the error's `jobError`, and the message is handed back to the event log as
 * unrecoverable, which dead-letters it and moves the partition on (port.ts). Any other error
 * passes on and the batch is retried.
 */
export function poisonSafe(
  handle: (values: Buffer[]) => Promise<void>,
  failJob: (jobId: string, jobError: string) => Promise<void>,
): (batch: MessageBatch) => Promise<void> {
  return async (batch) => {
    const messages = batch.messages.filter((m) => m.value !== null);
    try {
      await handle(messages.map((m) => m.value as Buffer));
    } catch (error) {
      // The class is what carries the message's place; whether a failure is permanent at all is
      // isPermanent's to say, where the PoisonMessageError is made (decodeAt, the projection).
      if (!(error instanceof PoisonMessageError)) throw error;
      const poison = messages[error.index];
      const jobId = jobIdOfKey(poison.key);
      if (jobId) await failJob(jobId, error.jobError);
      const causeName = (error.cause as Error)?.name ?? 'Error';
      throw new UnrecoverableMessageError(poison, `${error.jobError}: ${causeName}`, { cause: error.cause });
    }
  };
}
