import { createHmac } from 'node:crypto';

/**
 * RFC 6238 codes computed independently of services/api/people/totp.ts (its own base32 decoding and
 * truncation, written from the RFC), so the tests do not grade the code with itself.
 */
export function referenceTotp(base32Secret: string, at: Date, stepOffset = 0): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = base32Secret.replace(/=+$/, '').split('').map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Math.floor(at.getTime() / 30_000) + stepOffset;
  const message = Buffer.alloc(8);
  message.writeUInt32BE(Math.floor(counter / 2 ** 32), 0);
  message.writeUInt32BE(counter % 2 ** 32, 4);
  const hmac = createHmac('sha1', key).update(message).digest();
  const offset = hmac[19] & 0xf;
  const code = ((hmac[offset] & 0x7f) << 24) | (hmac[offset + 1] << 16) | (hmac[offset + 2] << 8) | hmac[offset + 3];
  return String(code % 1_000_000).padStart(6, '0');
}
