import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { ConfigError } from '../config.ts';
import type { KeyRing } from '../store/keyring-port.ts';
import { keyFromDer, MalformedJwsError, parseJws, publicJwk, signJws, verifyJws } from './jws.ts';

/**
 * The keys of job certificates (docs/decisions.md §10): which key signs, which keys verify, the JWKS.
 *
 * Where keys come from:
 * - `CERTIFICATE_KEYS` (configuration; comma-separated base64url DER): the first entry is a PKCS#8
 *   Ed25519 private key and signs; the others (PKCS#8 or SPKI public keys) only verify. A
 *   deployment that keeps its keys in a secret manager rotates by putting the new key first and
 *   the old one's public key after it.
 * - otherwise the store (KeyRing, purpose `certificate`): the newest key signs; when there is none
 *   the first signer makes one. `rotate()` (admin tool: `certificate-key rotate`) adds a newer one.
 * Every key of the store verifies, configured or not, so moving from stored to configured keys
 * (or two processes that both made a first key) leaves every issued certificate verifiable.
 * `kid` is the key's RFC 7638 thumbprint.
 */
export interface CertificateKeys {
  sign(claims: object): Promise<string>;
  verify(token: string): Promise<CertificateCheck>;
  /** Every verifying public key, as a JWK Set (RFC 7517). */
  jwks(): Promise<{ keys: Array<ReturnType<typeof publicJwk>> }>;
  /** Adds a new signing key to the store; its kid. */
  rotate(): Promise<string>;
}

export type CertificateCheck =
  | { ok: true; kid: string; claims: unknown }
  | { ok: false; reason: 'malformed' | 'unknown_key' | 'signature_invalid' };

interface Known {
  kid: string;
  key: KeyObject;
}

export function createCertificateKeys(deps: { keyring: KeyRing; configured?: string; now?: () => Date }): CertificateKeys {
  const now = deps.now ?? (() => new Date());
  const configured: Known[] = parseConfigured(deps.configured);
  if (configured.length > 0 && configured[0].key.type !== 'private') {
    throw new ConfigError('CERTIFICATE_KEYS: the first entry must be a private key (it signs)');
  }

  async function stored(): Promise<Known[]> {
    return (await deps.keyring.listKeys('certificate')).map((k) => ({ kid: k.kid, key: keyFromDer(k.secret) }));
  }

  async function add(): Promise<string> {
    const { privateKey } = generateKeyPairSync('ed25519');
    const kid = publicJwk(privateKey).kid;
    const secret = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url');
    await deps.keyring.addKey({ purpose: 'certificate', kid, secret, created_at: now().toISOString() });
    return kid;
  }

  /** Read on every signature (one per finished job), so a rotation applies at once everywhere. */
  async function signer(): Promise<Known> {
    if (configured.length > 0) return configured[0];
    let keys = await stored();
    if (keys.length === 0) {
      await add();
      keys = await stored();
    }
    return keys[0];
  }

  async function verifying(): Promise<Known[]> {
    const all = [...configured, ...(await stored())];
    const seen = new Set<string>();
    return all.filter((k) => (seen.has(k.kid) ? false : (seen.add(k.kid), true)));
  }

  return {
    async sign(claims) {
      const key = await signer();
      return signJws(claims, { kid: key.kid, privateKey: key.key });
    },
    async verify(token) {
      let parts;
      try {
        parts = parseJws(token);
      } catch (error) {
        if (error instanceof MalformedJwsError) return { ok: false, reason: 'malformed' };
        throw error;
      }
      const key = (await verifying()).find((k) => k.kid === parts.header.kid);
      if (!key) return { ok: false, reason: 'unknown_key' };
      if (!verifyJws(parts, key.key)) return { ok: false, reason: 'signature_invalid' };
      return { ok: true, kid: key.kid, claims: parts.payload };
    },
    async jwks() {
      return { keys: (await verifying()).map((k) => publicJwk(k.key)) };
    },
    rotate: add,
  };
}

function parseConfigured(text: string | undefined): Known[] {
  if (!text) return [];
  return text.split(',').map((part) => part.trim()).filter(Boolean).map((der, i) => {
    let key: KeyObject;
    try {
      key = keyFromDer(der);
    } catch {
      // The value is a secret: name the position, never echo it.
      throw new ConfigError(`CERTIFICATE_KEYS: entry ${i + 1} is not a base64url DER Ed25519 key`);
    }
    return { kid: publicJwk(key).kid, key };
  });
}
