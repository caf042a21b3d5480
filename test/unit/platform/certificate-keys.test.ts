import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCertificateKeys } from '../../../services/platform/keys/certificate-keys.ts';
import { ConfigError } from '../../../services/platform/config.ts';
import { openEmbeddedDatabase } from '../../../services/platform/store/embedded/database.ts';
import { createEmbeddedKeyRing } from '../../../services/platform/store/embedded/keyring.ts';
import { opensslVerifiesJws } from '../../support/openssl-jws.ts';

const claims = { job_id: 'a', row_count: 3 };
/** The token with one byte of its claims changed (row_count 3 → 4), still valid JSON. */
function tamperPayload(token: string): string {
  const [h, p, s] = token.split('.');
  const edited = Buffer.from(p, 'base64url').toString().replace('"row_count":3', '"row_count":4');
  return `${h}.${Buffer.from(edited).toString('base64url')}.${s}`;
}

/** The token with one byte of its signature changed. */
function tamperSignature(token: string): string {
  const [h, p, s] = token.split('.');
  const signature = Buffer.from(s, 'base64url');
  signature[10] ^= 0x01;
  return `${h}.${p}.${signature.toString('base64url')}`;
}

const keyring = () => createEmbeddedKeyRing(openEmbeddedDatabase(':memory:'));

describe('certificate keys (store keys)', () => {
  it('makes a first key on first use, signs, verifies, and openssl agrees with the JWKS key', async () => {
    const keys = createCertificateKeys({ keyring: keyring() });
    expect((await keys.jwks()).keys).toEqual([]);
    const token = await keys.sign(claims);
    const [header] = token.split('.');
    const { kid, alg } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string; alg: string };
    expect(alg).toBe('EdDSA');
    expect(await keys.verify(token)).toEqual({ ok: true, kid, claims });
    const jwks = await keys.jwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([kid]);
    expect(await opensslVerifiesJws(token, jwks.keys[0].x)).toBe(true);
    // The outside verifier can fail: a changed payload does not verify there either.
    expect(await opensslVerifiesJws(tamperPayload(token), jwks.keys[0].x)).toBe(false);
  });

  it('tells a tampered token, an unknown key and a malformed text apart', async () => {
    const keys = createCertificateKeys({ keyring: keyring() });
    const token = await keys.sign(claims);
    expect(await keys.verify(tamperPayload(token))).toEqual({ ok: false, reason: 'signature_invalid' });
    expect(await keys.verify(tamperSignature(token))).toEqual({ ok: false, reason: 'signature_invalid' });
    const other = createCertificateKeys({ keyring: keyring() });
    expect(await other.verify(token)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(await keys.verify('not.a-token')).toEqual({ ok: false, reason: 'malformed' });
    expect(await keys.verify('a.b.c')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('rotation: new tokens carry the new kid, old tokens keep verifying, both keys are published', async () => {
    let t = Date.parse('2026-01-01T00:00:00Z');
    const ring = keyring();
    const keys = createCertificateKeys({ keyring: ring, now: () => new Date(t) });
    const old = await keys.sign(claims);
    t += 60_000;
    const newKid = await keys.rotate();
    const fresh = await keys.sign(claims);
    const kidOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as { kid: string }).kid;
    expect(kidOf(fresh)).toBe(newKid);
    expect(kidOf(old)).not.toBe(newKid);
    // Another process on the same store sees the rotation at once.
    const elsewhere = createCertificateKeys({ keyring: ring });
    expect((await elsewhere.verify(old)).ok).toBe(true);
    expect((await elsewhere.verify(fresh)).ok).toBe(true);
    expect((await elsewhere.jwks()).keys.map((k) => k.kid).sort()).toEqual([kidOf(old), newKid].sort());
  });

  it('configured keys: the first signs, a public key after it still verifies, stored keys verify too', async () => {
    const ring = keyring();
    const stored = await createCertificateKeys({ keyring: ring }).sign(claims);
    const retired = generateKeyPairSync('ed25519');
    const retiredToken = await createCertificateKeys({
      keyring: keyring(), configured: retired.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url'),
    }).sign(claims);
    const current = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url');
    const retiredPublic = retired.publicKey.export({ format: 'der', type: 'spki' }).toString('base64url');
    const keys = createCertificateKeys({ keyring: ring, configured: `${current}, ${retiredPublic}` });
    expect((await keys.verify(retiredToken)).ok).toBe(true);
    expect((await keys.verify(stored)).ok).toBe(true);
    const token = await keys.sign(claims);
    expect((await keys.verify(token)).ok).toBe(true);
    expect((await keys.jwks()).keys).toHaveLength(3);
    expect(() => createCertificateKeys({ keyring: ring, configured: retiredPublic })).toThrow(ConfigError);
    expect(() => createCertificateKeys({ keyring: ring, configured: 'bm90LWEta2V5' })).toThrow(/entry 1/);
  });
});
