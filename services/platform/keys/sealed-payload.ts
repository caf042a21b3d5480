import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { PermanentError } from '../errors.ts';

/**
 * AES-256-GCM of one payload with associated data (node:crypto, no dependency): the layout is
 * iv (12 bytes, random) ‖ tag (16) ‖ ciphertext. The associated data binds a payload to where it
 * belongs (a job, a chunk, a kind), so ciphertext moved to another message does not open. Used
 * for the rows and results on the topics and for wrapping data keys with a master key.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed payload that does not open: tampered, cut, or sealed with another key or place. */
export class SealedPayloadError extends PermanentError {
  constructor() {
    super('sealed payload does not open');
    this.name = 'SealedPayloadError';
  }
}

export function seal(key: Buffer, plaintext: Buffer, associated: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function open(key: Buffer, sealed: Buffer, associated: string): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new SealedPayloadError();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(associated, 'utf8'));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SealedPayloadError();
  }
}
