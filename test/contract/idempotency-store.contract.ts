import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IdempotencyScope, IdempotencyStore } from '../../services/platform/store/idempotency-port.ts';
import { useHarness } from './harness.ts';

export interface IdempotencyStoreHarness {
  store: IdempotencyStore;
  /** A second store on the same data (a restarted process). */
  reopen(): Promise<IdempotencyStore>;
  close(): Promise<void>;
}

const T0 = new Date('2026-11-21T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const HOUR = 3600_000;
/** Times for a claim made `ms` after T0: 24 h window, 5 min lease. */
const times = (ms: number) => ({ now: at(ms), expiresAt: at(ms + 24 * HOUR), leaseUntil: at(ms + 5 * 60_000) });

/** The IdempotencyStore conformance suite: every adapter passes it unchanged. */
export function idempotencyStoreContract(adapter: string, open: () => Promise<IdempotencyStoreHarness>): void {
  describe(`IdempotencyStore contract (${adapter})`, () => {
    const harness = useHarness(open);
    const store = () => harness().store;
    const scope = (patch: Partial<IdempotencyScope> = {}): IdempotencyScope => ({
      orgId: randomUUID(),
      mode: 'live',
      endpoint: 'POST /v2/checks',
      ...patch,
    });

    it('claims, reports in-flight and mismatch, then replays the completed response', async () => {
      const s = scope();
      expect(await store().begin(s, 'k', 'fp1', times(0))).toEqual({ kind: 'started' });
      expect(await store().begin(s, 'k', 'fp1', times(10))).toEqual({ kind: 'in_flight' });
      expect(await store().begin(s, 'k', 'fp2', times(10))).toEqual({ kind: 'mismatch' });
      await store().complete(s, 'k', { status: 200, body: '{"results":["æøå"]}' });
      expect(await store().begin(s, 'k', 'fp1', times(20))).toEqual({
        kind: 'replay',
        response: { status: 200, body: '{"results":["æøå"]}' },
      });
      expect(await store().begin(s, 'k', 'fp2', times(20))).toEqual({ kind: 'mismatch' });
    });

    it('keeps scopes apart: organisation, mode and endpoint', async () => {
      const s = scope();
      expect((await store().begin(s, 'same', 'fp', times(0))).kind).toBe('started');
      await store().complete(s, 'same', { status: 200, body: '{}' });
      for (const other of [{ ...s, orgId: randomUUID() }, { ...s, mode: 'test' as const }, { ...s, endpoint: 'POST /v2/check-jobs' }]) {
        expect((await store().begin(other, 'same', 'fp', times(0))).kind).toBe('started');
      }
    });

    it('forgets a completed key after its window and an abandoned one at once', async () => {
      const s = scope();
      await store().begin(s, 'day', 'fp', times(0));
      await store().complete(s, 'day', { status: 200, body: '1' });
      expect((await store().begin(s, 'day', 'fp', times(24 * HOUR - 1))).kind).toBe('replay');
      expect((await store().begin(s, 'day', 'other', times(24 * HOUR + 1))).kind).toBe('started');

      await store().begin(s, 'failed', 'fp', times(0));
      await store().abandon(s, 'failed');
      expect((await store().begin(s, 'failed', 'fp2', times(1))).kind).toBe('started');
    });

    it('forgets the responses about a deleted resource (its id first in the body), and no other', async () => {
      const s = scope();
      const gone = randomUUID();
      const kept = randomUUID();
      await store().begin(s, 'draft', 'fp', times(0));
      await store().complete(s, 'draft', { status: 202, body: `{"id":"${gone}","status":"draft","preview":[{"name":"Åse Jensen"}]}` });
      await store().begin(s, 'other', 'fp', times(0));
      await store().complete(s, 'other', { status: 202, body: `{"id":"${kept}","status":"draft"}` });
      await store().begin(s, 'mentions', 'fp', times(0));
      await store().complete(s, 'mentions', { status: 201, body: `{"id":"${kept}","last_check":{"job_id":"${gone}"}}` });
      await store().forgetResponsesAbout(gone);
      expect((await store().begin(s, 'draft', 'fp', times(10))).kind).toBe('started');
      expect((await store().begin(s, 'other', 'fp', times(10))).kind).toBe('replay');
      expect((await store().begin(s, 'mentions', 'fp', times(10))).kind).toBe('replay');
    });

    it('lets a new call take over an in-flight claim whose lease ran out', async () => {
      const s = scope();
      await store().begin(s, 'crashed', 'fp', times(0));
      expect((await store().begin(s, 'crashed', 'fp', times(5 * 60_000 - 1))).kind).toBe('in_flight');
      expect((await store().begin(s, 'crashed', 'fp', times(5 * 60_000 + 1))).kind).toBe('started');
    });

    it('gives exactly one of many concurrent claims', async () => {
      const s = scope();
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => store().begin(s, 'race', 'fp', times(0))));
      expect(outcomes.filter((o) => o.kind === 'started')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'in_flight')).toHaveLength(9);
    });

    it('gives exactly one of 50 concurrent claims split over two processes on the same data', async () => {
      const s = scope();
      const other = await harness().reopen();
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? other : store()).begin(s, 'race2', 'fp', times(0))));
      expect(outcomes.filter((o) => o.kind === 'started')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'in_flight')).toHaveLength(49);
    });

    it('a key used again after its records were purged is claimed anew, once', async () => {
      const s = scope();
      await store().begin(s, 'again', 'fp', times(0));
      await store().complete(s, 'again', { status: 202, body: 'first' });
      await store().purgeExpired(at(48 * HOUR));
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => store().begin(s, 'again', 'fp2', times(49 * HOUR))));
      expect(outcomes.filter((o) => o.kind === 'started')).toHaveLength(1);
      await store().complete(s, 'again', { status: 202, body: 'second' });
      expect(await store().begin(s, 'again', 'fp2', times(49 * HOUR + 1))).toEqual({ kind: 'replay', response: { status: 202, body: 'second' } });
    });

    it('purges expired records and keeps completed responses across a restart', async () => {
      const s = scope();
      await store().begin(s, 'keep', 'fp', times(0));
      await store().complete(s, 'keep', { status: 200, body: 'kept' });
      const reopened = await harness().reopen();
      expect(await reopened.begin(s, 'keep', 'fp', times(1))).toEqual({ kind: 'replay', response: { status: 200, body: 'kept' } });
      expect(await store().purgeExpired(at(48 * HOUR))).toBeGreaterThanOrEqual(1);
      expect((await store().begin(s, 'keep', 'fp', times(1))).kind).toBe('started');
    });
  });
}
