import type { JobDataKeys } from '../../platform/keys/data-keys.ts';
import { open, seal } from '../../platform/keys/sealed-payload.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * A person's TOTP secret at rest (docs/people.md "Second factor"): sealed with AES-256-GCM under a
 * data key of that person (the same per-owner data keys, wrapped by the master key, that seal
 * jobs' rows; owner `portal-user:<id>`), so a copy of the store alone cannot produce codes, and
 * removing the person forgets the key, after which no copy of the secret opens again.
 *
 * Stored form: `sealed1.<key id>.<base64url of iv ‖ tag ‖ ciphertext>`, the user's id as the
 * associated data (a sealed secret moved to another user does not open). A secret stored before
 * sealing (no prefix) is read as it is.
 */
export interface TotpSecretSeal {
  seal(userId: string, secret: string): Promise<string>;
  /** The secret; throws when its key was forgotten (a removed person) or it does not open. */
  open(userId: string, stored: string): Promise<string>;
  /** Deletes the person's data key: every sealed copy of the secret is unreadable from now on. */
  forget(userId: string): Promise<void>;
}

const PREFIX = 'sealed1.';
const ownerOf = (userId: string) => `portal-user:${userId}`;
const associated = (userId: string) => `totp-secret:${userId}`;

export class TotpSecretGoneError extends PermanentError {
  constructor() {
    super('the TOTP secret\'s data key is gone');
    this.name = 'TotpSecretGoneError';
  }
}

export function createTotpSecretSeal(keys: JobDataKeys): TotpSecretSeal {
  return {
    async seal(userId, secret) {
      const key = await keys.writerKey(ownerOf(userId));
      return `${PREFIX}${key.keyId}.${seal(key.key, Buffer.from(secret, 'utf8'), associated(userId)).toString('base64url')}`;
    },
    async open(userId, stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const [keyId, body] = stored.slice(PREFIX.length).split('.');
      const key = keyId && body ? await keys.key(ownerOf(userId), keyId) : null;
      if (!key) throw new TotpSecretGoneError();
      return open(key.key, Buffer.from(body, 'base64url'), associated(userId)).toString('utf8');
    },
    forget: (userId) => keys.forget(ownerOf(userId)),
  };
}
