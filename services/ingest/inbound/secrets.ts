import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { PermanentError } from '../../platform/errors.ts';

/**
 * Credentials of inbound channels (SFTP keys and passwords, IMAP/SMTP passwords) at rest:
 * AES-256-GCM with a 32-byte key from configuration (`INBOUND_SECRET_KEY`, base64), a fresh
 * 12-byte IV per secret, and the record id as additional data, so a sealed secret copied onto
 * another record does not open. Text form: `v1.<iv>.<tag>.<ciphertext>` (base64url).
 * Never log a sealed or opened secret; errors here never contain either.
 */
export class SecretKeyError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

export interface SecretBox {
  seal(plain: string, recordId: string): string;
  open(sealed: string, recordId: string): string;
}

export function parseSecretKey(base64: string | undefined): Buffer {
  if (!base64) throw new SecretKeyError('INBOUND_SECRET_KEY is not set (32 random bytes, base64: openssl rand -base64 32)');
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new SecretKeyError('INBOUND_SECRET_KEY must be 32 bytes, base64-encoded');
  return key;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new SecretKeyError('the secret key must be 32 bytes');
  return {
    seal(plain, recordId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(recordId, 'utf8'));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    open(sealed, recordId) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== 'v1') throw new SecretKeyError('not a sealed secret');
      const [iv, tag, data] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(Buffer.from(recordId, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretKeyError('the secret does not open with this key (wrong INBOUND_SECRET_KEY, or tampered)');
      }
    },
  };
}
