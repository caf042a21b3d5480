import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** SPKI DER prefix of an Ed25519 public key (RFC 8410): the 32 key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * An outside verifier of a compact EdDSA JWS: the `openssl` command line (OpenSSL 3), given the
 * public key only as the JWK `x` of the JWKS. Nothing of the service's crypto code takes part.
 * True when openssl says the signature verifies.
 */
export async function opensslVerifiesJws(token: string, jwkX: string): Promise<boolean> {
  const [header, payload, signature] = token.split('.');
  const dir = mkdtempSync(join(tmpdir(), 'openssl-jws-'));
  try {
    const der = Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(jwkX, 'base64url')]);
    const pem = `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`;
    writeFileSync(join(dir, 'key.pem'), pem);
    writeFileSync(join(dir, 'data'), `${header}.${payload}`);
    writeFileSync(join(dir, 'sig'), Buffer.from(signature, 'base64url'));
    const result = await run('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', join(dir, 'key.pem'), '-rawin', '-in', join(dir, 'data'), '-sigfile', join(dir, 'sig')])
      .then((r) => ({ ok: true, out: r.stdout }), (e: { stdout?: string }) => ({ ok: false, out: e.stdout ?? '' }));
    return result.ok && result.out.includes('Signature Verified Successfully');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
