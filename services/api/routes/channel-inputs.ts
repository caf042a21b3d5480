import { hostKeyFingerprint } from '../../ingest/sftp/host-key.ts';

/**
 * The pinned fingerprint of a public host key as an admin pastes it: one line, as a `.pub` file
 * (`ssh-ed25519 AAAA… comment`) or ssh-keyscan (`host ssh-ed25519 AAAA…`) shows it. The key's
 * own bytes must name the same type as the line, so a truncated or made-up text is refused
 * rather than pinned (it would fail every poll). Null when it is not such a line.
 */
export function hostKeyOfPublicKeyLine(text: string): string | null {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length !== 1) return null;
  const fields = lines[0].split(/\s+/);
  const at = fields.findIndex((f) => /^(ssh-(ed25519|rsa|dss)|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9@.-]+)$/.test(f));
  if (at < 0 || at > 1 || !fields[at + 1] || !/^[A-Za-z0-9+/]+={0,2}$/.test(fields[at + 1])) return null;
  const blob = Buffer.from(fields[at + 1], 'base64');
  if (blob.length < 4) return null;
  const typeLength = blob.readUInt32BE(0);
  if (blob.length < 4 + typeLength || blob.subarray(4, 4 + typeLength).toString('latin1') !== fields[at]) return null;
  return hostKeyFingerprint(blob);
}
