import { UnrecoverableMessageError, type MessageBatch } from '../platform/log/port.ts';
import { isUnreadableEvent, jobIdOfKey } from './events.ts';

/** The job error of a job one of whose messages could not be read (JobRecord.error). */
export const UNREADABLE_MESSAGE = 'unreadable_message';

/**
 * A message of a batch that could not be decoded, for good (isUnreadableEvent): `index` is its
 * place among the values handed to the consumer. Thrown by decodeEach.
 */
export class UnreadableEventError extends Error {
  readonly index: number;
  constructor(index: number, cause: unknown) {
    // No text of the cause: it may quote the bytes (personal data).
    super(`message ${index} of the batch cannot be read (${(cause as Error)?.name ?? 'error'})`, { cause });
    this.name = 'UnreadableEventError';
    this.index = index;
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
 * when `handle` finds a message it can never read, the job the message belongs to (from its key)
 * is failed through `failJob` with `unreadable_message`, and the message is handed back to the
 * event log as unrecoverable, which dead-letters it and moves the partition on (port.ts). Any
 * other error passes on and the batch is retried.
 */
export function poisonSafe(
  handle: (values: Buffer[]) => Promise<void>,
  failJob: (jobId: string) => Promise<void>,
): (batch: MessageBatch) => Promise<void> {
  return async (batch) => {
    const messages = batch.messages.filter((m) => m.value !== null);
    try {
      await handle(messages.map((m) => m.value as Buffer));
    } catch (error) {
      if (!(error instanceof UnreadableEventError)) throw error;
      const poison = messages[error.index];
      const jobId = jobIdOfKey(poison.key);
      if (jobId) await failJob(jobId);
      const causeName = (error.cause as Error)?.name ?? 'Error';
      throw new UnrecoverableMessageError(poison, `${UNREADABLE_MESSAGE}: ${causeName}`, { cause: error.cause });
    }
  };
}
