import { createHash } from 'node:crypto';

/**
 * SSH host key fingerprints, as pinned for drop folders. Kept apart from the SFTP client so the
 * admin tool can compute one without loading the SSH library.
 */

/** `SHA256:<base64 without padding>`, the form `ssh-keygen -l` prints. */
export function hostKeyFingerprint(rawKey: Buffer): string {
  return `SHA256:${createHash('sha256').update(rawKey).digest('base64').replace(/=+$/, '')}`;
}

/** The fingerprint of an OpenSSH public key line (`ssh-ed25519 AAAA… comment`). */
export function fingerprintOfPublicKeyLine(line: string): string {
  const blob = line.trim().split(/\s+/)[1];
  if (!blob) throw new Error('not an OpenSSH public key line');
  return hostKeyFingerprint(Buffer.from(blob, 'base64'));
}
