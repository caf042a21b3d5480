/**
 * Callback signatures (api-v2 Events rule 2): `Service-Signature: t=<timestamp>,v1=<hmac>`, where
 * <hmac> is hex HMAC-SHA256 over `<timestamp>.<raw body>` and the secret is the hex SHA-256 of the
 * API key that created the job. That hash is exactly what the account store keeps (DECISIONS §4),
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

/** The header value for `body` sent at `timestamp` (Unix seconds). */
export function signCallback(body: string, apiKeyHash: string, timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError('timestamp must be whole Unix seconds');
  return `t=${timestamp},v1=${hmacHex(apiKeyHash, timestamp, body)}`;
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
): SignatureCheck {
  if (!header) return { ok: false, reason: 'malformed' };
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return { ok: false, reason: 'malformed' };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === null || candidates.length === 0) return { ok: false, reason: 'malformed' };
  if (timestamp < nowSeconds - toleranceSeconds) return { ok: false, reason: 'too_old' };
  if (timestamp > nowSeconds + toleranceSeconds) return { ok: false, reason: 'in_future' };
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  const matches = candidates.some((candidate) => timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}
