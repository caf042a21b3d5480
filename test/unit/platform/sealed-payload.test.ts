import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { open, seal, SealedPayloadError } from '../../../services/platform/keys/sealed-payload.ts';

/**
 * Sealing writes into one preallocated buffer and opening returns the decipher's output without
 * a copy (services/platform/keys/sealed-payload.ts). What is on the topics must not change: the
 * implementation before that change, kept here word for word but for the IV (given, so the two
 * can be compared byte for byte), is the reference.
 */
function sealAsBefore(key: Buffer, iv: Buffer, plaintext: Buffer, associated: string): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function openAsBefore(key: Buffer, sealed: Buffer, associated: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}

// Empty, shorter than a block, odd, and chunk-sized (a sealed chunk of 2,000 rows is ~100-400 KB).
const SIZES = [0, 1, 15, 16, 17, 1000, 65_537, 400_000];
const AAD = 'ResultsChunk:0b7c2a4e-1f3d-4c5b-8a6e-9d0f1e2a3b4c:7';

describe('sealed payloads (AES-256-GCM, iv ‖ tag ‖ ciphertext)', () => {
  it.each(SIZES)('seal writes the same bytes as before for the same IV (%i-byte payload)', (size) => {
    const key = randomBytes(32);
    const plaintext = randomBytes(size);
    const sealed = seal(key, plaintext, AAD);
    expect(sealed.length).toBe(12 + 16 + size);
    // The IV is the sealed record's first 12 bytes: the old code with that IV gives every byte.
    expect(sealed.equals(sealAsBefore(key, Buffer.from(sealed.subarray(0, 12)), plaintext, AAD))).toBe(true);
  });

  it.each(SIZES)('old and new open each other\'s payloads (%i bytes)', (size) => {
    const key = randomBytes(32);
    const plaintext = randomBytes(size);
    expect(open(key, sealAsBefore(key, randomBytes(12), plaintext, AAD), AAD).equals(plaintext)).toBe(true);
    expect(openAsBefore(key, seal(key, plaintext, AAD), AAD).equals(plaintext)).toBe(true);
  });

  it('seals from a view of a larger buffer (the codec\'s scratch) without reading past it', () => {
    const key = randomBytes(32);
    const scratch = randomBytes(4096);
    const view = scratch.subarray(100, 1100);
    const sealed = seal(key, view, AAD);
    expect(open(key, sealed, AAD).equals(Buffer.from(view))).toBe(true);
    expect(sealed.length).toBe(28 + 1000);
  });

  it('draws a fresh IV for every payload', () => {
    const key = randomBytes(32);
    const ivs = new Set(Array.from({ length: 200 }, () => seal(key, Buffer.from('same'), AAD).subarray(0, 12).toString('hex')));
    expect(ivs.size).toBe(200);
  });

  it('refuses a payload that is tampered, cut, moved to another place or sealed with another key', () => {
    const key = randomBytes(32);
    const sealed = seal(key, Buffer.from('Anne Hansen, Vestergade 3'), AAD);
    const flipped = Buffer.from(sealed);
    flipped[sealed.length - 1] ^= 1;
    const tagFlipped = Buffer.from(sealed);
    tagFlipped[12] ^= 1;
    expect(() => open(key, flipped, AAD)).toThrow(SealedPayloadError);
    expect(() => open(key, tagFlipped, AAD)).toThrow(SealedPayloadError);
    expect(() => open(key, sealed.subarray(0, 27), AAD)).toThrow(SealedPayloadError);
    expect(() => open(key, sealed.subarray(0, sealed.length - 1), AAD)).toThrow(SealedPayloadError);
    expect(() => open(key, sealed, 'ResultsChunk:0b7c2a4e-1f3d-4c5b-8a6e-9d0f1e2a3b4c:8')).toThrow(SealedPayloadError);
    expect(() => open(randomBytes(32), sealed, AAD)).toThrow(SealedPayloadError);
    expect(open(key, sealed, AAD).toString()).toBe('Anne Hansen, Vestergade 3');
  });
});
