import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { PermanentError } from '../errors.ts';

/**
 * Compact JWS with EdDSA over Ed25519 (RFC 7515, RFC 8037), from node:crypto alone: the signature
 * is one `crypto.sign(null, …)` call, so a JOSE library would add a dependency for ~40 lines.
 * Interoperability is proved by an outside verifier (the openssl command line) in the tests.
 */
export interface JwsParts {
  header: { alg: string; kid?: string; typ?: string };
  payload: unknown;
  /** `<header>.<payload>` as received: the bytes the signature covers. */
  signingInput: string;
  signature: Buffer;
}

export class MalformedJwsError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedJwsError';
  }
}

const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export function signJws(payload: unknown, key: { kid: string; privateKey: KeyObject }): string {
  const header = b64(JSON.stringify({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' }));
  const body = b64(JSON.stringify(payload));
  const signature = sign(null, Buffer.from(`${header}.${body}`), key.privateKey);
  return `${header}.${body}.${b64(signature)}`;
}

const PART = /^[A-Za-z0-9_-]+$/;

/** Splits and decodes a compact JWS; throws MalformedJwsError on anything else. */
export function parseJws(token: string): JwsParts {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => PART.test(p))) throw new MalformedJwsError('not a compact JWS');
  let header: JwsParts['header'];
  let payload: unknown;
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as JwsParts['header'];
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw new MalformedJwsError('header or payload is not JSON');
  }
  if (typeof header !== 'object' || header === null || typeof header.alg !== 'string') throw new MalformedJwsError('no alg');
  return { header, payload, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2], 'base64url') };
}

/** True when `parts` is EdDSA and its signature verifies with `publicKey`. */
export function verifyJws(parts: JwsParts, publicKey: KeyObject): boolean {
  if (parts.header.alg !== 'EdDSA') return false;
  return verify(null, Buffer.from(parts.signingInput), publicKey, parts.signature);
}

/** The public JWK of an Ed25519 key (private or public), with its RFC 7638 thumbprint as kid. */
export function publicJwk(key: KeyObject): { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' } {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' }) as { crv: string; x: string };
  if (jwk.crv !== 'Ed25519') throw new Error('not an Ed25519 key');
  const thumbprint = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${jwk.x}"}`).digest('base64url');
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: thumbprint, alg: 'EdDSA', use: 'sig' };
}

/** A key from base64url DER: PKCS#8 (private) or SPKI (public). Throws when it is neither Ed25519. */
export function keyFromDer(text: string): KeyObject {
  const der = Buffer.from(text, 'base64url');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    key = createPublicKey({ key: der, format: 'der', type: 'spki' });
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('not an Ed25519 key');
  return key;
}
