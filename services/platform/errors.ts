/**
 * The one error base (docs/architecture.md "Conventions"): an error says itself whether trying
 * the same thing again can help. Retrying (a redelivered batch, a re-run job) follows from
 * `isPermanent`, never from a list of classes in the place that retries.
 *
 * - `PermanentError` (a `ClassifiedError` that is always permanent): the same input gives the same failure — a message that cannot be read, a
 *   version that is gone or was never activated, a file that will not be read, a body that breaks
 *   the contract. Retrying is pointless: dead-letter the message, fail the job, refuse the input.
 * - Anything else (a plain Error, a network or store failure) is transient: the batch is
 *   redelivered, the caller may try again.
 *
 * An HTTP status belongs to the HTTP edge only (api/error-handler.ts, api/errors.ts): an error
 * here names what went wrong, the edge chooses how to answer.
 */
export class ClassifiedError extends Error {
  /**
   * Whether the same input fails the same way again. False here (transient); `PermanentError`
   * says true for all its instances, and a class whose instances differ by cause says it per
   * instance (a callback URL that does not resolve may resolve later; one that points inwards
   * never will: services/platform/outbound-http/url-guard.ts).
   */
  get permanent(): boolean {
    return false;
  }
}

export class PermanentError extends ClassifiedError {
  override get permanent(): boolean {
    return true;
  }
}

/** Whether retrying cannot help (see the module comment); unknown errors are transient. */
export function isPermanent(error: unknown): boolean {
  return error instanceof ClassifiedError && error.permanent;
}
