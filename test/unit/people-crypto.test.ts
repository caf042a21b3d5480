import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, generateTotpSecret, hotp, matchTotp, otpauthUri, totpStepAt } from '../../services/api/people/totp.ts';
import { hashPassword, verifyPassword } from '../../services/api/people/password.ts';
import { csrfTokenOf, hashToken, newSecretToken } from '../../services/api/people/tokens.ts';
import { referenceTotp } from '../support/totp-reference.ts';

// RFC 6238 Appendix B (SHA-1): the ASCII secret "12345678901234567890", 8-digit codes; the
// 6-digit code is their last six digits (the same truncation modulo 10^6).
const RFC_SECRET = base32Encode(Buffer.from('12345678901234567890'));
const RFC_VECTORS: Array<[number, string]> = [
  [59, '94287082'], [1111111109, '07081804'], [1111111111, '14050471'], [1234567890, '89005924'], [2000000000, '69279037'], [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it('gives the RFC test vectors', () => {
    for (const [seconds, code] of RFC_VECTORS) {
      expect(hotp(RFC_SECRET, totpStepAt(new Date(seconds * 1000)))).toBe(code.slice(-6));
    }
  });

  it('agrees with an independent implementation on random secrets', () => {
    for (let i = 0; i < 20; i++) {
      const secret = generateTotpSecret();
      const at = new Date(1_700_000_000_000 + i * 7_777_777);
      expect(hotp(secret, totpStepAt(at))).toBe(referenceTotp(secret, at));
      expect(base32Encode(base32Decode(secret))).toBe(secret);
    }
  });

  it('accepts one step of drift either way, never a used or older step, never a malformed code', () => {
    const secret = generateTotpSecret();
    const at = new Date(1_800_000_000_000);
    const now = totpStepAt(at);
    expect(matchTotp(secret, referenceTotp(secret, at), at, 0)).toBe(now);
    expect(matchTotp(secret, referenceTotp(secret, at, -1), at, 0)).toBe(now - 1);
    expect(matchTotp(secret, referenceTotp(secret, at, 1), at, 0)).toBe(now + 1);
    expect(matchTotp(secret, referenceTotp(secret, at, 2), at, 0)).toBeNull();
    expect(matchTotp(secret, referenceTotp(secret, at, -2), at, 0)).toBeNull();
    expect(matchTotp(secret, referenceTotp(secret, at), at, now)).toBeNull();
    expect(matchTotp(secret, '12345', at, 0)).toBeNull();
    expect(matchTotp(secret, 'abcdef', at, 0)).toBeNull();
  });

  it('writes the otpauth URI apps read', () => {
    expect(otpauthUri('JBSWY3DPEHPK3PXP', 'Robinson', 'a@b.dk')).toBe(
      'otpauth://totp/Robinson%3Aa%40b.dk?secret=JBSWY3DPEHPK3PXP&issuer=Robinson&algorithm=SHA1&digits=6&period=30',
    );
  });
});

describe('passwords (scrypt)', () => {
  it('verifies the password it hashed and nothing else; two hashes of one password differ', async () => {
    const stored = await hashPassword('korrekt hest batteri hæfteklamme');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(await verifyPassword('korrekt hest batteri hæfteklamme', stored)).toBe(true);
    expect(await verifyPassword('korrekt hest batteri haefteklamme', stored)).toBe(false);
    expect(await hashPassword('korrekt hest batteri hæfteklamme')).not.toBe(stored);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$a$b$c$d$e')).toBe(false);
  });

  it('treats composed and decomposed æøå alike (NFC)', async () => {
    const stored = await hashPassword('blåbærgrød med fløde');
    expect(await verifyPassword('blåbærgrød med fløde'.normalize('NFD'), stored)).toBe(true);
  });
});

describe('tokens', () => {
  it('are random, stored as SHA-256, and give a CSRF token that is not the token', () => {
    const a = newSecretToken();
    expect(a).toMatch(/^[\w-]{43}$/);
    expect(newSecretToken()).not.toBe(a);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(csrfTokenOf(a)).not.toBe(a);
    expect(csrfTokenOf(a)).toBe(csrfTokenOf(a));
  });
});
