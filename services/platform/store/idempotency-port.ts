/**
 * Remembered responses of calls that carried an `Idempotency-Key` (docs/decisions.md §6). A key is scoped
 * to organisation + mode + endpoint. Promises: `begin` is atomic (of two concurrent callers with
 * the same scope and key exactly one gets `started`); a completed record is replayed until its
 * `expires_at`; an in-flight record whose lease ran out (its process died) may be taken over.
 * Does not promise to delete expired records by itself: callers run `purgeExpired`.
 *
 * The stored body may hold personal data (resolved addresses), so the window (24 h) must stay
 * shorter than any retention period and `purgeExpired` must run.
 */
/** How a remembered response about resource `id` begins (every resource's JSON starts with its id). */
export const responsePrefixOf = (id: string): string => `{"id":${JSON.stringify(id)}`;

export interface IdempotencyScope {
  orgId: string;
  mode: 'live' | 'test';
  /** e.g. `POST /v2/checks` */
  endpoint: string;
}

export interface StoredResponse {
  status: number;
  /** The serialised response body, replayed byte for byte. */
  body: string;
}

export type IdempotencyBegin =
  | { kind: 'started' }
  | { kind: 'in_flight' }
  /** Same key, different request body. */
  | { kind: 'mismatch' }
  | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyStore {
  /**
   * Claims `key` for a request whose body has `fingerprint`. `expiresAt` bounds the remembered
   * response; `leaseUntil` bounds how long an unfinished claim blocks others.
   */
  begin(
    scope: IdempotencyScope,
    key: string,
    fingerprint: string,
    times: { now: Date; expiresAt: Date; leaseUntil: Date },
  ): Promise<IdempotencyBegin>;
  /** Stores the response of a started call; replayed to later calls with the same key. */
  complete(scope: IdempotencyScope, key: string, response: StoredResponse): Promise<void>;
  /** Forgets a started call that produced nothing worth replaying (e.g. it failed), so a retry runs. */
  abandon(scope: IdempotencyScope, key: string): Promise<void>;
  /** Deletes every record whose `expiresAt` is before `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
  /**
   * Deletes every completed record whose response is the resource `id` (its body is the JSON of
   * that resource, which begins `{"id":"<id>"`), so a deleted job's people do not outlive it in a
   * remembered response (docs/privacy-and-proof.md "Every store"). The key is free again afterwards.
   */
  forgetResponsesAbout(id: string): Promise<void>;
}
