import { createHash, randomInt } from 'node:crypto';

/**
 * Recovery codes (docs/people.md "Recovery codes"): for a person whose phone is gone. Ten codes,
 * each 16 characters of Crockford's base32 (80 random bits, so a stolen list of hashes cannot be
 * searched through), written `xxxx-xxxx-xxxx-xxxx`. Shown once; only a SHA-256 of each (with the
 * user's id, so equal codes of two people never share a hash) is stored; each works once.
 */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 16;

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let code = '';
    for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    return code.match(/.{4}/g)!.join('-');
  });
}

/** What a person typed, as the code it is: case, spaces and dashes ignored, O read as 0, I and L as 1. */
export function normaliseRecoveryCode(typed: string): string | null {
  const code = typed.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  return new RegExp(`^[${ALPHABET}]{${LENGTH}}$`).test(code) ? code : null;
}

export function hashRecoveryCode(userId: string, code: string): string {
  return createHash('sha256').update(`recovery:${userId}:${code}`, 'utf8').digest('hex');
}
