import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { IdempotencyScope, IdempotencyStore } from '../platform/store/idempotency-port.ts';
import { errorFields, type Logger } from '../platform/logger.ts';
import { ApiError } from './errors.ts';

const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long an unfinished call blocks its key if its process dies before finishing. */
const LEASE_MS = 5 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 1000;
const MAX_KEY_LENGTH = 255;

/** The Idempotency-Key request header as the OpenAPI document shows it on every route that takes it. */
export const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  description: 'Same key and body within 24 h replays the first response (header Idempotent-Replayed: true).',
  schema: z.string().min(1).max(MAX_KEY_LENGTH),
  required: false,
};

/** JSON with object keys sorted, so that `{a,b}` and `{b,a}` are the same request body. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What a call answers: its body as JSON text, or as its UTF-8 bytes already (people-answer.ts). */
export interface Answer<Body extends string | Buffer = string> {
  status: number;
  body: Body;
}

/** A replay's body is the stored text, whatever the first call's answer was. */
export interface IdempotentOutcome<Body extends string | Buffer = string> {
  status: number;
  body: Body | string;
  replayed: boolean;
}

/**
 * Sends an outcome of `run`: the stored status and body, with `Idempotent-Replayed: true` on a replay.
 * The body goes out as its UTF-8 bytes, encoded once (here, when it is text): a string is measured
 * once more for Content-Length, joined to the head and encoded again by the socket, twice the time
 * of a 474 KiB answer's write (docs/architecture.md "Synchronous checks").
 */
export function sendOutcome(reply: FastifyReply, outcome: IdempotentOutcome<string | Buffer>) {
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(outcome.status).type('application/json; charset=utf-8').send(typeof outcome.body === 'string' ? Buffer.from(outcome.body, 'utf8') : outcome.body);
}

/** 1 to 255 characters (docs/contract.md Limits); callers that read a long body check it before reading. */
export function assertValidIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new ApiError({
      code: 'invalid_request',
      messageKey: 'idempotency_key_invalid',
      details: { reason: 'idempotency_key_invalid' },
    });
  }
}

/**
 * The request's Idempotency-Key, checked (1 to 255 characters, else 422), or undefined without
 * one. Call it before reading a long body, so a bad key is refused before the body is spooled.
 */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['idempotency-key'];
  const key = Array.isArray(value) ? value.join(',') : value;
  if (key !== undefined) assertValidIdempotencyKey(key);
  return key;
}

/**
 * docs/decisions.md §6 on top of an IdempotencyStore: same key + same body replays the first response,
 * same key + other body is 422 `idempotency_key_reused`, same key still running is 409. Only
 * successful responses are remembered; a failed call releases its key so a retry runs again.
 * Expired records are purged at most once a minute, on the back of requests (nothing runs by itself).
 */
export function createIdempotency(options: { store: IdempotencyStore; now: () => Date; logger: Logger }) {
  const { store, now, logger } = options;
  let lastPurge = 0;

  async function purgeNowAndThen(at: Date): Promise<void> {
    if (at.getTime() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = at.getTime();
    try {
      const purged = await store.purgeExpired(at);
      if (purged > 0) logger.info({ purged }, 'idempotency.purged');
    } catch (error) {
      logger.warn(errorFields(error), 'idempotency.purge_failed');
    }
  }

  return {
    /** Runs `execute` at most once per (scope, key, body) in the window; without a key, always. */
    async run<Body extends string | Buffer = string>(
      scope: IdempotencyScope,
      key: string | undefined,
      body: unknown,
      execute: () => Promise<Answer<Body>>,
    ): Promise<IdempotentOutcome<Body>> {
      const fingerprint = key === undefined ? '' : createHash('sha256').update(canonicalJson(body)).digest('hex');
      return this.runWithFingerprint(scope, key, fingerprint, execute);
    },

    /**
     * As `run`, for a body that was streamed and never held whole: the caller hashes it while
     * reading and passes the hex digest (of everything that makes the request, not only the bytes).
     */
    async runWithFingerprint<Body extends string | Buffer = string>(
      scope: IdempotencyScope,
      key: string | undefined,
      fingerprint: string,
      execute: () => Promise<Answer<Body>>,
    ): Promise<IdempotentOutcome<Body>> {
      if (key === undefined) return { ...(await execute()), replayed: false };
      assertValidIdempotencyKey(key);
      const at = now();
      await purgeNowAndThen(at);
      const claim = await store.begin(scope, key, fingerprint, {
        now: at,
        expiresAt: new Date(at.getTime() + IDEMPOTENCY_WINDOW_MS),
        leaseUntil: new Date(at.getTime() + LEASE_MS),
      });
      switch (claim.kind) {
        case 'replay':
          return { ...claim.response, replayed: true };
        case 'mismatch':
          throw new ApiError({
            code: 'invalid_request',
            messageKey: 'idempotency_key_reused',
            details: { reason: 'idempotency_key_reused' },
          });
        case 'in_flight':
          throw new ApiError({
            code: 'conflict',
            messageKey: 'idempotency_in_flight',
            details: { reason: 'idempotency_key_in_flight' },
          });
        case 'started':
          break;
      }
      let response: Answer<Body>;
      try {
        response = await execute();
      } catch (error) {
        await store.abandon(scope, key);
        throw error;
      }
      // Stored as text; a replay sends the same bytes (sendOutcome encodes it).
      const body = typeof response.body === 'string' ? response.body : response.body.toString('utf8');
      await store.complete(scope, key, { status: response.status, body });
      return { ...response, replayed: false };
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
