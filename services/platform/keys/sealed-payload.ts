import { createCipheriv, createDecipheriv, createSecretKey, randomFillSync, type KeyObject } from 'node:crypto';
import { PermanentError } from '../errors.ts';

/**
 * AES-256-GCM of one payload with associated data (node:crypto, no dependency): the layout is
 * iv (12 bytes, random) ‖ tag (16) ‖ ciphertext. The associated data binds a payload to where it
 * belongs (a job, a chunk, a kind), so ciphertext moved to another message does not open. Used
 * for the rows and results on the topics and for wrapping data keys with a master key.
 *
 * Sealing writes into one buffer allocated at its final size, and opening hands back the
 * decipher's own output: a chunk of rows or results (tens to hundreds of KB) is copied once
 * (node:crypto has no update-into-a-buffer), not three times through Buffer.concat
 * (docs/privacy-and-proof.md "Forgetting").
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const CIPHERTEXT_AT = IV_BYTES + TAG_BYTES;

/** A sealed payload that does not open: tampered, cut, or sealed with another key or place. */
export class SealedPayloadError extends PermanentError {
  constructor() {
    super('sealed payload does not open');
    this.name = 'SealedPayloadError';
  }
}

/**
 * The KeyObject of a key Buffer, made once per Buffer: a cipher made from raw key bytes imports
 * them every time (~40 µs, about a fifth of sealing a 180 KB chunk, measured in
 * test/bench/codec-driver.ts; docs/performance.md "Measurements"), one made from a KeyObject ~3 µs.
 * The data keys hand out the same Buffer for a job while it is cached (keys/data-keys.ts).
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObjectOf(key: Buffer): KeyObject {
  let keyObject = keyObjects.get(key);
  if (!keyObject) {
    keyObject = createSecretKey(key);
    keyObjects.set(key, keyObject);
  }
  return keyObject;
}

export function seal(key: Buffer, plaintext: Uint8Array, associated: string): Buffer {
  const sealed = Buffer.allocUnsafe(CIPHERTEXT_AT + plaintext.length);
  const iv = randomFillSync(sealed, 0, IV_BYTES).subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyObjectOf(key), iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  // GCM is a stream mode: update gives every byte and final none, but copy whatever final gives.
  const body = cipher.update(plaintext);
  const tail = cipher.final();
  body.copy(sealed, CIPHERTEXT_AT);
  tail.copy(sealed, CIPHERTEXT_AT + body.length);
  cipher.getAuthTag().copy(sealed, IV_BYTES);
  return sealed;
}

export function open(key: Buffer, sealed: Buffer, associated: string): Buffer {
  if (sealed.length < CIPHERTEXT_AT) throw new SealedPayloadError();
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyObjectOf(key), sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(associated, 'utf8'));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, CIPHERTEXT_AT));
    const body = decipher.update(sealed.subarray(CIPHERTEXT_AT));
    // final checks the tag (and throws when it does not match); in GCM it gives no bytes.
    const tail = decipher.final();
    return tail.length === 0 ? body : Buffer.concat([body, tail]);
  } catch {
    throw new SealedPayloadError();
  }
}
