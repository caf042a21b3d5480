/** Callback and payment-webhook signatures (docs/callbacks.md). */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signCallback, verifyCallbackSignature } from '../../../services/platform/webhook-signature.ts';

const apiKey = 'rl_test_0123456789abcdefghijABCDEFGHIJ0123456789';
const secret = createHash('sha256').update(apiKey).digest('hex');

describe('callback signature', () => {
  it('is HMAC-SHA256 over `<t>.<raw body>` keyed with the hex SHA-256 of the API key', () => {
    const body = '{"id":"j1","status":"done","note":"æøå"}';
    const header = signCallback(body, secret, 1_767_225_600);
    const expected = createHmac('sha256', secret).update(`1767225600.${body}`).digest('hex');
    expect(header).toBe(`t=1767225600,v1=${expected}`);
  });

  it('covers Service-Delivery and Service-Event in v2, so a replay under a fresh delivery id fails; v1 stays the contract\'s', () => {
    const body = '{"id":"j1","status":"done"}';
    const now = 1_800_000_000;
    const delivery = { deliveryId: '0b6c1e0e-0000-4000-8000-000000000001', event: 'check_job.completed' };
    const header = signCallback(body, secret, now, delivery);
    const v1 = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    const v2 = createHmac('sha256', secret).update(`${now}.${delivery.deliveryId}.${delivery.event}.${body}`).digest('hex');
    expect(header).toBe(`t=${now},v1=${v1},v2=${v2}`);
    expect(verifyCallbackSignature(header, body, secret, 300, now, delivery)).toEqual({ ok: true, timestamp: now });
    expect(verifyCallbackSignature(header, body, secret, 300, now)).toEqual({ ok: true, timestamp: now });
    // The same bytes resent with another Service-Delivery (to slip past deduplication), or event.
    expect(verifyCallbackSignature(header, body, secret, 300, now, { ...delivery, deliveryId: '0b6c1e0e-0000-4000-8000-000000000002' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyCallbackSignature(header, body, secret, 300, now, { ...delivery, event: 'check_job.failed' })).toEqual({ ok: false, reason: 'mismatch' });
    // A header with v1 only cannot pass a receiver that checks the delivery.
    expect(verifyCallbackSignature(`t=${now},v1=${v1}`, body, secret, 300, now, delivery)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('verifies as a receiver would, refusing tampering, other keys, old and future timestamps', () => {
    const body = '{"id":"j1"}';
    const now = 1_800_000_000;
    const header = signCallback(body, secret, now);
    expect(verifyCallbackSignature(header, body, secret, 300, now)).toEqual({ ok: true, timestamp: now });
    expect(verifyCallbackSignature(header, body + ' ', secret, 300, now)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyCallbackSignature(header, body, 'a'.repeat(64), 300, now)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyCallbackSignature(header, body, secret, 300, now + 301)).toEqual({ ok: false, reason: 'too_old' });
    expect(verifyCallbackSignature(header, body, secret, 300, now - 301)).toEqual({ ok: false, reason: 'in_future' });
    expect(verifyCallbackSignature(undefined, body, secret, 300, now).ok).toBe(false);
    expect(verifyCallbackSignature('t=1,v1=zz', body, secret, 300, now)).toEqual({ ok: false, reason: 'malformed' });
    // A second v1 (say, during a rotation) does not stop a matching one from counting.
    expect(verifyCallbackSignature(`${header},v1=${'0'.repeat(64)}`, body, secret, 300, now).ok).toBe(true);
  });
});
