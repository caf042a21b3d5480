/**
 * Callback signatures (docs/contract.md Events rule 2): `Service-Signature: t=<timestamp>,v1=<hmac>`, where
 * <hmac> is hex HMAC-SHA256 over `<timestamp>.<raw body>` and the secret is the hex SHA-256 of the
 * API key that created the job. That hash is exactly what the account store keeps (docs/decisions.md §4),
 * so the service signs with the stored key hash and the receiver computes it from the key it holds:
 *
 *   secret = sha256_hex(api_key)
 *   expected = hmac_sha256_hex(secret, `${t}.${raw_body}`)
 *
 * `verifyCallbackSignature` is what a receiver does; tests use it and docs/callbacks.md quotes it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Service-Signature';
export const EVENT_HEADER = 'Service-Event';
export const DELIVERY_HEADER = 'Service-Delivery';

function hmacHex(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** What a delivery's `v2` signature covers besides the body: its Service-Delivery id and Service-Event. */
export interface SignedDelivery {
  deliveryId: string;
  event: string;
}

/**
 * The `v2` signed string: `<t>.<Service-Delivery>.<Service-Event>.<raw body>` (docs/callbacks.md
 * "Verifying the signature"). `v1` covers only `<t>.<body>`, so a captured delivery could be
 * resent within the tolerance under a fresh Service-Delivery id and pass deduplication on it.
 */
function v2Hex(secret: string, timestamp: number, delivery: SignedDelivery, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${delivery.deliveryId}.${delivery.event}.${body}`, 'utf8').digest('hex');
}

/**
 * The header value for `body` sent at `timestamp` (Unix seconds): `t=…,v1=…` (the contract's), and
 * with `delivery` also `,v2=…` over the delivery id and event as well.
 */
export function signCallback(body: string, apiKeyHash: string, timestamp: number, delivery?: SignedDelivery): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError('timestamp must be whole Unix seconds');
  const v1 = `t=${timestamp},v1=${hmacHex(apiKeyHash, timestamp, body)}`;
  return delivery ? `${v1},v2=${v2Hex(apiKeyHash, timestamp, delivery, body)}` : v1;
}

export type SignatureCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed' | 'mismatch' | 'too_old' | 'in_future' };

/**
 * Checks a received `Service-Signature` against the raw body (as bytes arrived, before any JSON
 * parsing). Several `v1=` values are accepted (any may match), as key rotation may one day need.
 * `nowSeconds` defaults to the current time; a timestamp further than `toleranceSeconds` from it
 * either way is refused, which stops replays of old deliveries.
 */
export function verifyCallbackSignature(
  header: string | undefined,
  body: string,
  secret: string,
  toleranceSeconds: number,
  nowSeconds: number = Math.floor(Date.now() / 1000),
  delivery?: SignedDelivery,
): SignatureCheck {
  if (!header) return { ok: false, reason: 'malformed' };
  let timestamp: number | null = null;
  const candidates: string[] = [];
  // With `delivery` (the headers as received) only `v2` counts: it covers them, `v1` does not.
  const scheme = delivery ? 'v2' : 'v1';
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return { ok: false, reason: 'malformed' };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    else if (key === scheme && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === null || candidates.length === 0) return { ok: false, reason: 'malformed' };
  if (timestamp < nowSeconds - toleranceSeconds) return { ok: false, reason: 'too_old' };
  if (timestamp > nowSeconds + toleranceSeconds) return { ok: false, reason: 'in_future' };
  const expected = Buffer.from(delivery ? v2Hex(secret, timestamp, delivery, body) : hmacHex(secret, timestamp, body), 'hex');
  const matches = candidates.some((candidate) => timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}
