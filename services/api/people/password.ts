import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords of the portal's people (docs/people.md "Passwords"): scrypt, the memory-hard KDF built
 * into Node, so no dependency. N = 2^15, r = 8 takes 32 MiB and ~50-100 ms per hash here: slow for
 * a guesser with a stolen table, cheap for one sign-in. The parameters travel in the stored text
 * (`scrypt$N$r$p$salt$hash`), so raising them later leaves old hashes verifiable.
 */
const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLEL = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** Node refuses N=2^15, r=8 under its default 32 MiB limit (it needs 128·N·r plus a little). */
const MAX_MEMORY = 64 * 1024 * 1024;

/** Shortest and longest password accepted (NIST 800-63B: length, not composition rules). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;

function scrypt(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_LENGTH, { N: COST, r: BLOCK_SIZE, p: PARALLEL, maxmem: MAX_MEMORY });
  return ['scrypt', COST, BLOCK_SIZE, PARALLEL, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** False for a wrong password and for a stored text that is not ours (never throws on it). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (![n, r, p].every((v) => Number.isInteger(v) && v > 0)) return false;
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  const key = await scrypt(password, salt, expected.length, { N: n, r, p, maxmem: Math.max(MAX_MEMORY, 256 * n * r) });
  return timingSafeEqual(key, expected);
}

/** A hash to verify against when the e-mail is unknown, so both answers take the same time. */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
